"""Chat in online rooms: the players' chat and the spectators' chat, kept with the game.

A room has two channels.  Its players write to ``players``; anyone else in the
room, a spectator, writes to ``spectators``.  Everyone reads the players'
channel.  The players do not read the spectators' channel while the game goes
on (no advice from the audience reaches them; the usual rule of game sites),
and once it is over everyone reads both, in the room and in its review.  A
room played at one screen (``mode`` local, against the computer included) has
no chat.

A message is text only: control characters and the invisible characters that
reorder text (bidirectional overrides and isolates) are removed, every run of
white space becomes one space, and pages show it as text, never as markup.
The limits (:data:`MAX_LENGTH` characters; :data:`RATE` messages in
:data:`WINDOW` seconds per connection and per author; :data:`MAX_MESSAGES` per
room) are refused with an error whose message states the rule.

Each message is committed to the ``chat`` table before it is broadcast, so a
room's chat survives a restart like its moves do.  ``author`` says who wrote a
message the way a page mutes them: ``@NAME`` for a signed-in person, the seat
row of an anonymous player (``ROOM:black``), or ``guest-XXXXXX`` for a guest
spectator, made from a secret key their browser keeps, so that nobody can
write under another's handle.  The rate limits are counted by each server
process for its own connections.

This module knows no game rule and no socket; the room hands it what it needs.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
import unicodedata
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.server.bus import Broadcast, frame
from tabletop.server.errors import RoomError
from tabletop.server.store import SqlStore, Store, chat_table

__all__ = [
    "MAX_LENGTH",
    "MAX_MESSAGES",
    "PLAYERS",
    "RATE",
    "SPECTATORS",
    "SPECTATOR_CHAT",
    "WINDOW",
    "RoomChat",
    "Speaker",
    "clean",
    "read_chat",
]

log = logging.getLogger("tabletop.server")

PLAYERS, SPECTATORS = "players", "spectators"
SPECTATOR_CHAT = "spectator_chat"
"""The broadcast kind of a spectator's message during the game: seated connections skip it."""

MAX_LENGTH = 300  # characters of a message, once cleaned
RATE = 5  # messages ...
WINDOW = 10.0  # ... in this many seconds, per connection and per author
MAX_MESSAGES = 1000  # a room's messages, both channels together

# bidirectional embeddings, overrides and isolates: they make text read in another order than it is written
_REORDERING = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_SPACES = re.compile(r"\s+")


def clean(text: str) -> str:
    """``text`` as a chat message keeps it: no control or reordering characters, one space for
    each run of white space (line breaks included), none at either end.

    >>> clean("  gg\\n\\twp \\u202eevil\\x00 ")
    'gg wp evil'
    """
    text = _SPACES.sub(" ", text.translate(_REORDERING))
    return "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Zl", "Zp")).strip()


@dataclass(frozen=True)
class Speaker:
    """Who writes: the channel, a player's colour, the author (what pages mute) and the name shown."""

    channel: str
    seat: str | None
    author: str
    name: str


def guest_handle(key: str) -> str:
    """A guest spectator's handle: six hex digits of the hash of the key their browser keeps."""
    return "guest-" + hashlib.sha256(key.encode()).hexdigest()[:6]


def _insert(conn: Connection, values: dict[str, Any]) -> int:
    """Store one message (in the store's writer); its id, which orders the room's chat."""
    key = conn.execute(chat_table.insert().values(**values)).inserted_primary_key
    assert key is not None  # an insert of one row
    return int(key[0])


def read_chat(conn: Connection, room_id: str) -> list[dict[str, Any]]:
    """A room's messages, oldest first, as the wire shows them."""
    query = sa.select(chat_table).where(chat_table.c.room_id == room_id).order_by(chat_table.c.id)
    return [_message(row) for row in conn.execute(query).mappings()]


def _message(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "channel": row["channel"],
        "seat": row["seat"],
        "author": row["author"],
        "name": row["name"],
        "text": row["text"],
        "at": row["at"],
    }


def visible(messages: list[dict[str, Any]], *, seated: bool, over: bool) -> list[dict[str, Any]]:
    """The messages a connection reads: a player reads the spectators' only once the game is over."""
    if over or not seated:
        return messages
    return [m for m in messages if m["channel"] == PLAYERS]


class RoomChat:
    """One room's chat in this process: its messages (read from the store on first need) and the
    recent sending times that the rate limit counts."""

    def __init__(self, room_id: str, *, new: bool = False) -> None:
        """``new``: the room was just created by this process, so it has no messages yet and the
        first arrival reads none from the store."""
        self.room_id = room_id
        self.messages: list[dict[str, Any]] | None = [] if new else None
        self._by_connection: weakref.WeakKeyDictionary[object, deque[float]] = weakref.WeakKeyDictionary()
        self._by_author: dict[str, deque[float]] = {}
        self._keys: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()

    # -- who speaks -----------------------------------------------------------------------------
    def speaker(
        self,
        connection: object,
        *,
        mode: str,
        seats: list[tuple[str, str]],
        names: dict[str, str],
        guest: str | None,
        account: str | None,
    ) -> Speaker:
        """The speaker of ``connection``: ``seats``, the (colour, stored seat row) pairs it holds;
        ``names``, the signed-in players of the room by colour; ``guest``, the key its browser
        keeps; ``account``, the name of its session, if signed in."""
        if mode != "online":
            raise RoomError("chat_not_allowed", "chat is for online games: this game is played at one screen")
        if len(seats) > 1:
            raise RoomError("chat_not_allowed", "chat is for online games: this connection plays both sides")
        if seats:
            (color, row), = seats
            name = names.get(color) or account
            author = f"@{name}" if name else f"{self.room_id}:{row}"
            return Speaker(PLAYERS, color, author, name or color.capitalize())
        if account:
            return Speaker(SPECTATORS, None, f"@{account}", account)
        if guest is None:
            guest = self._keys.setdefault(connection, hashlib.sha256(f"{id(connection)}{time.time()}".encode()).hexdigest())
        handle = guest_handle(guest)
        return Speaker(SPECTATORS, None, handle, handle)

    # -- the limits -----------------------------------------------------------------------------
    def _check(self, who: Speaker, text: str, connection: object, now: float) -> str:
        """The cleaned text, or a refusal that names the rule broken."""
        cleaned = clean(text)
        if all(unicodedata.category(ch) == "Cf" for ch in cleaned):  # nothing, or only invisible characters
            raise RoomError("chat_empty", "a chat message needs some text")
        if len(cleaned) > MAX_LENGTH:
            raise RoomError(
                "chat_too_long", f"a chat message is at most {MAX_LENGTH} characters (this one has {len(cleaned)})"
            )
        if self.messages is not None and len(self.messages) >= MAX_MESSAGES:
            raise RoomError("chat_full", f"this game's chat is full: at most {MAX_MESSAGES} messages a game")
        recent = [self._recent(self._by_connection.setdefault(connection, deque()), now)]
        recent.append(self._recent(self._by_author.setdefault(who.author, deque()), now))
        if any(len(r) >= RATE for r in recent):
            raise RoomError(
                "chat_too_fast", f"at most {RATE} chat messages in {WINDOW:g} seconds: wait a moment", 429
            )
        for r in recent:
            r.append(now)
        if len(self._by_author) > 4 * MAX_MESSAGES:  # authors quiet for a while are forgotten
            self._by_author = {a: r for a, r in self._by_author.items() if self._recent(r, now)}
        return cleaned

    @staticmethod
    def _recent(times: deque[float], now: float) -> deque[float]:
        while times and now - times[0] >= WINDOW:
            times.popleft()
        return times

    # -- reading and writing --------------------------------------------------------------------
    async def load(self, store: Store, *, again: bool = False) -> list[dict[str, Any]]:
        """The room's messages, read from the store the first time (``again``: read anew, for a
        room whose other server processes may have added some)."""
        if self.messages is None or again:
            if isinstance(store, SqlStore):

                def read() -> list[dict[str, Any]]:
                    with store.engine.connect() as conn:
                        return read_chat(conn, self.room_id)

                self.messages = await store.read(read)
            else:
                self.messages = self.messages or []
        return self.messages

    async def history(self, store: Store, *, seated: bool, over: bool, again: bool) -> dict[str, Any] | None:
        """The frame of the messages a connection reads when it arrives (None when there are none)."""
        shown = visible(await self.load(store, again=again), seated=seated, over=over)
        return frame("chat", messages=shown, history=True) if shown else None

    async def post(
        self, store: Store, who: Speaker, text: str, connection: object, *, over: bool
    ) -> Broadcast:
        """Check and store a message; the broadcast that carries it to the room (seated connections
        skip a spectator's message while the game goes on)."""
        messages = await self.load(store)
        now = time.time()
        cleaned = self._check(who, text, connection, time.monotonic())
        values = {
            "room_id": self.room_id,
            "channel": who.channel,
            "seat": who.seat,
            "author": who.author[:64],
            "name": who.name[:40],
            "text": cleaned,
            "at": now,
        }
        if isinstance(store, SqlStore):
            try:
                ident = await store.call(_insert, values)
            except Exception:
                log.exception("room %s: could not store a chat message", self.room_id)
                raise RoomError("store_failed", "the message could not be saved; please try again", 503) from None
        else:
            ident = len(messages) + 1
        message = _message({"id": ident, **values})
        messages.append(message)
        hidden = who.channel == SPECTATORS and not over
        return Broadcast(SPECTATOR_CHAT if hidden else "chat", [frame("chat", messages=[message])])
