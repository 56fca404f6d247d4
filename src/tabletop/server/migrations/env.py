"""Alembic environment for the game server's schema.

Run by :func:`tabletop.server.store.upgrade` with the connection in
``config.attributes["connection"]``; it must not open a database of its own
unless Alembic's command line gives it a URL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from tabletop.server.store import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("set sqlalchemy.url to the database URL")
    with sa.create_engine(url).begin() as conn:
        context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
