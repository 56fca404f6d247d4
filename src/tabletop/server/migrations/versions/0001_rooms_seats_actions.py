"""Rooms, seats and the action log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("position", sa.Text, nullable=True),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("invite_hash", sa.String(64), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("over", sa.Boolean, nullable=False),
        sa.Column("rematch", sa.String(32), nullable=True),
    )
    op.create_table(
        "seats",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("color", sa.String(8), primary_key=True),
        sa.Column("kind", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("color", sa.String(8), nullable=True),
        sa.Column("arg", sa.Text, nullable=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("rooms_lobby", "rooms", ["listed", "over", "created"])


def downgrade() -> None:
    op.drop_index("rooms_lobby", "rooms")
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_table("rooms")
