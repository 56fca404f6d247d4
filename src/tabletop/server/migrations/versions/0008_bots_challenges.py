"""Bot accounts and challenges (issue 45), and which seeks Play now posted.

New tables only, and a column whose default (false) is right for every older seek: a seek posted
before this revision is taken by whoever accepts it, as before.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("challenger", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("challenged", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("color", sa.String(8), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("pool", sa.String(48), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_challenges_challenger", "challenges", ["challenger"])
    op.create_index("ix_challenges_challenged", "challenges", ["challenged"])
    op.add_column("seeks", sa.Column("quick", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("quick")
    op.drop_index("ix_challenges_challenged", table_name="challenges")
    op.drop_index("ix_challenges_challenger", table_name="challenges")
    op.drop_table("challenges")
    op.drop_table("bots")
