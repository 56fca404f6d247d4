"""Seat sequence numbers in 64 bits.

A client's move ``seq`` may be up to 2**62; PostgreSQL's INTEGER holds 32 bits,
so ``seats.last_seq`` becomes BIGINT there.  SQLite integers already have 64
bits, so SQLite is left alone (no table rebuild).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("seats", "last_seq", type_=sa.BigInteger, existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("seats", "last_seq", type_=sa.Integer, existing_nullable=False)
