"""When a seek's poster was last known to be in the lobby (issue 26: a player's seeks go when they leave,
also when the server process that held their lobby socket stops without cancelling them).

An open seek of an older database gets 0: it was posted before this server started, by a player
no process has seen since, and the first heartbeat cancels it.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.add_column("seeks", sa.Column("seen", sa.Float, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("seen")
