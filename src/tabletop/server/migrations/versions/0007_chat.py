"""A room's chat, kept with the game (issue 44): the players' messages and the spectators'.

Only a new table: the rooms of an older database stay as they are and simply have no chat.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("seat", sa.String(8), nullable=True),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("chat_room", "chat", ["room_id", "id"])


def downgrade() -> None:
    op.drop_index("chat_room", table_name="chat")
    op.drop_table("chat")
