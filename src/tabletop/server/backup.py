"""Backups of the game database: a SQLite file copied through SQLite's online backup API.

:func:`backup` copies a consistent snapshot of the database while a server may
be writing to it (the backup API reads it page by page under SQLite's own
locks; a write in between restarts the copy of what changed).  :func:`restore`
puts a backup back.  Either writes a temporary file beside the target, checks
it, syncs it and renames it over the target, so the target is the old file or
the whole new one, never half of one.  Restoring into a database that exists
goes through the same API into that file, inside one SQLite transaction.

PostgreSQL is backed up with its own tools (``pg_dump``/``pg_restore``, see the
README); this module refuses any URL but a SQLite file's.  It holds no game
logic and opens no server.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

__all__ = ["BackupError", "Copied", "backup", "restore", "sqlite_file"]

# the tables every tabletop database has (the Alembic revision table says which schema)
TABLES = {"rooms", "seats", "actions", "alembic_version"}
PAGES_PER_STEP = 256  # a running server gets the database back between steps of the copy

Progress = Callable[[int, int, int], object]


class BackupError(ValueError):
    """A backup or restore that cannot be done, with the reason in one line."""


@dataclass
class Copied:
    """What a backup or restore copied: the file written and what it holds."""

    path: Path
    rooms: int
    actions: int
    size: int


def sqlite_file(url: str) -> Path:
    """The file of a ``sqlite:///...`` URL; any other database is refused in one line."""
    try:
        parsed = sa.engine.make_url(url)
    except Exception:  # noqa: BLE001 - SQLAlchemy's parse error becomes one line
        raise BackupError(f"{url!r} is not a database URL (sqlite:////path/to/file.db)") from None
    if parsed.get_backend_name() != "sqlite":
        raise BackupError(
            f"{parsed.get_backend_name()} databases are backed up with their own tools"
            " (PostgreSQL: pg_dump -Fc and pg_restore, see the README); this command copies SQLite files"
        )
    if parsed.database in (None, "", ":memory:"):
        raise BackupError("an in-memory SQLite database has no file to back up")
    return Path(parsed.database).expanduser().resolve()


def _count(conn: sqlite3.Connection) -> tuple[int, int]:
    rooms = conn.execute("SELECT count(*) FROM rooms").fetchone()[0]
    actions = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
    return int(rooms), int(actions)


def _check(conn: sqlite3.Connection, what: Path) -> None:
    """Refuse a file that is not a sound tabletop database."""
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{what} is not a SQLite database ({exc})") from None
    if verdict != "ok":
        raise BackupError(f"{what} is damaged: {verdict}")
    if not names >= TABLES:
        raise BackupError(f"{what} is not a tabletop database (no {', '.join(sorted(TABLES - names))} table)")


def _open_existing(path: Path) -> sqlite3.Connection:
    """A connection to the database file at ``path``, which must exist (never creates one)."""
    if not path.is_file():
        raise BackupError(f"there is no database file at {path}")
    try:
        return sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {path}: {exc}") from None


def _copy_to_new_file(source: sqlite3.Connection, target: Path, progress: Progress | None) -> Copied:
    """Copy ``source`` into a temporary file beside ``target``, check it, rename it over ``target``."""
    folder = target.parent
    if not folder.is_dir():
        raise BackupError(f"the folder {folder} does not exist")
    if target.is_dir():
        raise BackupError(f"{target} is a folder; give a file name")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=folder)
    except OSError as exc:
        raise BackupError(f"cannot write in {folder}: {exc.strerror}") from None
    os.close(handle)
    partial = Path(temporary)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy, pages=PAGES_PER_STEP, progress=progress)
            # a file that stands alone: no write-ahead log beside it to lose
            copy.execute("PRAGMA journal_mode=DELETE")
            _check(copy, target)
            rooms, actions = _count(copy)
        finally:
            copy.close()
        with partial.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(partial, target)
        _sync_folder(folder)
    except sqlite3.Error as exc:
        raise BackupError(f"the copy to {target} failed: {exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return Copied(target, rooms, actions, target.stat().st_size)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup(url: str, target: Path | str, *, progress: Progress | None = None) -> Copied:
    """Copy the SQLite database of ``url`` to the file ``target`` (replaced whole if it exists).

    Safe while a server writes to the database.  ``progress(status, remaining, total)``
    is called after each step of the copy (SQLite's backup callback)."""
    database = sqlite_file(url)
    path = Path(target).expanduser().resolve()
    if path == database:
        raise BackupError(f"{path} is the database itself; give another file")
    source = _open_existing(database)
    try:
        _check(source, database)
        return _copy_to_new_file(source, path, progress)
    finally:
        source.close()


def restore(url: str, source: Path | str, *, progress: Progress | None = None) -> Copied:
    """Put the backup ``source`` back as the SQLite database of ``url``.

    A database file that exists is overwritten through the backup API in one
    transaction (stop the server first: it keeps the rooms it has loaded in
    memory).  A missing one is written beside its place and renamed into it, after
    removing a write-ahead log left of a deleted database, which would otherwise
    be replayed onto the restored file."""
    database = sqlite_file(url)
    path = Path(source).expanduser().resolve()
    if path == database:
        raise BackupError(f"{path} is the database itself; give the backup file")
    backup_file = _open_existing(path)
    try:
        _check(backup_file, path)
        if database.is_file():
            live = sqlite3.connect(database, timeout=30)
            try:
                backup_file.backup(live, pages=-1, progress=progress)  # one step: one transaction
                rooms, actions = _count(live)
            except sqlite3.Error as exc:
                raise BackupError(f"the restore into {database} failed: {exc}") from None
            finally:
                live.close()
            return Copied(database, rooms, actions, database.stat().st_size)
        for leftover in ("-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{database}{leftover}").unlink()
        return _copy_to_new_file(backup_file, database, progress)
    finally:
        backup_file.close()
