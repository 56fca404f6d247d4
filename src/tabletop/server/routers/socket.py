"""The room socket, ``WS /api/rooms/{id}/ws``: a FastAPI websocket endpoint.

It reads the client's frames, refuses the ones that are too large, too many or
malformed, and turns each into a room request (:class:`~tabletop.server.room.Room`).
What the room sends back (its own frames for this client and the room's
broadcasts) waits in an outbox (a deque) for one sending task, which
writes everything queued since it last ran: each frame alone, or with
``?batch=1`` up to :data:`BATCH_FRAMES` of them in one
``{"type":"batch","frames":[...]}`` frame.  What a client's own request queues
(a move's ack and events) is written by the reading task once the request is
answered, when the sending task is idle: one task wake-up a move less, in the
same order.  With ``?follow=1`` a rematch moves the connection into the new room.

A client that stops reading must not grow the server's memory without end:
past :data:`MAX_QUEUED` waiting items the connection takes nothing more and is
closed (code 1013) once what came before is sent; the client comes back with
``since``.

This module holds no game rule and no SQL; the wire protocol is docs/wire.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from tabletop.server.bus import Broadcast, encode_frame, frame
from tabletop.server.errors import RoomError
from tabletop.server.models import ChatFrame, ChooseFrame, Hello, MoveFrame, SimpleFrame, client_frame
from tabletop.server.room import Room
from tabletop.server.rooms import RoomHub
from tabletop.server.routers.accounts import COOKIE, accounts_of
from tabletop.server.seats import Client, Outgoing
from tabletop.server.settings import Settings
from tabletop.server.workers import AnalysisUnavailable, WorkerDied, analyse_job

__all__ = ["BATCH_FRAMES", "MAX_QUEUED", "Connection", "router", "texts"]

log = logging.getLogger("tabletop.server")

router = APIRouter()

MAX_QUEUED = 5000  # items waiting to be sent before a connection counts as not reading
BATCH_FRAMES = 64  # at most this many frames in one batch frame


@router.websocket("/api/rooms/{room_id}/ws")
async def room_socket(websocket: WebSocket, room_id: str) -> None:
    """A client's connection to a room (docs/wire.md)."""
    hub: RoomHub = websocket.app.state.hub
    settings: Settings = websocket.app.state.settings
    await websocket.accept()
    room = await hub.get(room_id) if len(room_id) <= 32 else None
    if room is None:
        await websocket.send_text(
            encode_frame(frame("error", code="unknown_room", message=f"there is no room {room_id!r}"))
        )
        await websocket.close(code=4404)
        return
    connection = Connection(websocket, hub, settings, room)
    del room  # a following connection outlives its first room: rooms are held only by the connection
    # The connection runs in a task of its own: each frame then wakes only this module's
    # coroutines, not the whole stack of middleware and routing awaiting this endpoint.
    await asyncio.get_running_loop().create_task(connection.run())


def texts(items: list[Outgoing], batch: bool) -> list[str]:
    """The texts to send for the queued ``items``: each frame alone, or with
    ``batch`` up to :data:`BATCH_FRAMES` of them in one batch frame (each frame's
    text is embedded as it is: nothing is encoded twice)."""
    frames: list[str] = []
    for item in items:
        if isinstance(item, Broadcast):
            frames.extend(item.texts)
        else:
            frames.append(encode_frame(item))
    if not batch or len(frames) == 1:
        return frames
    out = []
    for i in range(0, len(frames), BATCH_FRAMES):
        part = frames[i : i + BATCH_FRAMES]
        out.append(part[0] if len(part) == 1 else '{"type":"batch","frames":[' + ",".join(part) + "]}")
    return out


class Connection:
    """One room socket: the room it is in, its :class:`Client`, and its queue of outgoing frames."""

    def __init__(self, websocket: WebSocket, hub: RoomHub, settings: Settings, room: Room) -> None:
        self.websocket = websocket
        self.hub = hub
        self.settings = settings
        self.room = room  # the current room: a following connection moves on to each rematch
        params = websocket.query_params
        self.batch = params.get("batch") == "1"
        self.outbox: deque[Outgoing] = deque()
        # the sending task's wake-up while the outbox is empty: a future of the connection's
        # loop, made without asking asyncio for the running loop (a getpid() call in 3.11)
        self._loop = asyncio.get_running_loop()
        self._wake: asyncio.Future[None] | None = None
        # the reading task, while it answers a request: what it queues meanwhile waits for it
        # (it writes that itself once done, _write_own); _flushing: that write is under way
        self._reader: asyncio.Task[Any] | None = None
        self._answering = False
        self._flushing = False
        self.overflowed = False
        self.client = Client(self.put, self.follow if params.get("follow") == "1" else None)
        self.switching: list[asyncio.Task[None]] = []
        # cleared while moving into a rematch room: the notice goes out with the new room's state
        self.settled = asyncio.Event()
        self.settled.set()
        self._recent: deque[float] = deque()  # arrival times of the last second's frames
        self._account_name: str | None = None  # the signed-in name ("" for none), read at the first chat

    def put(self, item: Outgoing) -> None:
        """Queue a frame for the socket (nothing more once it overflowed)."""
        if self.overflowed:
            return
        if len(self.outbox) >= MAX_QUEUED:
            self.overflowed = True
            item = _CLOSE
        self.outbox.append(item)
        if self._wake is None or self._flushing:
            return  # the sending task is busy (it sends this next), or the reader is writing
        if self._answering and asyncio.current_task(self._loop) is self._reader:
            return  # the reader's own request: it writes this when the request is answered
        self._wake_sender()

    def _wake_sender(self) -> None:
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def run(self) -> None:
        sender = self._loop.create_task(self._send())
        self._reader = asyncio.current_task(self._loop)
        clock = self.hub.clock  # CPU by part (--profile): the wait for a frame is the loop's
        try:
            while True:
                clock.enter("loop")
                message = await self.websocket.receive()
                clock.enter("parse")
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                refusal = self._refusal(text)
                if refusal is not None:
                    self.client.send(refusal)
                elif text is not None:
                    self._answering = True
                    try:
                        await self._handle(text)
                    finally:
                        self._answering = False
                    if self.outbox:
                        await self._write_own()
            clock.enter("loop")
        except WebSocketDisconnect:
            pass
        finally:
            for task in self.switching:
                if not task.done():
                    with contextlib.suppress(Exception):
                        await task
            await self.room.leave(self.client)
            sender.cancel()

    def _refusal(self, text: str | None) -> dict[str, Any] | None:
        """The error frame for a frame that is not read at all (not text, too large, too many)."""
        if text is None:
            return frame("error", code="bad_frame", message="frames are JSON text", seq=None)
        limit = self.settings.frame_bytes
        # a character is at most 4 bytes of UTF-8: most frames need no encoding to be measured
        if len(text) * 4 > limit and len(text.encode()) > limit:
            return frame(
                "error", code="frame_too_large", message=f"frames are at most {limit} bytes", seq=None
            )
        rate = self.settings.frame_rate
        if rate > 0:
            now = time.monotonic()
            recent = self._recent
            while recent and now - recent[0] >= 1.0:
                recent.popleft()
            if len(recent) >= rate:
                return frame(
                    "error",
                    code="rate_limited",
                    message=f"at most {rate:g} frames a second",
                    seq=_seq_of(text),
                )
            recent.append(now)
        return None

    async def _write_own(self) -> None:
        """Write what is queued once the reader has answered a request, if the sending task is
        idle (waiting for frames) and nothing holds the connection back (a move into a rematch
        room, an overflow); otherwise wake the sending task for it.  Frames queued by others
        while this writes wait for it, so the order stays the queue's."""
        if not self.outbox or self._wake is None:
            return  # nothing to send, or the sending task is busy and sends it next
        if self.overflowed or not self.settled.is_set():
            self._wake_sender()
            return
        websocket, outbox, clock = self.websocket, self.outbox, self.hub.clock
        resume = clock.enter("frames")
        self._flushing = True
        try:
            items = list(outbox)
            outbox.clear()
            if websocket.application_state == WebSocketState.CONNECTED:
                for text in texts(items, self.batch):
                    await websocket.send_text(text)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the socket closed: the next receive ends the session
        finally:
            self._flushing = False
            clock.enter(resume)
        if outbox:
            self._wake_sender()  # queued while this wrote

    async def _send(self) -> None:
        """Send what is queued, in order, until the socket closes (or overflowed: close it)."""
        websocket, outbox, clock = self.websocket, self.outbox, self.hub.clock
        try:
            while True:
                clock.enter("loop")
                if not outbox:
                    self._wake = self._loop.create_future()
                    await self._wake
                if not self.settled.is_set():
                    await self.settled.wait()
                clock.enter("frames")
                items = list(outbox)
                outbox.clear()
                closing = items[-1] is _CLOSE
                if closing:
                    items.pop()
                if websocket.application_state != WebSocketState.CONNECTED:
                    return
                for text in texts(items, self.batch):
                    await websocket.send_text(text)
                if closing:
                    await websocket.close(code=1013, reason="too many unread frames; reconnect with since")
                    return
        except (WebSocketDisconnect, RuntimeError, OSError):
            return  # the socket closed: the reading side ends the session

    # -- requests -----------------------------------------------------------------------------------
    async def _handle(self, text: str) -> None:
        client = self.client
        try:
            parsed = client_frame.validate_json(text)
        except ValidationError as exc:
            errors = exc.errors()
            where = ".".join(str(p) for p in errors[0]["loc"]) if errors else "frame"
            why = errors[0]["msg"] if errors else "invalid"
            client.send(
                frame("error", code="bad_frame", message=f"{where or 'frame'}: {why}", seq=_seq_of(text))
            )
            return
        seq = parsed.seq if isinstance(parsed, MoveFrame) else None
        self.hub.clock.enter("room")
        try:
            await self._dispatch(parsed)
        except RoomError as exc:
            client.send(frame("error", code=exc.code, message=str(exc), seq=seq))
        except Exception as exc:  # noqa: BLE001 - any failure answers the frame; the socket stays open
            log.exception("room %s: a %s frame failed", self.room.id, parsed.type)
            message = f"the {parsed.type} request failed: {exc}"
            client.send(frame("error", code="server_error", message=message, seq=seq))

    async def _dispatch(self, parsed: Any) -> None:
        """Run one checked frame as a request of the current room."""
        room, client = self.room, self.client
        if isinstance(parsed, Hello):
            if client.greeted:
                raise RoomError("bad_frame", "hello was already sent on this connection")
            tokens = list(parsed.tokens or []) + ([parsed.token] if parsed.token else [])
            await self._greet(room, tokens, parsed.since)
            return
        if not client.greeted:
            raise RoomError("no_hello", "send hello first")
        if isinstance(parsed, MoveFrame):
            await room.move(client, parsed.move, parsed.seq)
        elif isinstance(parsed, ChooseFrame):
            await room.request(client, "choose", parsed.choice)
        elif isinstance(parsed, ChatFrame):
            await room.say(client, parsed.text, parsed.guest, await self._account())
        elif isinstance(parsed, SimpleFrame) and parsed.type == "ping":
            client.send(frame("pong"))
        elif isinstance(parsed, SimpleFrame) and parsed.type == "hint":
            room.speaker(client)
            client.send(frame("hint", analysis=await self._hint(room)))
        elif isinstance(parsed, SimpleFrame) and parsed.type == "rematch":
            await room.rematch(client)
        else:
            await room.request(client, parsed.type, getattr(parsed, "accept", None))

    async def _account(self) -> str | None:
        """The name of the player signed in on this connection's browser, if any (read once)."""
        if self._account_name is None:
            token = self.websocket.cookies.get(COOKIE)
            try:
                player = None if token is None else await accounts_of(self.websocket.app, self.hub).session(token)
            except RoomError:
                player = None  # a server without accounts
            self._account_name = "" if player is None else player.name
        return self._account_name or None

    async def _hint(self, room: Room, seconds: float = 1.0) -> dict[str, Any]:
        """The engine's analysis of the room's position, searched in the process pool."""
        r = room.record
        moves = [str(x) for x in room.match.board.move_stack]
        try:
            result: dict[str, Any] = await self.hub.pool.run(
                analyse_job, r.game, r.options, r.position, moves, seconds, label=f"room {room.id}: a hint"
            )
        except AnalysisUnavailable as exc:
            raise RoomError("no_analysis", str(exc), 422) from None
        except WorkerDied as exc:
            raise RoomError("engine_failed", f"the hint failed: {exc}", 503) from None
        return result

    async def _greet(self, room: Room, tokens: list[str], since: int | None) -> None:
        if await room.greet(self.client, tokens, since):
            self.client.send(
                frame("error", code="bad_token", message="a seat token is not valid for this room", seq=None)
            )

    # -- following rematches ----------------------------------------------------------------------------
    def follow(self, new_id: str) -> None:
        """The room's rematch started: move this connection into it (``?follow=1``)."""
        self.switching[:] = [t for t in self.switching if not t.done()]
        self.settled.clear()
        self.switching.append(self.hub.spawn(self._switch(new_id)))

    async def _switch(self, new_id: str) -> None:
        """Leave the finished room and greet the rematch room with the same tokens (colours swapped)."""
        try:
            new = await self.hub.get(new_id)
            if new is None or new is self.room:
                return
            tokens = list(self.client.tokens.values())
            await self.room.leave(self.client)
            self.client.tokens = {}
            self.room = new
            await self._greet(new, tokens, None)
        finally:
            self.settled.set()


_CLOSE: Any = frame("close")  # queued after the last frame an overflowed connection sends


def _seq_of(text: str) -> int | None:
    """The seq of a refused frame, if it has a readable one (so the client can match the error)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # nesting deeper than json's recursion limit is a bad frame too
        return None
    seq = data.get("seq") if isinstance(data, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None
