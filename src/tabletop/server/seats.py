"""A room's seats and the connections that hold their tokens.

A seat is played by a person (``"human"``, who proves it with a token) or a
computer (a player SPEC).  Only a token's hash is stored.  :class:`Client` is
one connection's view of a room: the seats its tokens open and where its
frames go.  :class:`Seats` holds both seats of one room and the clients in
it, and answers who may speak for which colour.

An opening rule (swap, swap2) may swap the seats: the stored seat rows keep
the colours they started with (:meth:`Seats.row_label`), and each token then
plays the other colour.

This module knows no rule of any game, no socket and no storage.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any

from tabletop.games.core import BLACK, WHITE, Color
from tabletop.server.bus import Broadcast, frame
from tabletop.server.chat import SPECTATOR_CHAT
from tabletop.server.errors import RoomError
from tabletop.server.store import SeatRecord

__all__ = ["COLORS", "Client", "Outgoing", "Seats", "hash_secret", "new_secret"]

COLORS = {"black": BLACK, "white": WHITE}

Outgoing = dict[str, Any] | Broadcast  # a frame for one socket, or a room's broadcast
"""What a connection sends: one frame as data, or a broadcast's frames."""


def new_secret() -> str:
    """A seat token or invite secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    """Only this hash is stored, so a copied database gives no seat away."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Client:
    """One connection's view of a room: the seats its tokens open, ``send``, which
    queues a frame (or a broadcast) for its socket, and ``version``, the newest
    event of the room's log it has been sent (so that each event reaches it once
    and in order, whichever way it comes: the bus, or a catch-up from the store)."""

    def __init__(
        self, send: Callable[[Outgoing], None], on_rematch: Callable[[str], None] | None = None
    ) -> None:
        """``on_rematch(room_id)``: called after a ``rematch_started`` notice when the
        connection asked to move into the rematch room (``?follow=1``)."""
        self.send = send
        self.on_rematch = on_rematch
        self.tokens: dict[Color, str] = {}
        self.greeted = False
        self.version = 0

    @property
    def colors(self) -> set[Color]:
        return set(self.tokens)

    def deliver(self, broadcast: Broadcast) -> None:
        """A room's broadcast, as this client must see it: events it already has are
        left out, events after a gap wait for the room's catch-up (:mod:`.catchup`),
        and a rematch notice carries the client's own tokens for the new room
        (colours swapped)."""
        newest = broadcast.version
        if newest is not None:
            if newest > self.version and broadcast.frames:
                if broadcast.frames[0]["version"] == self.version + 1:  # the usual case: next in line
                    self.version = newest
                    self.send(broadcast)
                else:
                    self.send_events(broadcast)
            return
        if broadcast.kind == SPECTATOR_CHAT and self.tokens:
            return  # players read the spectators' chat only once the game is over (:mod:`.chat`)
        if broadcast.kind != "rematch_started" or not (self.tokens or self.on_rematch is not None):
            self.send(broadcast)
            return
        notice = broadcast.frames[0]
        event = notice["event"]
        if self.tokens:
            event = {**event, "tokens": {c.other.label: t for c, t in self.tokens.items()}}
            notice = {**notice, "event": event}
        self.send(notice)
        if self.on_rematch is not None:
            self.on_rematch(str(event["room"]))


    def send_events(self, broadcast: Broadcast) -> None:
        """Send the events of ``broadcast`` this client has not had, if they follow on
        from its :attr:`version` (events are never sent out of order)."""
        newest = broadcast.version
        if newest is None or newest <= self.version or not broadcast.frames:
            return
        first = broadcast.frames[0]["version"]
        if first > self.version + 1:
            return  # events in between are missing: the catch-up sends them all in order
        if first <= self.version:
            fresh = [f for f in broadcast.frames if f["version"] > self.version]
            broadcast = Broadcast(broadcast.kind, fresh, newest)
        self.version = newest
        self.send(broadcast)


class Seats:
    """Both seats of one room (stored rows by colour) and the clients in the room."""

    def __init__(self, rows: dict[str, SeatRecord], previous: Seats | None = None, now: float = 0.0) -> None:
        """The seats of ``rows``; ``previous``: the seats of the same room before it was
        rebuilt from the store, whose clients stay; ``now``: the time a new room's
        people's seats count as left from (nobody has connected yet)."""
        self.rows = rows  # by the colour each seat plays now
        self.clients: set[Client] = set() if previous is None else previous.clients
        self._unsubscribe: dict[Client, Callable[[], None]] = {} if previous is None else previous._unsubscribe
        self.swapped = False
        # since when each person's seat that no connection holds has been empty, by colour
        self.left_at: dict[str, float] = (
            {label: now for label, s in rows.items() if s.kind == "human"} if previous is None else previous.left_at
        )

    def __getitem__(self, label: str) -> SeatRecord:
        return self.rows[label]

    def swap(self) -> None:
        """An opening rule swapped the seats: each row and token now plays the other colour."""
        self.swapped = not self.swapped
        black, white = self.rows["black"], self.rows["white"]
        self.rows = {
            "black": SeatRecord("black", white.kind, white.token_hash, white.last_seq),
            "white": SeatRecord("white", black.kind, black.token_hash, black.last_seq),
        }
        for client in self.clients:
            client.tokens = {c.other: t for c, t in client.tokens.items()}
        self.left_at = {COLORS[label].other.label: at for label, at in self.left_at.items()}

    def row_label(self, label: str) -> str:
        """The stored seat row of the seat now playing ``label``."""
        return {"black": "white", "white": "black"}[label] if self.swapped else label

    def seat_of(self, token: str) -> Color | None:
        digest = hash_secret(token)
        for label, seat in self.rows.items():
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return COLORS[label]
        return None

    def admit(self, client: Client, tokens: list[str]) -> list[str]:
        """Give ``client`` the seats its tokens open; returns the tokens that open none."""
        bad: list[str] = []
        for token in tokens:
            color = self.seat_of(token)
            if color is None:
                bad.append(token)
            else:
                client.tokens[color] = token
        return bad

    def enter(self, client: Client, unsubscribe: Callable[[], None]) -> None:
        """``client`` is in the room; ``unsubscribe`` ends its subscription to the room's broadcasts."""
        self.clients.add(client)
        self._unsubscribe[client] = unsubscribe
        for color in client.tokens:
            self.left_at.pop(color.label, None)

    def leave(self, client: Client, now: float = 0.0) -> bool:
        """``client`` left at ``now``; False if it was not in the room."""
        if client not in self.clients:
            return False
        self.clients.discard(client)
        self._unsubscribe.pop(client, lambda: None)()
        for color in client.tokens:
            if not self.connected(color):
                self.left_at[color.label] = now
        return True

    def away(self, now: float) -> dict[str, float]:
        """The people's seats no connection holds, and for how many seconds they have been empty."""
        return {
            label: max(0.0, now - at)
            for label, at in self.left_at.items()
            if self.rows[label].kind == "human" and not self.connected(COLORS[label])
        }

    def presence_frame(self) -> dict[str, Any]:
        """Who is here: the number of watchers and, per seat, whether someone sits there."""
        return frame("watchers", count=self.watchers(), seats=self.presence())

    def free(self) -> list[str]:
        """The people's seats nobody has taken yet."""
        return [label for label, s in self.rows.items() if s.kind == "human" and s.token_hash is None]

    def humans(self) -> list[Color]:
        return [c for label, c in COLORS.items() if self.rows[label].kind == "human"]

    def watchers(self) -> int:
        return sum(1 for c in self.clients if not c.tokens)

    def connected(self, color: Color) -> bool:
        return any(color in c.tokens for c in self.clients)

    def presence(self) -> dict[str, bool]:
        """Per seat: someone is there (a computer always is)."""
        return {label: s.kind != "human" or self.connected(COLORS[label]) for label, s in self.rows.items()}

    def view(self) -> dict[str, dict[str, Any]]:
        """The seats as the room's state shows them (never a token)."""
        return {
            label: {
                "kind": seat.kind,
                "connected": seat.kind != "human" or self.connected(COLORS[label]),
                "taken": seat.kind != "human" or seat.token_hash is not None,
            }
            for label, seat in self.rows.items()
        }

    @staticmethod
    def speaker(
        client: Client, acting: Callable[[], Color], *, to_move: bool = False, answering: Color | None = None
    ) -> Color:
        """The seat a request speaks for: the client's only seat, or for a hot-seat
        client the seat that must act (``acting()``: asked only then; ``to_move``, or when
        it holds that seat) or the side answering ``answering``'s offer."""
        colors = client.tokens  # its keys: the client's seats
        if not colors:
            raise RoomError("not_seated", "spectators can only watch; join a seat to play")
        if len(colors) == 1:
            return next(iter(colors))
        if answering is not None:
            return answering.other
        actor = acting()
        if to_move or actor in colors:
            return actor
        return next(iter(colors))
