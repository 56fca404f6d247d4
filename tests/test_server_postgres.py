"""The game server on PostgreSQL: a throw-away cluster, a real ``tabletop serve`` on it.

A module fixture runs ``initdb`` and ``pg_ctl`` (Debian package ``postgresql``;
the Makefile installs it when missing) in a temporary folder, as the
``postgres`` user when the tests run as root (PostgreSQL refuses to run as
root), creates a database, and stops and removes the cluster afterwards.

Shown here: the Alembic migration on PostgreSQL, a game played over websockets
on a plain ``postgresql://`` URL, ``kill -9`` and a restart that finds every
acknowledged move, and the one-writer-per-action-number rule between two
stores and between two server processes sharing the database.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, SqlStore, StoreConflict
from test_server import Server, free_port, started_pair, state


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL's programs refuse to run as root: run them as ``postgres`` then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert found, "PostgreSQL is needed for this test: apt-get install postgresql"
    bin_dir = Path(found[-1]).parent
    folder = Path(tempfile.mkdtemp(prefix="tabletop-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = free_port()
    subprocess.run(
        _as_postgres(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
        ),
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    subprocess.run(
        _as_postgres(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(folder / "log"),
                "-w",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    try:
        with psycopg.connect(
            host="127.0.0.1", port=port, user="postgres", dbname="postgres", autocommit=True
        ) as c:
            c.execute("CREATE DATABASE tabletop")
        yield f"postgresql://postgres@127.0.0.1:{port}/tabletop"
    finally:
        subprocess.run(
            _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


def _room(room_id: str) -> RoomRecord:
    return RoomRecord(
        room_id, "tictactoe", {}, None, {"black": "human", "white": "human"}, None, "online", True, None, 1.0
    )


def test_two_stores_on_postgresql_cannot_both_store_the_same_action_number(postgres_url: str) -> None:
    one, two = SqlStore(postgres_url), SqlStore(postgres_url)
    assert one.writer == "process"
    room_id = "pg-two-stores"

    async def scenario() -> None:
        await one.create_room(_room(room_id), [SeatRecord("black", "human"), SeatRecord("white", "human")], [])
        await one.append(room_id, [ActionRecord(1, "play", "black", "b2", 2.0, seat="black", seq=2**62)])
        with pytest.raises(StoreConflict):
            await two.append(room_id, [ActionRecord(1, "play", "black", "a1", 2.0)])
        # one group-committed batch where one piece conflicts: PostgreSQL aborts the whole
        # transaction, and the store retries piece by piece so the others still land
        results = await asyncio.gather(
            one.append(room_id, [ActionRecord(1, "play", "black", "c1", 3.0)]),
            one.append(room_id, [ActionRecord(2, "play", "white", "a1", 3.0)]),
            return_exceptions=True,
        )
        assert isinstance(results[0], StoreConflict) and results[1] is None
        await two.append(room_id, [ActionRecord(3, "play", "black", "c3", 4.0)])
        with pytest.raises(StoreConflict):
            await one.append(room_id, [ActionRecord(3, "play", "black", "a3", 4.0)])
        assert await one.take_seat(room_id, "white", "x") is True
        assert await two.take_seat(room_id, "white", "y") is False
        loaded = await two.load(room_id)
        assert loaded is not None
        assert [a.arg for a in loaded.actions] == ["b2", "a1", "c3"]
        assert loaded.seats["black"].last_seq == 2**62  # 64-bit, on the action row since migration 0003
        await one.close()
        await two.close()

    asyncio.run(scenario())


def _head_revision() -> str:
    """The newest migration of the package: a new database is brought to it."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "tabletop.server:migrations")
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None and head >= "0003"  # at least the revision that put seq on the action rows
    return head


def test_serve_on_postgresql_migrates_plays_and_keeps_acknowledged_moves_after_kill_9(
    postgres_url: str,
) -> None:
    first = Server(postgres_url)  # a plain postgresql:// URL: psycopg 3 is the driver
    try:
        engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
        with engine.connect() as conn:
            assert conn.execute(sa.text("select version_num from alembic_version")).scalar() == _head_revision()
            assert set(sa.inspect(conn).get_table_names()) >= {"rooms", "seats", "actions"}
        engine.dispose()
        created = first.http.post(
            "/api/rooms", json={"game": "gomoku", "clock": {"initial": 120, "increment": 0}}
        ).json()
        room = created["room"]
        secret = created["invite"].split("invite=")[1]
        white = first.http.post(f"/api/rooms/{room}/join", json={"invite": secret}).json()["token"]
        a, b = first.ws(room), first.ws(room)
        a.hello(created["tokens"]["black"])
        b.hello(white)
        acknowledged: list[str] = []
        for i, (sock, move) in enumerate(zip([a, b] * 3, ["h8", "h9", "i8", "i9", "j8", "j9"], strict=True)):
            sock.send({"type": "move", "move": move, "seq": i + 1})
            sock.ack(i + 1)
            acknowledged.append(move)
        # a swap opening whose colour choice swapped the seats: the tokens must follow after a restart
        swap = first.http.post("/api/rooms", json={"game": "gomoku", "options": {"opening": "swap"}}).json()
        swap_secret = swap["invite"].split("invite=")[1]
        second_token = first.http.post(
            f"/api/rooms/{swap['room']}/join", json={"invite": swap_secret}
        ).json()["token"]
        opener, chooser = first.ws(swap["room"]), first.ws(swap["room"])
        opener.hello(swap["tokens"]["black"])
        chooser.hello(second_token)
        for seq, stone in enumerate(["h8", "h9", "i8"], start=1):
            opener.send({"type": "move", "move": stone, "seq": seq})
            opener.ack(seq)
        chooser.event("opening_choice_required")
        chooser.send({"type": "choose", "choice": "black"})
        assert chooser.event("colors_chosen")["event"]["swapped"] is True
        opener.send({"type": "move", "move": "j8", "seq": 4})  # the opener's token now plays White
        opener.ack(4)
        relayed = [
            f["event"]["move"]
            for f in b.seen
            if f.get("type") == "event" and f["event"]["kind"] == "move_played"
        ]
        assert relayed[0] == "h8"  # the opponent saw the moves relayed after each commit
        first.kill()
    finally:
        first.stop()

    second = Server(postgres_url)
    try:
        after = state(second, room)
        assert after["moves"] == acknowledged and after["turn"] == "black"
        assert after["clocks"]["white"] <= 120
        c = second.ws(room)
        c.hello(created["tokens"]["black"])
        c.send({"type": "move", "move": "j8", "seq": 5})  # resent after the crash: known
        assert c.until(lambda f: f["type"] == "ack")["duplicate"] is True
        c.send({"type": "move", "move": "k8", "seq": 7})
        c.ack(7)
        c.close()
        assert state(second, room)["moves"] == [*acknowledged, "k8"]
        swapped = state(second, swap["room"])
        assert swapped["moves"] == ["h8", "h9", "i8", "j8"] and swapped["turn"] == "black"
        d = second.ws(swap["room"])
        assert d.hello(second_token)["you"] == ["black"]
        d.send({"type": "move", "move": "j8", "seq": 1})  # seq 1 of this seat was never used: a new move
        assert d.error("illegal_move")  # j8 is taken; the game is the stored one
        d.send({"type": "move", "move": "k8", "seq": 2})
        d.ack(2)
        d.close()
        e = second.ws(swap["room"])
        assert e.hello(swap["tokens"]["black"])["you"] == ["white"]
        e.send({"type": "move", "move": "k9", "seq": 4})  # resent after the crash: known for this seat
        assert e.until(lambda f: f["type"] == "ack")["duplicate"] is True
        e.close()
    finally:
        second.stop()


def test_two_server_processes_on_postgresql_never_both_accept_move_n(postgres_url: str) -> None:
    one, two = started_pair(lambda: Server(postgres_url))  # no Redis: neither follows the other
    try:
        created = one.http.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        room = created["room"]
        tokens = list(created["tokens"].values())
        assert state(two, room)["moves"] == []  # process two has the room loaded at version N
        a, b = one.ws(room), two.ws(room)
        a.hello(*tokens)
        b.hello(*tokens)
        a.send({"type": "move", "move": "b2", "seq": 1})
        a.ack(1)
        b.send({"type": "move", "move": "a1", "seq": 1})  # the same action number, on the other process
        assert b.error("stale_room")
        time.sleep(0.1)
        assert state(two, room)["moves"] == ["b2"]  # process two reloaded what process one committed
        b.send({"type": "move", "move": "a1", "seq": 2})
        b.ack(2)
        a.close()
        b.close()
    finally:
        one.stop()
        two.stop()
    third = Server(postgres_url)
    try:
        assert state(third, room)["moves"] == ["b2", "a1"]
    finally:
        third.stop()
