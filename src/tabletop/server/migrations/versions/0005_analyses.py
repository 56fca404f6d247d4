"""A room's whole-game analysis, stored with the game (issue 25).

Only a new table: the rooms of an older database stay as they are and simply have no
analysis until someone asks for one.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("moves", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analyses")
