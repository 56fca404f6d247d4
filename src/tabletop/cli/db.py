"""``tabletop db backup PATH`` / ``tabletop db restore PATH``: copy the game database.

SQLite only, through its online backup API (a backup is safe while the server
runs; stop the server before a restore).  PostgreSQL databases are copied with
``pg_dump``/``pg_restore`` (README).  This module parses arguments and prints;
the copying lives in :mod:`tabletop.server.backup`.
"""

from __future__ import annotations

import argparse
from typing import Any

from tabletop.cli import CliError


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="back up or restore the game database (SQLite)")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text, path_help in (
        ("backup", "copy the database to PATH (safe while the server runs)", "the backup file to write"),
        ("restore", "put the backup PATH back as the database (stop the server first)", "the backup file to read"),
    ):
        a = actions.add_parser(name, help=help_text)
        a.add_argument("path", metavar="PATH", help=path_help)
        a.add_argument(
            "--database",
            default=None,
            help="the server's SQLAlchemy URL (default: the SQLite file tabletop serve uses)",
        )
        a.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tabletop.server.backup import BackupError, backup, restore
    from tabletop.server.settings import default_database_url

    database = args.database or default_database_url()
    try:
        if args.action == "backup":
            copied = backup(database, args.path)
            print(
                f"backed up {database} to {copied.path}: {copied.rooms} rooms, {copied.actions} actions,"
                f" {copied.size / 1024:.0f} KiB"
            )
        else:
            copied = restore(database, args.path)
            print(f"restored {args.path} into {copied.path}: {copied.rooms} rooms, {copied.actions} actions")
    except BackupError as exc:
        raise CliError(str(exc)) from None
    return 0
