"""Tournaments (issue 45): arenas and swiss tournaments, their players and their games.

New tables only; nothing older changes.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("creator", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("clock", sa.Text, nullable=False),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("starts", sa.Float, nullable=False),
        sa.Column("minutes", sa.Float, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("tournaments_status", "tournaments", ["status", "starts"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("seed", sa.Float, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("room_id", sa.String(32), nullable=True),
        sa.Column("free_since", sa.Float, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("blacks", sa.Integer, nullable=False),
        sa.Column("whites", sa.Integer, nullable=False),
        sa.Column("last_color", sa.String(8), nullable=True),
        sa.Column("last_opponent", sa.String(32), nullable=True),
        sa.Column("byes", sa.Integer, nullable=False),
        sa.Column("sheet", sa.Text, nullable=False),
    )
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=True, unique=True),
        sa.Column("black", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("white", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("black_score", sa.Float, nullable=True),
        sa.Column("ended", sa.Float, nullable=True),
        sa.Column("black_points", sa.Float, nullable=True),
        sa.Column("white_points", sa.Float, nullable=True),
        sa.Column("announced", sa.Boolean, nullable=False),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_games_tournament_id", table_name="tournament_games")
    op.drop_table("tournament_games")
    op.drop_table("tournament_players")
    op.drop_index("tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
