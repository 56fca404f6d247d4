"""A move's client sequence number on its action row.

Before, each acknowledged move wrote two rows: the action, and an UPDATE of its
seat's ``last_seq``.  The second write touched another table page per move
(about half of what each commit wrote to SQLite's log).  Now the action row
carries the seat row it was played from (``seat``) and the client's ``seq``,
and a room's ``last_seq`` per seat is the larger of the seat column (where
rows written before this revision left it) and the seat's largest ``seq`` in
the action log.  The seat column is still written when a room is created.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.add_column("actions", sa.Column("seat", sa.String(8), nullable=True))
    op.add_column("actions", sa.Column("seq", sa.BigInteger, nullable=True))


def downgrade() -> None:
    # fold the log's sequence numbers back into the seat rows before the columns go
    op.execute(
        "UPDATE seats SET last_seq = (SELECT MAX(actions.seq) FROM actions"
        " WHERE actions.room_id = seats.room_id AND actions.seat = seats.color)"
        " WHERE EXISTS (SELECT 1 FROM actions WHERE actions.room_id = seats.room_id"
        " AND actions.seat = seats.color AND actions.seq > seats.last_seq)"
    )
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("seq")
        batch.drop_column("seat")
