"""The schema is defined once: the SQLAlchemy tables in ``server/store.py``.

The Alembic migrations must build exactly those tables.  Alembic's autogenerate
comparison (what ``alembic revision --autogenerate`` would write) runs against
a database migrated from nothing, on SQLite and on PostgreSQL, and must find
no difference: a column, type, index or nullability changed in one place and
not the other fails here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from tabletop.server.store import SqlStore, metadata
from test_server_postgres import postgres_url  # noqa: F401 - the PostgreSQL cluster fixture


def _differences(engine: sa.engine.Engine) -> list[Any]:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        return list(compare_metadata(context, metadata))


def test_the_migrations_build_the_tables_of_store_py_on_sqlite(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'fresh.db'}")  # migrated from nothing to the newest revision
    try:
        assert _differences(store.engine) == []
    finally:
        asyncio.run(store.close())


def test_the_migrations_build_the_tables_of_store_py_on_postgresql(postgres_url: str) -> None:  # noqa: F811
    store = SqlStore(postgres_url)  # a new cluster for this module: migrated from nothing
    try:
        assert _differences(store.engine) == []
    finally:
        asyncio.run(store.close())


def test_the_comparison_sees_a_table_that_differs(tmp_path: Path) -> None:
    """The check can fail: a column the migrations never made is reported."""
    store = SqlStore(f"sqlite:///{tmp_path / 'fresh.db'}")
    changed = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(changed)
    changed.tables["actions"].append_column(sa.Column("note", sa.Text, nullable=True))
    try:
        with store.engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            found = list(compare_metadata(context, changed))
        assert [(d[0], d[3].name) for d in found if d[0] == "add_column"] == [("add_column", "note")]
    finally:
        asyncio.run(store.close())
