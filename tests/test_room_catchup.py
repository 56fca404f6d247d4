"""Rooms shared by server processes catch up with what the others committed, and tell their sockets.

Two :class:`RoomHub`s stand for two server processes: one store (the shared
database) and one in-process bus that delivers every publication to every
subscriber, as Redis pub/sub does.  A hub whose publications are muted stands
for a process killed between its commit and its publication.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tabletop.server.bus import Broadcast, LocalBus
from tabletop.server.errors import RoomError
from tabletop.server.rooms import RoomHub
from tabletop.server.seats import Client, Outgoing
from tabletop.server.store import SqlStore, StoredRoom
from tabletop.server.workers import Pool

Frame = dict[str, Any]


class MutableBus:
    """A process's view of the shared bus; ``muted``: its publications never leave it."""

    def __init__(self, shared: LocalBus) -> None:
        self.shared = shared
        self.muted = False

    async def publish(self, room_id: str, broadcast: Broadcast) -> None:
        if not self.muted:
            await self.shared.publish(room_id, broadcast)

    def subscribe(self, room_id: str, handler: Callable[[Broadcast], None]) -> Callable[[], None]:
        return self.shared.subscribe(room_id, handler)

    async def close(self) -> None:
        return None


class Player:
    """A connection's client, keeping every frame it was sent."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.client = Client(self._send)

    def _send(self, item: Outgoing) -> None:
        self.frames.extend(item.frames if isinstance(item, Broadcast) else [item])

    def versions(self) -> list[int]:
        return [f["version"] for f in self.frames if f["type"] == "event" and "version" in f]

    def moves(self) -> list[str]:
        return [
            f["event"]["move"]
            for f in self.frames
            if f["type"] == "event" and f["event"]["kind"] == "move_played"
        ]

    def acks(self) -> list[Frame]:
        return [f for f in self.frames if f["type"] == "ack"]


class Processes:
    def __init__(self, store: SqlStore, bus: LocalBus, pool: Pool) -> None:
        self.store = store
        self.buses = [MutableBus(bus), MutableBus(bus)]
        self.hubs = [RoomHub(store, b, pool, shared=True) for b in self.buses]


@contextlib.asynccontextmanager
async def processes() -> AsyncIterator[Processes]:
    store = SqlStore("sqlite://")
    pool = Pool(1)
    made = Processes(store, LocalBus(), pool)
    try:
        yield made
    finally:
        for hub in made.hubs:  # their catch-up tasks end before the store they read goes
            await hub.close()
        await store.close()
        pool.close()


async def _game(processes: Processes) -> tuple[str, dict[str, str]]:
    one = processes.hubs[0]
    room, tokens, invite = await one.create(
        game="gomoku",
        options={},
        position=None,
        seats={},
        clock=None,
        mode="online",
        as_="black",
        listed=False,
    )
    _, white = await one.join(room.id, invite)
    return room.id, {"black": tokens["black"], "white": white}


async def _connect(hub: RoomHub, room_id: str, token: str, since: int | None = None) -> Player:
    room = await hub.get(room_id)
    assert room is not None
    player = Player()
    assert await room.greet(player.client, [token], since) == []
    return player


def _stored_moves(stored: StoredRoom | None) -> list[str]:
    assert stored is not None
    return [str(a.arg) for a in stored.actions if a.kind == "play"]


def test_a_move_committed_but_never_published_reaches_the_other_processs_sockets_in_order() -> None:
    asyncio.run(_unpublished_move())


async def _unpublished_move() -> None:
    async with processes() as two:
        one, other = two.hubs
        room_id, tokens = await _game(two)
        watcher = await _connect(other, room_id, tokens["white"])  # white's tab on the other process
        mover = await _connect(one, room_id, tokens["black"])
        room_one = await one.get(room_id)
        assert room_one is not None
        await room_one.move(mover.client, "h8", 1)
        # the first process commits h9 and dies before publishing it
        two.buses[0].muted = True
        white_one = await _connect(one, room_id, tokens["white"])
        await room_one.move(white_one.client, "a1", 1)
        await room_one.move(mover.client, "h9", 2)
        room_other = await other.get(room_id)
        assert room_other is not None
        assert room_other.match.version < room_one.match.version  # nothing told the other process
        # white plays on the other process: it finds the room changed, catches up and tells its sockets
        with pytest.raises(RoomError) as refused:
            await room_other.move(watcher.client, "a2", 2)
        assert refused.value.code == "stale_room"
        assert watcher.moves() == ["h8", "a1", "h9"]  # a1 was white's own move from its other tab
        await room_other.move(watcher.client, "a2", 2)
        assert watcher.acks()[-1] == {"type": "ack", "seq": 2}
        assert watcher.moves() == ["h8", "a1", "h9", "a2"]
        versions = watcher.versions()
        assert versions == list(range(versions[0], versions[-1] + 1))  # each event once, in order
        assert _stored_moves(await two.store.load(room_id)) == ["h8", "a1", "h9", "a2"]


def test_a_resend_after_the_kill_gets_its_duplicate_ack_on_the_other_process() -> None:
    asyncio.run(_resend_after_kill())


async def _resend_after_kill() -> None:
    async with processes() as two:
        one, other = two.hubs
        room_id, tokens = await _game(two)
        assert await other.get(room_id) is not None  # the other process holds the room and follows the bus
        black, white = (
            await _connect(one, room_id, tokens["black"]),
            await _connect(one, room_id, tokens["white"]),
        )
        room_one = await one.get(room_id)
        assert room_one is not None
        for player, move, seq in ((black, "h8", 1), (white, "a1", 1), (black, "h9", 2), (white, "a2", 2)):
            await room_one.move(player.client, move, seq)
        two.buses[0].muted = True
        await room_one.move(black.client, "h10", 3)  # committed; its ack and events never leave the process
        seen = max(black.versions())
        # black comes back on the other process with the version it saw, and sends h10 again
        again = await _connect(other, room_id, tokens["black"], since=seen)
        room_other = await other.get(room_id)
        assert room_other is not None
        await room_other.move(again.client, "h10", 3)
        assert again.acks() == [{"type": "ack", "seq": 3, "duplicate": True}]
        # black sees h10 once: either on the first process (its own catch-up round may send it
        # there before the kill) or with the hello on the other, as one of the missed events
        assert black.moves().count("h10") + again.moves().count("h10") == 1
        assert again.moves() == (["h10"] if "h10" not in black.moves() else [])
        assert _stored_moves(await two.store.load(room_id)) == ["h8", "a1", "h9", "a2", "h10"]


def test_broadcasts_that_arrive_while_the_room_reloads_are_caught_up_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asyncio.run(_broadcasts_during_reload(monkeypatch))


async def _broadcasts_during_reload(monkeypatch: pytest.MonkeyPatch) -> None:
    async with processes() as two:
        one, other = two.hubs
        room_id, tokens = await _game(two)
        watcher = await _connect(other, room_id, tokens["white"])
        black, white = (
            await _connect(one, room_id, tokens["black"]),
            await _connect(one, room_id, tokens["white"]),
        )
        room_one, room_other = await one.get(room_id), await other.get(room_id)
        assert room_one is not None and room_other is not None
        read = two.store.load
        loaded = asyncio.Event()
        go_on = asyncio.Event()

        async def slow_load(room: str) -> StoredRoom | None:
            stored = await read(room)
            loaded.set()
            await go_on.wait()  # the next move commits and is published after this read
            return stored

        monkeypatch.setattr(two.store, "load", slow_load)
        two.buses[0].muted = True
        await room_one.move(black.client, "h8", 1)
        two.buses[0].muted = False
        # h8's publication was lost; a1's announces a newer version and starts a catch-up
        await room_one.move(white.client, "a1", 1)
        await loaded.wait()
        loaded.clear()
        await room_one.move(black.client, "h9", 2)  # published while the catch-up's read is done
        monkeypatch.setattr(two.store, "load", read)
        go_on.set()
        for _ in range(200):
            if room_other.match.version == room_one.match.version and not room_other.catch_up.running:
                break
            await asyncio.sleep(0.01)
        assert room_other.match.version == room_one.match.version
        assert [str(m) for m in room_other.match.board.move_stack] == ["h8", "a1", "h9"]
        assert watcher.moves() == ["h8", "a1", "h9"]
        versions = watcher.versions()
        assert versions == list(range(versions[0], versions[-1] + 1))
        # and the process that caught up plays on without a refusal
        await room_other.move(watcher.client, "a2", 2)
        assert watcher.acks() == [{"type": "ack", "seq": 2}]


def test_a_client_is_sent_each_event_once_in_order_whichever_way_it_comes() -> None:
    player = Player()
    player.client.version = 3

    def events(*versions: int) -> Broadcast:
        frames = [{"type": "event", "version": v, "event": {"kind": "k"}} for v in versions]
        return Broadcast("events", frames, versions[-1])

    player.client.deliver(events(2, 3))  # held already
    player.client.deliver(events(6))  # 4 and 5 missing: left for the catch-up
    player.client.deliver(events(3, 4, 5))  # partly held
    player.client.deliver(events(6, 7))
    player.client.deliver(Broadcast("watchers", [{"type": "watchers", "count": 0}]))
    assert player.versions() == [4, 5, 6, 7]
    assert player.client.version == 7
    assert player.frames[-1]["type"] == "watchers"
