"""The FastAPI application: REST routes for rooms, the room websocket, the web app's files.

:func:`create_app` wires a :class:`~.rooms.RoomHub` to a store, a bus and a
process pool chosen by :class:`~.settings.Settings`.  This module checks and
translates (HTTP and websocket frames to room requests, room errors to error
frames and HTTP errors); it holds no game rule and no SQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.datastructures import QueryParams
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect, WebSocketState

from tabletop.server.bus import make_bus
from tabletop.server.models import (
    AnalyseRequest,
    ChooseFrame,
    CreatedRoom,
    CreateRoom,
    Hello,
    Joined,
    JoinRoom,
    MoveFrame,
    SimpleFrame,
    client_frame,
)
from tabletop.server.records import record_text
from tabletop.server.rooms import Client, Room, RoomError, RoomHub, frame
from tabletop.server.security import secure
from tabletop.server.settings import Settings
from tabletop.server.store import SqlStore
from tabletop.server.workers import AnalysisUnavailable, Pool, analyse_job, evaluate_job
from tabletop.server.wsdirect import EXTENSION, DirectSend

__all__ = ["create_app"]

log = logging.getLogger("tabletop.server")

WEB = Path(__file__).with_name("web")
EXTERNAL_ENGINES = ("gomocup:", "nboard:")
MAX_QUEUED = 5000
BATCH_FRAMES = 64  # at most this many frames in one batch frame


class Outbox:
    """The frames waiting for one socket, in order (an item may be several
    frames, a line each: a change's events come from the bus as one payload).

    Two ways out.  With a :class:`~.wsdirect.DirectSend` (the room socket on
    ``tabletop serve``), frames put during one turn of the event loop are
    written together by one callback at its end, straight on the connection.
    Otherwise one sending task takes them (:meth:`take`, :func:`_pump`): a list
    and one waiter future, so the sender wakes once for everything queued since
    it last ran.  With ``batch`` the frames that go together are one
    ``{"type":"batch","frames":[...]}`` frame.

    A client that stops reading must not grow the server's memory without end:
    past ``limit`` frames the outbox is *overflowed*, takes nothing more, and
    ``on_overflow`` closes the socket once the frames before are sent (the
    client comes back with ``since``).  While *held* (a connection moving into its rematch room)
    frames wait, so the notice and the new room's state go out together."""

    def __init__(
        self,
        limit: int = MAX_QUEUED,
        *,
        direct: DirectSend | None = None,
        batch: bool = False,
        on_overflow: Callable[[], None] = lambda: None,
    ) -> None:
        self.frames: list[str] = []
        self.limit = limit
        self.overflowed = False
        self.held = False
        self.batch = batch
        self.direct = direct
        self.on_overflow = on_overflow
        self._waiter: asyncio.Future[None] | None = None
        self._scheduled = False
        # made on the running loop; asking for it per frame costs CPython 3.11 a getpid() call
        self._loop = asyncio.get_running_loop()
        if direct is not None:
            direct.on_writable = self._wake

    def hold(self, held: bool) -> None:
        self.held = held
        if not held and (self.frames or self.overflowed):
            self._wake()

    def put(self, payload: str) -> None:
        if self.overflowed:
            return
        if len(self.frames) >= self.limit:
            self.overflowed = True
        else:
            self.frames.append(payload)
        if not self.held:
            self._wake()

    def _wake(self) -> None:
        if self.direct is not None:
            if not self._scheduled:
                self._scheduled = True
                self._loop.call_soon(self._flush)
            return
        waiter = self._waiter
        if waiter is not None and not waiter.done() and not self.held:
            waiter.set_result(None)

    def _flush(self) -> None:
        """Write what waits (direct only); a full transport calls again when it drains."""
        self._scheduled = False
        direct = self.direct
        if self.held or direct is None:
            return
        if not direct.open():
            self.frames = []
            return
        if self.frames and direct.ready():
            frames, self.frames = self.frames, []
            for payload in payloads(frames, self.batch):
                direct.write(payload)
        self.sent()

    def sent(self) -> None:
        """Called once what was taken is sent: after an overflow, with nothing
        left to send, the socket is closed (``on_overflow``, once)."""
        if self.overflowed and not self.frames:
            overflow, self.on_overflow = self.on_overflow, lambda: None
            overflow()

    async def take(self) -> list[str]:
        """Everything queued (waits for at least one frame, or the overflow, and for no hold)."""
        while not self.overflowed and (self.held or not self.frames):
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        frames, self.frames = self.frames, []
        return frames


def payloads(queued: list[str], batch: bool) -> list[str]:
    """The texts to send for what was ``queued`` (each item one frame, or several
    joined by newlines as the bus carries a change's events): each frame alone,
    or with ``batch`` up to :data:`BATCH_FRAMES` of them in one batch frame (each
    frame's text is embedded as it is: nothing is encoded again)."""
    frames = queued if len(queued) == 1 and "\n" not in queued[0] else "\n".join(queued).split("\n")
    if not batch or len(frames) == 1:
        return frames
    out = []
    for i in range(0, len(frames), BATCH_FRAMES):
        part = frames[i : i + BATCH_FRAMES]
        out.append(part[0] if len(part) == 1 else '{"type":"batch","frames":[' + ",".join(part) + "]}")
    return out


ROOM_SOCKET = re.compile(r"/api/rooms/([^/]+)/ws")


class Socket(Protocol):
    """What the room websocket handler uses: Starlette's ``WebSocket`` or :class:`RawSocket`."""

    @property
    def query_params(self) -> QueryParams: ...

    @property
    def application_state(self) -> WebSocketState: ...

    async def accept(self) -> None: ...

    def receive(self) -> Awaitable[Any]: ...

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class RawSocket:
    """The room websocket straight on ASGI: each frame goes to the server's
    protocol without passing Starlette's middleware, routing and state checks."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.receive = receive  # the server's own callable: no coroutine of ours around each frame
        self._send = send
        self.query_params = QueryParams(scope.get("query_string", b"").decode("latin-1"))
        self.application_state = WebSocketState.CONNECTING
        # tabletop serve's protocol: frames written at once, without the ASGI send
        self.direct: DirectSend | None = (scope.get("extensions") or {}).get(EXTENSION)

    async def accept(self) -> None:
        message = await self.receive()
        if message["type"] != "websocket.connect":
            raise WebSocketDisconnect(1006)
        await self._send({"type": "websocket.accept"})
        self.application_state = WebSocketState.CONNECTED

    async def send_text(self, data: str) -> None:
        await self._send({"type": "websocket.send", "text": data})

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.application_state != WebSocketState.DISCONNECTED:
            self.application_state = WebSocketState.DISCONNECTED
            await self._send({"type": "websocket.close", "code": code, "reason": reason or ""})


class App(FastAPI):
    """FastAPI, except that the room websocket (``/api/rooms/{id}/ws``) is served
    by :attr:`room_socket` directly on ASGI (the per-frame cost of the middleware
    stack is most of a websocket's cost in Python)."""

    room_socket: Callable[[Socket, str], Awaitable[None]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.room_socket is not None:
            found = ROOM_SOCKET.fullmatch(scope.get("path", ""))
            if found is not None:
                await self.room_socket(RawSocket(scope, receive, send), found.group(1))
                return
        await super().__call__(scope, receive, send)


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "detail": message}, status_code=status)


def create_app(settings: Settings | None = None) -> App:
    """The server application for ``settings`` (an in-memory SQLite database by default)."""
    settings = settings or Settings()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = SqlStore(
            settings.database, sqlite_synchronous=settings.sqlite_synchronous, writer=settings.store_writer
        )
        bus = await make_bus(settings.redis)
        pool = Pool(settings.workers)
        hub = RoomHub(store, bus, pool, replay_limit=settings.replay_limit, shared=settings.redis is not None)
        state["hub"] = hub
        state["evaluations"] = {}
        await hub.resume()
        try:
            yield
        finally:
            await hub.close()
            pool.close()
            await bus.close()
            await store.close()

    app = App(
        title="tabletop",
        summary="Reversi, Gomoku/Renju and Tic-tac-toe rooms over REST and websockets",
        lifespan=lifespan,
    )
    secure(app)  # security headers on every answer; no secret in the logs

    def hub() -> RoomHub:
        h: RoomHub = state["hub"]
        return h

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        return _error(exc.code, str(exc), exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return _error("bad_request", f"{where or 'request'}: {first.get('msg', 'invalid')}", 422)

    async def room_or_404(room_id: str) -> Room:
        room = await hub().get(room_id) if len(room_id) <= 32 else None
        if room is None:
            raise RoomError("unknown_room", f"there is no room {room_id!r}", 404)
        return room

    # -- REST -------------------------------------------------------------------------------------------
    @app.post("/api/rooms", response_model=CreatedRoom, status_code=201)
    async def create_room(body: CreateRoom, request: Request) -> CreatedRoom:
        """Create a room; the reply holds the creator's seat tokens and the invite link."""
        from tabletop.players import SpecError, player

        for label, spec in body.seats.items():
            if spec == "human":
                continue
            if spec.lower().startswith(EXTERNAL_ENGINES) and not settings.allow_engines:
                raise RoomError("bad_seat", f"{label}: external engines are off on this server", 400)
            try:
                player(spec, game=body.game)
            except (SpecError, ValueError) as exc:
                raise RoomError("bad_seat", f"{label}: {exc}", 400) from None
        clock = None
        if body.clock is not None:
            clock = body.clock.model_dump()
        try:
            room, tokens, invite = await hub().create(
                game=body.game,
                options=body.options,
                position=body.position,
                seats={str(k): v for k, v in body.seats.items()},
                clock=clock,
                mode=body.mode,
                as_=body.as_,
                listed=body.listed,
            )
        except (ValueError, TypeError) as exc:
            if isinstance(exc, RoomError):
                raise
            raise RoomError("bad_room", str(exc), 400) from None
        base = settings.public_url or str(request.base_url).rstrip("/")
        link = None if invite is None else f"{base.rstrip('/')}/play/{room.id}?invite={invite}"
        return CreatedRoom(room=room.id, tokens=tokens, invite=link)

    @app.post("/api/rooms/{room_id}/join", response_model=Joined)
    async def join_room(room_id: str, body: JoinRoom) -> Joined:
        """Take the free seat with the invite secret (or of a listed room)."""
        seat, token = await hub().join(room_id, body.invite)
        return Joined(seat=seat, token=token)

    @app.get("/api/rooms")
    async def lobby() -> dict[str, Any]:
        """Listed rooms waiting for a player."""
        rooms = await hub().store.lobby()
        return {
            "rooms": [
                {
                    "id": r.id,
                    "game": r.game,
                    "options": r.options,
                    "seats": r.seats,
                    "clock": r.clock,
                    "created": r.created,
                }
                for r in rooms
            ]
        }

    @app.get("/api/rooms/{room_id}")
    async def room_state(room_id: str) -> dict[str, Any]:
        """The room's state (never a token)."""
        return (await room_or_404(room_id)).state()

    @app.get("/api/rooms/{room_id}/record")
    async def room_record(room_id: str, format: str = Query("transcript", max_length=16)) -> Response:
        """The game record as SGF, GGF, PSQ or a transcript."""
        room = await room_or_404(room_id)
        try:
            text, media = record_text(room, format)
        except ValueError as exc:
            raise RoomError("bad_format", str(exc), 400) from None
        return PlainTextResponse(
            text,
            media_type=media,
            headers={"content-disposition": f'attachment; filename="{room_id}.{format}"'},
        )

    @app.get("/api/rooms/{room_id}/evaluation")
    async def evaluation(room_id: str) -> dict[str, Any]:
        """A score per ply from Black's side (computed in the pool, cached)."""
        room = await room_or_404(room_id)
        moves = [str(m) for m in room.match.board.move_stack]
        key = (room_id, len(moves), tuple(moves))
        cache: dict[Any, list[float | None]] = state["evaluations"]
        if key not in cache:
            if len(cache) > 1000:
                cache.clear()  # a simple bound: evaluations are cheap to redo
            seconds = 0.05 if room.record.game != "tictactoe" else 0.01
            try:
                cache[key] = await hub().pool.run(
                    evaluate_job, room.record.game, room.record.options, room.record.position, moves, seconds
                )
            except Exception as exc:  # noqa: BLE001 - a failing engine is a clear error, never a 500
                log.warning("room %s: evaluation failed: %s", room_id, exc)
                raise RoomError("engine_failed", f"the evaluation failed: {exc}", 503) from None
        return {"scores": cache[key]}

    @app.post("/api/analyse")
    async def analyse(body: AnalyseRequest) -> dict[str, Any]:
        """The engine's analysis of a position (in the pool)."""
        try:
            result: dict[str, Any] = await hub().pool.run(
                analyse_job, body.game, body.options, body.position, body.moves, body.seconds
            )
        except AnalysisUnavailable as exc:
            raise RoomError("no_analysis", str(exc), 422) from None
        except ValueError as exc:
            raise RoomError("bad_position", str(exc), 400) from None
        except Exception as exc:  # noqa: BLE001 - a failing engine is a clear error, never a 500
            log.warning("analysis failed: %s", exc)
            raise RoomError("engine_failed", f"the analysis failed: {exc}", 503) from None
        return result

    # -- websocket ---------------------------------------------------------------------------------------------
    @app.websocket("/api/rooms/{room_id}/ws")
    async def starlette_socket(websocket: WebSocket, room_id: str) -> None:
        """The same handler through FastAPI's routing (``Settings.raw_websocket`` off)."""
        await room_socket(websocket, room_id)

    async def room_socket(websocket: Socket, room_id: str) -> None:
        await websocket.accept()
        room = await hub().get(room_id) if len(room_id) <= 32 else None
        if room is None:
            await websocket.send_text(
                frame("error", code="unknown_room", message=f"there is no room {room_id!r}")
            )
            await websocket.close(code=4404)
            return
        # ?batch=1: frames waiting together go out as one {"type":"batch","frames":[...]}
        # ?follow=1: a rematch moves this connection into the new room (no reconnect)
        batch = websocket.query_params.get("batch") == "1"
        direct = websocket.direct if isinstance(websocket, RawSocket) else None

        def overflow() -> None:
            hub().spawn(websocket.close(code=1013, reason="too many unread frames; reconnect with since"))

        outbox = Outbox(direct=direct, batch=batch, on_overflow=overflow)
        current = [room]
        del room  # a following connection outlives its first room: hold rooms only through current
        switching: list[asyncio.Task[None]] = []

        def follow(new_id: str) -> None:
            switching[:] = [t for t in switching if not t.done()]  # one per rematch: keep only live ones
            outbox.hold(True)  # the notice goes out with the new room's state
            switching.append(hub().spawn(_switch(current, client, new_id, outbox)))

        client = Client(outbox.put, follow if websocket.query_params.get("follow") == "1" else None)
        sender = None if direct is not None else asyncio.get_running_loop().create_task(_pump(websocket, outbox))
        recent: deque[float] = deque()
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    client.send(frame("error", code="bad_frame", message="frames are JSON text", seq=None))
                    continue
                # a character is at most 4 bytes of UTF-8: most frames need no encoding to be measured
                if len(text) * 4 > settings.frame_bytes and len(text.encode()) > settings.frame_bytes:
                    client.send(
                        frame(
                            "error",
                            code="frame_too_large",
                            message=f"frames are at most {settings.frame_bytes} bytes",
                            seq=None,
                        )
                    )
                    continue
                if settings.frame_rate > 0:
                    now = time.monotonic()
                    while recent and now - recent[0] >= 1.0:
                        recent.popleft()
                    if len(recent) >= settings.frame_rate:
                        client.send(
                            frame(
                                "error",
                                code="rate_limited",
                                message=f"at most {settings.frame_rate:g} frames a second",
                                seq=_seq_of(text),
                            )
                        )
                        continue
                    recent.append(now)
                await _handle(current[0], client, text)
        except WebSocketDisconnect:
            pass
        finally:
            for task in switching:
                if not task.done():
                    with contextlib.suppress(Exception):
                        await task
            await current[0].leave(client)
            if sender is not None:
                sender.cancel()

    async def _switch(current: list[Room], client: Client, new_id: str, outbox: Outbox) -> None:
        """Move a following connection into the rematch room with its tokens (colours swapped)."""
        try:
            new = await hub().get(new_id)
            if new is None or new is current[0]:
                return
            old = current[0]
            tokens = list(client.tokens.values())
            await old.leave(client)
            client.tokens = {}
            current[0] = new
            bad = await new.greet(client, tokens, None)
            if bad:
                client.send(
                    frame("error", code="bad_token", message="a seat token is not valid for this room", seq=None)
                )
        finally:
            outbox.hold(False)

    async def _handle(room: Room, client: Client, text: str) -> None:
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
        try:
            if isinstance(parsed, Hello):
                if client.greeted:
                    raise RoomError("bad_frame", "hello was already sent on this connection")
                tokens = list(parsed.tokens or []) + ([parsed.token] if parsed.token else [])
                bad = await room.greet(client, tokens, parsed.since)
                if bad:
                    client.send(
                        frame(
                            "error",
                            code="bad_token",
                            message="a seat token is not valid for this room",
                            seq=None,
                        )
                    )
                return
            if not client.greeted:
                raise RoomError("no_hello", "send hello first")
            if isinstance(parsed, MoveFrame):
                await room.move(client, parsed.move, parsed.seq)
            elif isinstance(parsed, ChooseFrame):
                await room.choose(client, parsed.choice)
            elif isinstance(parsed, SimpleFrame):
                if parsed.type == "ping":
                    client.send(frame("pong"))
                elif parsed.type == "hint":
                    room.actor(client)
                    try:
                        analysis = await room.hint()
                    except AnalysisUnavailable as exc:
                        raise RoomError("no_analysis", str(exc), 422) from None
                    client.send(frame("hint", analysis=analysis))
                elif parsed.type == "rematch":
                    await room.rematch(client)
                else:
                    await room.request(client, parsed.type)
            else:
                await room.request(client, parsed.type, parsed.accept)
        except RoomError as exc:
            client.send(frame("error", code=exc.code, message=str(exc), seq=seq))
        except Exception as exc:  # noqa: BLE001 - any failure answers the frame; the socket stays open
            log.exception("room %s: a %s frame failed", room.id, parsed.type)
            client.send(
                frame(
                    "error", code="server_error", message=f"the {parsed.type} request failed: {exc}", seq=seq
                )
            )

    # -- the web app ----------------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB / "index.html")

    @app.get("/play/{room_id}", include_in_schema=False)
    async def play_page(room_id: str) -> FileResponse:
        return FileResponse(WEB / "index.html")

    @app.get("/healthz", include_in_schema=False)
    async def health() -> dict[str, Any]:
        return {"ok": True, "rooms": len(hub().rooms)}

    if WEB.is_dir():
        app.mount("/web", StaticFiles(directory=WEB), name="web")
    if settings.raw_websocket:
        app.room_socket = room_socket
    return app


def _seq_of(text: str) -> int | None:
    """The seq of a refused frame, if it has a readable one (so the client can match the error)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    seq = data.get("seq") if isinstance(data, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


async def _pump(websocket: Socket, outbox: Outbox) -> None:
    """Send the outbox's frames in order; stops when the socket closes."""
    try:
        while True:
            frames = await outbox.take()
            if websocket.application_state != WebSocketState.CONNECTED:
                return
            for payload in payloads(frames, outbox.batch):
                await websocket.send_text(payload)
            outbox.sent()
            if outbox.overflowed:
                return
    except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        return
    except Exception:  # noqa: BLE001 - a closed transport; the reader side ends the session
        return
