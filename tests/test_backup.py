"""``tabletop db backup`` / ``tabletop db restore``: a game survives a backup taken
while the server plays, the deletion of its database and a restore.

The server is a real ``tabletop serve`` on a SQLite file; the commands run as
the user runs them.  Bad paths and URLs get one line on stderr, and a copy that
fails leaves no file behind, half-written or whole.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tabletop.server.backup import BackupError, backup, restore
from test_server import Server, Socket, state

TABLETOP = str(Path(sys.executable).with_name("tabletop"))


def db(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TABLETOP, "db", *args], capture_output=True, text=True, timeout=120)


def _play(sock: Socket, move: str, seq: int) -> None:
    sock.send({"type": "move", "move": move, "seq": seq})
    sock.ack(seq)


def test_a_game_survives_backup_deletion_of_the_database_and_restore(tmp_path: Path) -> None:
    database = tmp_path / "rooms.db"
    url = f"sqlite:///{database}"
    saved = tmp_path / "backups" / "rooms-backup.db"
    saved.parent.mkdir()
    server = Server(database)
    try:
        created = server.http.post("/api/rooms", json={"game": "gomoku", "mode": "local"}).json()
        room = created["room"]
        sock = server.ws(room)
        sock.hello(*created["tokens"].values())
        moves = ["h8", "a1", "h9", "a2", "h10"]
        for seq, move in enumerate(moves, 1):
            _play(sock, move, seq)
        # a second game keeps the server writing while the backup is taken
        other = server.http.post("/api/rooms", json={"game": "gomoku", "mode": "local"}).json()
        busy = server.ws(other["room"])
        busy.hello(*other["tokens"].values())
        points = [f"{c}{r}" for r in range(1, 16) for c in "abcdefghjklmnop"]
        played: list[str] = []

        def keep_playing() -> None:
            for seq, move in enumerate(points[:60], 1):
                busy.send({"type": "move", "move": move, "seq": seq})
                reply = busy.until(lambda f: f.get("type") in ("ack", "error"))
                if reply["type"] == "ack":
                    played.append(move)
                if len(played) >= 40:
                    return

        writer = threading.Thread(target=keep_playing)
        writer.start()
        done = db("backup", str(saved), "--database", url)
        writer.join(timeout=600)
        assert not writer.is_alive(), "the second game did not finish its moves"
        assert done.returncode == 0, done.stderr
        assert f"to {saved}" in done.stdout and "2 rooms" in done.stdout
        _play(sock, "a3", 6)  # after the backup: not in it
        sock.close()
        busy.close()
    finally:
        server.stop()

    with sqlite3.connect(saved) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT kind, arg FROM actions WHERE room_id = ? ORDER BY n", (other["room"],))
        stored = [json.loads(arg) for kind, arg in rows if kind == "play"]
    # the busy game's snapshot is a prefix of what was played: no move torn, none invented
    assert stored == played[: len(stored)]

    for leftover in tmp_path.glob("rooms.db*"):
        leftover.unlink()  # the database and its write-ahead log are gone
    assert not database.exists()
    done = db("restore", str(saved), "--database", url)
    assert done.returncode == 0, done.stderr
    assert "2 rooms" in done.stdout

    server = Server(database)
    try:
        after = state(server, room)
        assert after["moves"] == moves and after["turn"] == "white"
        sock = server.ws(room)
        sock.hello(*created["tokens"].values())
        # a hot-seat client's seq counts per seat: White's 4 was acknowledged before the backup
        sock.send({"type": "move", "move": "a3", "seq": 4})
        assert sock.until(lambda f: f["type"] == "ack")["duplicate"] is True
        for seq, move in enumerate(["a3", "h11", "a4", "h12"], 6):
            _play(sock, move, seq)
        assert sock.event("game_ended")["event"]["outcome"]["winner"] == "black"
        sock.close()
        assert state(server, room)["outcome"]["winner"] == "black"
    finally:
        server.stop()


def test_bad_paths_and_urls_get_one_line_and_write_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    server = Server(tmp_path / "rooms.db")  # creates the database
    server.stop()
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    cases = [
        (["backup", str(tmp_path / "no" / "such" / "folder" / "b.db"), "--database", url], "does not exist"),
        (["backup", str(tmp_path), "--database", url], "is a folder"),
        (["backup", str(tmp_path / "b.db"), "--database", "postgresql://u@127.0.0.1/tabletop"], "pg_dump"),
        (["backup", str(tmp_path / "b.db"), "--database", "sqlite:///:memory:"], "in-memory"),
        (["backup", str(tmp_path / "b.db"), "--database", f"sqlite:///{tmp_path / 'none.db'}"], "no database file"),
        (["backup", str(tmp_path / "rooms.db"), "--database", url], "the database itself"),
        (["backup", str(tmp_path / "b.db"), "--database", "not a url"], "not a database URL"),
        (["restore", str(tmp_path / "missing.db"), "--database", url], "no database file"),
        (["restore", str(text), "--database", url], "not a SQLite database"),
        (["restore", str(foreign), "--database", url], "not a tabletop database"),
    ]
    for args, words in cases:
        done = db(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tabletop: error:") and words in lines[0], (args, done.stderr)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("rooms.db")) == [
        "foreign.db",
        "notes.txt",
    ]


def test_a_copy_that_fails_half_way_leaves_the_old_backup_whole(tmp_path: Path) -> None:
    database = tmp_path / "rooms.db"
    server = Server(database)
    try:
        for _ in range(300):  # enough rows for a copy of several steps
            server.http.post("/api/rooms", json={"game": "tictactoe", "options": {}})
    finally:
        server.stop()
    url = f"sqlite:///{database}"
    target = tmp_path / "backup.db"
    first = backup(url, target)
    assert first.rooms == 300
    before = target.read_bytes()

    def fail(status: int, remaining: int, total: int) -> None:
        raise OSError("the disk filled up")  # as if the copy stopped half way

    import tabletop.server.backup as module

    steps = module.PAGES_PER_STEP
    module.PAGES_PER_STEP = 1
    try:
        with pytest.raises((BackupError, OSError)):
            backup(url, target, progress=fail)
        with pytest.raises((BackupError, OSError)):
            restore(f"sqlite:///{tmp_path / 'restored.db'}", target, progress=fail)
    finally:
        module.PAGES_PER_STEP = steps
    assert target.read_bytes() == before  # the old backup is untouched
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("rooms.db")) == ["backup.db"]
