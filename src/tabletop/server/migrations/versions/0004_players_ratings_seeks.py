"""Players, their sessions, rated games, ratings and their history, and seeks (issue 26).

Only new tables: the rooms, seats and actions of an older database stay as they are, and a
room played before this revision simply has no players.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("name_key", sa.String(20), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    op.create_table(
        "room_players",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("black", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("white", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("black_score", sa.Float, nullable=True),
        sa.Column("ended", sa.Float, nullable=True),
    )
    op.create_index("ix_room_players_black", "room_players", ["black"])
    op.create_index("ix_room_players_white", "room_players", ["white"])
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("pool", sa.String(48), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
    )
    op.create_index("ratings_leaderboard", "ratings", ["pool", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("change", sa.Float, nullable=False),
    )
    op.create_index("rating_history_player", "rating_history", ["player_id", "at"])
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("color", sa.String(8), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("taken_by", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("room_id", sa.String(32), nullable=True),
        sa.Column("poster_token", sa.String(64), nullable=True),
    )
    op.create_index("ix_seeks_player_id", "seeks", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_seeks_player_id", "seeks")
    op.drop_table("seeks")
    op.drop_index("rating_history_player", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ratings_leaderboard", "ratings")
    op.drop_table("ratings")
    op.drop_index("ix_room_players_white", "room_players")
    op.drop_index("ix_room_players_black", "room_players")
    op.drop_table("room_players")
    op.drop_index("ix_sessions_player_id", "sessions")
    op.drop_table("sessions")
    op.drop_table("players")
