"""The server's small interfaces on their own: the SQL store (group commit, one
writer per action number, migrations) and the event buses.

No redis-server is installed on this machine, so :class:`RedisBus` runs here
against an in-process stand-in with redis-py's asyncio pub/sub API.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from tabletop.server.bus import Broadcast, LocalBus, RedisBus
from tabletop.server.rooms import new_room_id
from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, SqlStore, StoreConflict


def _room(room_id: str) -> RoomRecord:
    return RoomRecord(
        room_id, "tictactoe", {}, None, {"black": "human", "white": "human"}, None, "online", True, None, 1.0
    )


def test_concurrent_appends_share_commits_and_all_land(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 's.db'}")

    async def scenario() -> None:
        await store.create_room(
            _room("r"),
            [SeatRecord("black", "human", "h"), SeatRecord("white", "human")],
            [ActionRecord(0, "start", None, None, 1.0)],
        )
        commits = store.commits
        await asyncio.gather(
            *(
                store.append("r", [ActionRecord(n, "play", "black", f"m{n}", 2.0, seat="black", seq=n)])
                for n in range(1, 101)
            )
        )
        assert store.commits - commits < 100  # group commit: fewer transactions than actions
        loaded = await store.load("r")
        assert loaded is not None
        assert [a.n for a in loaded.actions] == list(range(101))
        assert loaded.seats["black"].last_seq == 100
        await store.close()

    asyncio.run(scenario())


def test_two_writers_cannot_both_store_the_same_action_number(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    one, two = SqlStore(url), SqlStore(url)

    async def scenario() -> None:
        await one.create_room(_room("r"), [SeatRecord("black", "human"), SeatRecord("white", "human")], [])
        await one.append("r", [ActionRecord(1, "play", "black", "b2", 2.0)])
        with pytest.raises(StoreConflict):
            await two.append("r", [ActionRecord(1, "play", "black", "a1", 2.0)])
        assert await one.take_seat("r", "white", "x") is True
        assert await two.take_seat("r", "white", "y") is False  # the seat went to the first
        loaded = await two.load("r")
        assert loaded is not None and [a.arg for a in loaded.actions] == ["b2"]
        await one.close()
        await two.close()

    asyncio.run(scenario())


def test_a_new_database_is_migrated_to_the_newest_schema(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'fresh.db'}")
    names = set(sa.inspect(store.engine).get_table_names())
    assert {"rooms", "seats", "actions", "alembic_version"} <= names
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version_num from alembic_version")).scalar() == _newest_revision()
        assert conn.execute(sa.text("pragma journal_mode")).scalar() == "wal"
    SqlStore(f"sqlite:///{tmp_path / 'fresh.db'}")  # a second start finds it current


# milliseconds from 1970 to the end of the 7-character time prefix (2109)
_ID_TIMES = st.integers(min_value=0, max_value=64**7 - 1).map(lambda ms: (ms + 0.5) / 1000)


@given(_ID_TIMES, _ID_TIMES)
def test_room_ids_sort_as_their_creation_times_and_keep_72_random_bits(one: float, two: float) -> None:
    a, b = new_room_id(one), new_room_id(two)
    assert len(a) == len(b) == 19 and len(a) <= 32  # the rooms table's id column
    assert set(a + b) <= set("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
    if int(one * 1000) != int(two * 1000):
        assert (a < b) == (one < two)
    assert a[7:] != b[7:]  # the random part: 12 characters of secrets.token_urlsafe


def _newest_revision() -> str:
    """The head of the migrations (the newest file in ``server/migrations/versions``)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "tabletop.server:migrations")
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _alembic(engine: sa.engine.Engine, step: str, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "tabletop.server:migrations")
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, step)(config, revision)


def test_sequence_numbers_survive_the_move_of_seq_onto_the_action_rows(tmp_path: Path) -> None:
    """A database from before 0003 kept each seat's last seq in the seat row; after the
    upgrade a move's seq rides on its action row, and a seat's last seq is the larger."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    _alembic(engine, "upgrade", "0002")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "insert into rooms values ('r', 'tictactoe', '{}', null, '{}', null, 'online', 0, null, 1.0, 0, null)"
            )
        )
        conn.execute(sa.text("insert into seats values ('r', 'black', 'human', 'hb', 5), ('r', 'white', 'human', 'hw', 9)"))
        conn.execute(sa.text("insert into actions values ('r', 0, 'start', null, null, 1.0)"))
    store = SqlStore(url)  # migrates to the newest revision

    async def scenario() -> None:
        loaded = await store.load("r")
        assert loaded is not None
        assert (loaded.seats["black"].last_seq, loaded.seats["white"].last_seq) == (5, 9)
        await store.append("r", [ActionRecord(1, "play", "black", "b2", 2.0, seat="black", seq=6)])
        await store.append("r", [ActionRecord(2, "play", "white", "a1", 3.0, seat="white", seq=3)])  # older than 9
        await store.append("r", [ActionRecord(3, "undo", "black", None, 4.0)])  # no seq
        loaded = await store.load("r")
        assert loaded is not None
        assert (loaded.seats["black"].last_seq, loaded.seats["white"].last_seq) == (6, 9)
        assert [a.n for a in loaded.actions] == [0, 1, 2, 3]
        await store.close()

    asyncio.run(scenario())
    with engine.connect() as conn:
        seat_column = conn.execute(sa.text("select color, last_seq from seats order by color")).all()
        assert [tuple(r) for r in seat_column] == [("black", 5), ("white", 9)]  # no update per move
    _alembic(engine, "downgrade", "0002")  # folds the log's numbers back into the seat rows
    with engine.connect() as conn:
        seat_column = conn.execute(sa.text("select color, last_seq from seats order by color")).all()
        assert [tuple(r) for r in seat_column] == [("black", 6), ("white", 9)]
        assert "seq" not in {c["name"] for c in sa.inspect(conn).get_columns("actions")}


def test_local_bus_delivers_in_order_to_each_subscriber_of_the_room() -> None:
    async def scenario() -> None:
        bus = LocalBus()
        got: list[tuple[str, Broadcast]] = []
        stop = bus.subscribe("a", lambda b: got.append(("a1", b)))
        bus.subscribe("a", lambda b: got.append(("a2", b)))
        bus.subscribe("b", lambda b: got.append(("b", b)))
        one, two, three = (Broadcast("watchers", [{"type": "watchers", "count": n}]) for n in range(3))
        await bus.publish("a", one)
        await bus.publish("a", two)
        stop()
        await bus.publish("a", three)
        # the objects themselves: nothing is encoded on the way
        assert got == [("a1", one), ("a2", one), ("a1", two), ("a2", two), ("a2", three)]
        assert one.texts == ['{"type":"watchers","count":0}']

    asyncio.run(scenario())


class FakeRedis:
    """Redis pub/sub with pattern subscriptions, in-process (the redis.asyncio API the bus uses)."""

    def __init__(self) -> None:
        self.listeners: list[tuple[str, asyncio.Queue[dict[str, Any]]]] = []

    async def publish(self, channel: str, data: str) -> int:
        n = 0
        for pattern, queue in self.listeners:
            if channel.startswith(pattern.rstrip("*")):
                queue.put_nowait({"type": "pmessage", "pattern": pattern, "channel": channel, "data": data})
                n += 1
        return n

    def pubsub(self) -> FakePubSub:
        return FakePubSub(self)

    async def aclose(self) -> None:
        return None


class FakePubSub:
    def __init__(self, redis: FakeRedis) -> None:
        self.redis = redis
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def psubscribe(self, pattern: str) -> None:
        self.redis.listeners.append((pattern, self.queue))
        self.queue.put_nowait({"type": "psubscribe", "pattern": None, "channel": pattern, "data": 1})

    async def listen(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self.queue.get()

    async def aclose(self) -> None:
        return None


def test_redis_bus_carries_a_rooms_events_between_two_server_processes() -> None:
    async def scenario() -> None:
        redis = FakeRedis()
        one, two = RedisBus(client=redis), RedisBus(client=redis)
        await one.start()
        await two.start()
        got: list[Broadcast] = []
        two.subscribe("room1", got.append)
        two.subscribe("room2", lambda b: got.append(Broadcast("wrong room", [])))
        for version in (3, 4):
            frames = [{"type": "event", "version": version, "event": {"kind": "move_played", "move": "é5"}}]
            await one.publish("room1", Broadcast("events", frames, version))
        for _ in range(50):
            if len(got) == 2:
                break
            await asyncio.sleep(0.01)
        assert [(b.kind, b.version, b.frames[0]["version"]) for b in got] == [("events", 3, 3), ("events", 4, 4)]
        assert got[0].texts == ['{"type":"event","version":3,"event":{"kind":"move_played","move":"é5"}}']
        await one.close()
        await two.close()

    asyncio.run(scenario())


def test_load_benchmark_plays_games_and_reports_latency_memory_and_errors() -> None:
    import json
    import subprocess
    import sys

    tabletop = str(Path(sys.executable).with_name("tabletop"))
    done = subprocess.run(
        [tabletop, "bench", "server", "--games", "3", "--duration", "1.5", "--think", "0.01", "--json"]
        + ["--reference"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 3 and result["errors"] == 0
    assert result["moves"] > 0 and result["moves_per_second"] > 0
    lat = result["latency_ms"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert result["server_peak_mb"] > 10 and result["flood_limit"] == "off"
    # the reference: the same load through a bare relay on the same web stack
    ref = result["reference"]
    assert ref["games"] == 3 and ref["errors"] == 0 and ref["moves"] > 0
    assert 0 < ref["latency_ms"]["p50"] <= ref["latency_ms"]["p99"] <= ref["latency_ms"]["max"]
    assert ref["server_cpu_ms_per_move"] is not None and ref["server_cpu_ms_per_move"] > 0
    assert result["share_of_reference"] == round(result["moves_per_second"] / ref["moves_per_second"], 3)
    bad = subprocess.run(
        [tabletop, "bench", "server", "--games", "0"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "--games" in bad.stderr and "Traceback" not in bad.stderr


def test_any_failure_while_answering_a_frame_is_an_error_frame_and_the_socket_stays_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastapi.testclient import TestClient

    from tabletop.server.app import create_app
    from tabletop.server.room import Room
    from tabletop.server.routers.socket import Connection
    from tabletop.server.settings import Settings

    async def broken_hint(self: Connection, room: Room, seconds: float = 1.0) -> dict[str, Any]:
        raise RuntimeError("the analysis process died")

    monkeypatch.setattr(Connection, "_hint", broken_hint)
    with TestClient(create_app(Settings(workers=1))) as client:
        created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        with client.websocket_connect(f"/api/rooms/{created['room']}/ws") as ws:
            ws.send_json({"type": "hello", "tokens": list(created["tokens"].values())})
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "hint"})
            error = ws.receive_json()
            while error["type"] != "error":
                error = ws.receive_json()
            assert error["code"] == "server_error" and "analysis process died" in error["message"]
            ws.send_json({"type": "move", "move": "b2", "seq": 1})  # the room goes on
            assert ws.receive_json() == {"type": "ack", "seq": 1}
        assert client.get(f"/api/rooms/{created['room']}").json()["moves"] == ["b2"]


def test_room_websocket_is_a_fastapi_route_that_batches_frames_on_request() -> None:
    from fastapi.testclient import TestClient
    from starlette.types import ASGIApp, Receive, Scope, Send

    from tabletop.server.app import create_app
    from tabletop.server.settings import Settings

    routed: list[str] = []

    class Count:
        """Counts the websocket connections that pass FastAPI's middleware stack."""

        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "websocket":
                routed.append(scope["path"])
            await self.app(scope, receive, send)

    app = create_app(Settings(workers=1))
    app.add_middleware(Count)
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        with client.websocket_connect(f"/api/rooms/{created['room']}/ws?batch=1") as ws:
            got: list[dict[str, Any]] = []

            def until(test: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
                while not any(test(f) for f in got):
                    data = ws.receive_json()
                    got.extend(data["frames"] if data["type"] == "batch" else [data])
                return got

            ws.send_json({"type": "hello", "tokens": list(created["tokens"].values())})
            assert until(lambda f: f["type"] == "state")[0]["type"] == "state"
            ws.send_json({"type": "move", "move": "b2", "seq": 1})
            until(lambda f: f.get("event", {}).get("kind") == "turn_changed" and f["version"] == 4)
            kinds = [f["type"] if f["type"] != "event" else f["event"]["kind"] for f in got]
            assert kinds[kinds.index("ack") :] == ["ack", "move_played", "turn_changed"]
        with client.websocket_connect("/api/rooms/nosuchroom/ws") as ws:
            assert ws.receive_json()["code"] == "unknown_room"
        assert client.get(f"/api/rooms/{created['room']}").json()["moves"] == ["b2"]
    assert routed == [f"/api/rooms/{created['room']}/ws", "/api/rooms/nosuchroom/ws"]


def test_queued_frames_go_out_each_alone_or_in_batch_frames_of_at_most_64() -> None:
    from tabletop.server.routers.socket import BATCH_FRAMES, texts

    events = Broadcast("events", [{"n": 1}, {"n": 2}], 2)
    queued: list[Any] = [{"type": "ack", "seq": 1}, events]  # an ack, then a change's two events
    assert texts(queued, False) == ['{"type":"ack","seq":1}', '{"n":1}', '{"n":2}']
    assert texts(queued, True) == ['{"type":"batch","frames":[{"type":"ack","seq":1},{"n":1},{"n":2}]}']
    assert texts([{"n": 1}], True) == ['{"n":1}']
    many = Broadcast("events", [{"n": i} for i in range(BATCH_FRAMES + 1)])
    sent = texts([many], True)
    assert len(sent) == 2 and sent[1] == f'{{"n":{BATCH_FRAMES}}}'
    assert sent[0].count('{"n":') == BATCH_FRAMES


def test_a_connection_that_stops_reading_is_closed_after_what_came_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_QUEUED waiting items nothing more is queued; what came before is sent, then 1013."""
    from types import SimpleNamespace

    from starlette.websockets import WebSocketState

    import tabletop.server.routers.socket as socket_module
    from tabletop.server.profile import NO_CLOCK
    from tabletop.server.settings import Settings

    monkeypatch.setattr(socket_module, "MAX_QUEUED", 3)
    sent: list[str] = []
    closed: list[int] = []

    async def send_text(text: str) -> None:
        sent.append(text)

    async def close(code: int = 1000, reason: str | None = None) -> None:
        closed.append(code)

    websocket = SimpleNamespace(
        query_params={}, application_state=WebSocketState.CONNECTED, send_text=send_text, close=close
    )

    async def scenario() -> None:
        hub = SimpleNamespace(clock=NO_CLOCK)  # all the sending side uses of the hub
        connection = socket_module.Connection(websocket, hub, Settings(), None)  # type: ignore[arg-type]
        for n in range(6):  # nobody sends meanwhile: the client is not reading
            connection.client.send({"n": n})
        assert connection.overflowed
        await asyncio.wait_for(connection._send(), 5)
        assert sent == ['{"n":0}', '{"n":1}', '{"n":2}'] and closed == [1013]

    asyncio.run(scenario())


def test_a_requests_answer_is_written_by_the_reading_task_in_queue_order_with_frames_from_others() -> None:
    """The ack and events of a client's own move go out from the task that read the move (no
    wake-up of the sending task); frames queued by others while a request waits go out first,
    by the sending task, and the order on the socket stays the order of the queue."""
    import json
    from types import SimpleNamespace

    from starlette.websockets import WebSocketState

    from tabletop.server.bus import frame
    from tabletop.server.profile import NO_CLOCK
    from tabletop.server.routers.socket import Connection
    from tabletop.server.settings import Settings

    written: list[tuple[list[Any], asyncio.Task[Any] | None]] = []  # each write's frames, and its task

    async def scenario() -> None:
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        others = asyncio.Event()  # set when the second move has queued its ack and waits

        async def send_text(text: str) -> None:
            data = json.loads(text)
            written.append((data["frames"] if data["type"] == "batch" else [data], asyncio.current_task()))

        class OneRoom:
            id = "r"

            async def move(self, client: Any, text: str, seq: int) -> None:
                client.send(frame("ack", seq=seq))
                if seq == 2:  # this request waits (for the room's lock, say) after its ack
                    others.set()
                    await asyncio.sleep(0.05)
                client.send(Broadcast("events", [frame("event", version=seq, move=text)], seq))

            async def leave(self, client: Any) -> None:
                return None

        websocket = SimpleNamespace(
            query_params={"batch": "1"},
            application_state=WebSocketState.CONNECTED,
            send_text=send_text,
            receive=inbox.get,
        )
        connection = Connection(websocket, SimpleNamespace(clock=NO_CLOCK), Settings(frame_rate=0), OneRoom())  # type: ignore[arg-type]
        connection.client.greeted = True
        reader = asyncio.get_running_loop().create_task(connection.run())
        await asyncio.sleep(0.01)
        await inbox.put({"type": "websocket.receive", "text": '{"type":"move","move":"a1","seq":1}'})
        await asyncio.sleep(0.01)
        assert written == [([frame("ack", seq=1), frame("event", version=1, move="a1")], reader)]
        connection.client.send(frame("watchers", n=1))  # another task's frame, the reader idle
        await asyncio.sleep(0.01)
        assert written[-1][0] == [frame("watchers", n=1)] and written[-1][1] is not reader
        await inbox.put({"type": "websocket.receive", "text": '{"type":"move","move":"b1","seq":2}'})
        await others.wait()
        connection.client.send(frame("watchers", n=2))  # while the reader's request waits
        await asyncio.sleep(0.1)
        await inbox.put({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(reader, 5)
        frames = [f for texts, _ in written for f in texts]
        assert frames == [
            frame("ack", seq=1),
            frame("event", version=1, move="a1"),
            frame("watchers", n=1),
            frame("ack", seq=2),
            frame("watchers", n=2),
            frame("event", version=2, move="b1"),
        ]
        assert written[-1] == ([frame("event", version=2, move="b1")], reader)

    asyncio.run(scenario())


def test_a_following_connection_keeps_no_finished_room_in_memory() -> None:
    """A connection that follows rematches (``follow=1``) holds only its current room: the finished
    ones leave the hub and memory (they load again from the store on demand)."""
    import gc
    import weakref

    from fastapi.testclient import TestClient

    from tabletop.server.app import create_app
    from tabletop.server.rooms import Room
    from tabletop.server.settings import Settings

    with TestClient(create_app(Settings(workers=1))) as client:
        created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        first = created["room"]
        with client.websocket_connect(f"/api/rooms/{first}/ws?follow=1") as ws:

            def until(kind: str) -> dict[str, Any]:
                while True:
                    f = ws.receive_json()
                    if f["type"] == kind or f.get("event", {}).get("kind") == kind:
                        return f

            ws.send_json({"type": "hello", "tokens": list(created["tokens"].values())})
            until("state")
            rooms = [first]
            seq = 0
            for _ in range(3):
                for move in ("a1", "b1", "a2", "b2", "a3"):  # the first player wins on the a-file
                    seq += 1
                    ws.send_json({"type": "move", "move": move, "seq": seq})
                    until("ack")
                until("game_ended")
                ws.send_json({"type": "rematch"})
                rooms.append(until("rematch_started")["event"]["room"])
                until("state")  # greeted in the new room
                seq = 0
            assert client.get("/healthz").json()["rooms"] == 1
            # (rooms of other tests' apps may still be around: count this test's only)
            # Released rooms hold no reference cycle: they go without the cycle collector
            # (which the server runs seldom), then certainly after it.
            for collect in (False, True):
                if collect:
                    gc.collect()
                # a weakref proxy whose object is gone raises on isinstance(): it is no Room
                alive = {r.id for r in gc.get_objects()
                         if not isinstance(r, weakref.ProxyTypes) and isinstance(r, Room) and r.id in rooms}
                assert alive == {rooms[-1]}, f"finished rooms still in memory: {sorted(alive - {rooms[-1]})}"
        for room, rematch in zip(rooms, rooms[1:]):  # loaded again from the store on demand
            data = client.get(f"/api/rooms/{room}").json()
            assert data["moves"] == ["a1", "b1", "a2", "b2", "a3"] and data["rematch"] == rematch


def test_a_rematch_room_and_the_link_from_the_old_room_are_one_commit(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 's.db'}")
    seats = [SeatRecord("black", "human", "h1"), SeatRecord("white", "human", "h2")]

    async def scenario() -> None:
        await store.create_room(_room("old"), seats, [ActionRecord(0, "start", None, None, 1.0)])
        commits = store.commits
        await store.create_room(
            _room("new"), seats, [ActionRecord(0, "start", None, None, 2.0)], rematch_of="old"
        )
        assert store.commits == commits + 1
        old, new = await store.load("old"), await store.load("new")
        assert old is not None and old.room.rematch == "new"
        assert new is not None and new.room.rematch is None and [a.kind for a in new.actions] == ["start"]

    asyncio.run(scenario())
    asyncio.run(store.close())


def test_the_writer_process_commits_reports_conflicts_and_is_restarted_when_it_dies(tmp_path: Path) -> None:
    import os
    import signal

    from tabletop.server.store import WriterGone

    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    other = SqlStore(url)  # a second server process's store, writing the same rooms
    assert store.writer == other.writer == "process"
    assert SqlStore("sqlite://").writer == "thread"  # in-memory: the database exists in this process only
    seats = [SeatRecord("black", "human", "h1"), SeatRecord("white", "human")]

    async def scenario() -> None:
        await store.create_room(_room("r"), seats, [ActionRecord(0, "start", None, None, 1.0)])
        await store.append("r", [ActionRecord(1, "play", "black", "m1", 2.0, seat="black", seq=1)])
        assert await store.take_seat("r", "white", "h2") is True
        assert await store.take_seat("r", "white", "h3") is False  # taken: the result crosses back
        await other.append("r", [ActionRecord(2, "play", "white", "x", 3.0)])
        with pytest.raises(StoreConflict):  # action 2 is the other writer's
            await store.append("r", [ActionRecord(2, "play", "white", "y", 3.0)])
        # the writer dies in the middle of a batch: that batch's callers hear of it
        first = store.writer_pid
        assert first is not None
        os.kill(first, signal.SIGSTOP)
        pending = asyncio.ensure_future(store.append("r", [ActionRecord(3, "play", "black", "z", 4.0)]))
        await asyncio.sleep(0.3)
        assert not pending.done()  # sent, not committed
        os.kill(first, signal.SIGKILL)
        with pytest.raises(WriterGone):  # it may or may not be stored: the room reloads
            await asyncio.wait_for(pending, 10)
        # the next batch starts a new writer process; one that died while idle is replaced too
        await store.append("r", [ActionRecord(3, "play", "black", "z", 4.0, seat="black", seq=8)])
        second = store.writer_pid
        assert second is not None and second != first
        os.kill(second, signal.SIGKILL)
        await asyncio.sleep(0.3)
        await store.append("r", [ActionRecord(4, "play", "white", "w", 5.0, seat="black", seq=9)])
        assert store.writer_pid not in (None, first, second)
        loaded = await store.load("r")
        assert loaded is not None
        assert [(a.n, a.arg) for a in loaded.actions] == [(0, None), (1, "m1"), (2, "x"), (3, "z"), (4, "w")]
        assert loaded.seats["white"].token_hash == "h2" and loaded.seats["black"].last_seq == 9
        assert store.commits >= 5 and store.writes >= 5

    asyncio.run(scenario())
    asyncio.run(store.close())
    asyncio.run(other.close())


def test_the_writer_keeps_one_connection_between_batches_and_replaces_a_broken_one(tmp_path: Path) -> None:
    from tabletop.server.store import _Append, _Committer, _Create, _engine, actions_table, upgrade

    engine = _engine(f"sqlite:///{tmp_path / 's.db'}", "FULL")
    upgrade(engine)
    opened: list[Any] = []  # the DBAPI connection of each checkout from the pool
    sa.event.listen(engine, "checkout", lambda dbapi, _record, _proxy: opened.append(dbapi))
    committer = _Committer(engine, hold=True)
    seats = [SeatRecord("black", "human", "h1"), SeatRecord("white", "human")]
    assert committer.commit([_Create(_room("r"), seats, [ActionRecord(0, "start", None, None, 1.0)], None)]) == [
        (None, None)
    ]
    for n in range(1, 4):
        assert committer.commit([_Append("r", [ActionRecord(n, "play", "black", f"m{n}", 2.0)], False)]) == [
            (None, None)
        ]
    assert len(opened) == 1 and committer.commits == 4  # one connection for every batch
    opened[0].close()  # the connection breaks under the committer (a database restarted, say)
    assert committer.commit([_Append("r", [ActionRecord(4, "play", "white", "m4", 3.0)], False)]) == [(None, None)]
    assert len(opened) == 2
    committer.close()
    with engine.connect() as conn:
        stored = conn.execute(sa.select(actions_table.c.n).where(actions_table.c.room_id == "r").order_by("n"))
        assert [n for (n,) in stored] == [0, 1, 2, 3, 4]
    engine.dispose()


def test_the_benchmarks_websocket_client_sends_receives_and_sees_the_end() -> None:
    from websockets.asyncio.server import serve

    from tabletop.bench.wsclient import Closed, connect

    async def echo_twice_then_close(ws: Any) -> None:
        for _ in range(2):
            text = await ws.recv()
            await ws.send(f"echo {text}")
        await ws.close()

    async def scenario() -> None:
        async with serve(echo_twice_then_close, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            sock = await connect(f"ws://127.0.0.1:{port}/any?x=1")
            await sock.send("é1")  # text frames, UTF-8 both ways
            await sock.send("2")
            got = [text async for text in sock]  # ends when the server closes
            assert got == ["echo é1", "echo 2"]
            with pytest.raises(Closed):
                await sock.send("3")
        with pytest.raises(OSError):  # nobody listens there now
            await connect(f"ws://127.0.0.1:{port}/any")

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("field", "value"),
    [("seq", "7"), ("seq", True), ("seq", 7.5), ("seq", -1), ("accept", "yes"), ("since", "0")],
)
def test_frame_numbers_and_answers_are_taken_only_as_json_numbers_and_booleans(
    field: str, value: Any
) -> None:
    from fastapi.testclient import TestClient

    from tabletop.server.app import create_app
    from tabletop.server.settings import Settings

    with TestClient(create_app(Settings(workers=1))) as client:
        created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        with client.websocket_connect(f"/api/rooms/{created['room']}/ws") as ws:

            def answer() -> dict[str, Any]:
                got: dict[str, Any] = ws.receive_json()
                while got["type"] not in ("state", "error", "ack"):
                    got = ws.receive_json()  # presence and events
                return got

            hello: dict[str, Any] = {"type": "hello", "tokens": list(created["tokens"].values())}
            if field == "since":
                ws.send_json({**hello, "since": value})
                error = answer()
                assert error["type"] == "error" and error["code"] == "bad_frame", error
                assert error["message"].startswith("hello.since:")
                ws.send_json(hello)
            else:
                ws.send_json(hello)
            assert answer()["type"] == "state"
            ws.send_json({"type": "move", "move": "b2", field: value} if field == "seq" else {"type": "draw", field: value})
            error = answer()
            assert error["type"] == "error" and error["code"] == "bad_frame", error
            assert field in error["message"]
            if field == "seq" and (isinstance(value, bool) or not isinstance(value, int)):
                assert error["seq"] is None  # a seq that is not an integer is not echoed as one
            ws.send_json({"type": "move", "move": "a1", "seq": 1})
            assert answer() == {"type": "ack", "seq": 1}
        assert client.get(f"/api/rooms/{created['room']}").json()["moves"] == ["a1"]


def test_a_channel_feed_sends_its_opening_then_the_channel_and_closes_a_socket_that_stops_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lobby's and the tournaments' sockets: broadcasts published before the opening frame is
    read are sent after it; past MAX_QUEUED waiting broadcasts nothing more is queued, what came
    before is sent, then the socket is closed with 1013; the feed unsubscribes when the client leaves."""
    from types import SimpleNamespace

    from starlette.websockets import WebSocketDisconnect

    import tabletop.server.routers.feed as feed_module
    from tabletop.server.bus import Broadcast, LocalBus

    monkeypatch.setattr(feed_module, "MAX_QUEUED", 3)
    sent: list[str] = []
    closed: list[int] = []
    leave = asyncio.Event()

    async def send_text(text: str) -> None:
        sent.append(text)

    async def close(code: int = 1000, reason: str | None = None) -> None:
        closed.append(code)
        leave.set()

    async def receive_text() -> str:
        await leave.wait()
        raise WebSocketDisconnect(1000)

    websocket = SimpleNamespace(send_text=send_text, close=close, receive_text=receive_text)

    async def scenario() -> None:
        bus = LocalBus()
        feed = feed_module.ChannelFeed(bus, "c")
        for n in range(6):  # published while the opening is read: nobody sends yet
            await bus.publish("c", Broadcast("n", [{"n": n}]))
        await bus.publish("other", Broadcast("n", [{"n": 99}]))
        assert feed.overflowed

        async def opening() -> str:
            return '{"type":"first"}'

        await asyncio.wait_for(feed.relay(websocket, opening), 5)  # type: ignore[arg-type]
        assert sent == ['{"type":"first"}', '{"n":0}', '{"n":1}', '{"n":2}'] and closed == [1013]
        await bus.publish("c", Broadcast("n", [{"n": 7}]))  # unsubscribed: nothing more is queued
        assert feed.queue.qsize() == 0

    asyncio.run(scenario())
