"""Rematches: the same players again with colours swapped, each keeping its token.

In an online room between two people the first request is an offer and the
other player's request accepts it; otherwise (a local room, a computer seat, a
client holding both seats) the first request starts the rematch.  This module
decides that, shapes the new room's records and announces the offer or the new
room; the hub stores it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tabletop.games.core import Color
from tabletop.server.bus import Broadcast, frame
from tabletop.server.errors import RoomError
from tabletop.server.seats import Client
from tabletop.server.store import RoomRecord, SeatRecord

if TYPE_CHECKING:
    from tabletop.server.room import Room

__all__ = ["RematchOffer", "rematch_records"]


class RematchOffer:
    """Who has offered a rematch in one finished room."""

    def __init__(self) -> None:
        self.offered_by: Color | None = None

    def offer(self, color: Color, *, needs_answer: bool) -> bool:
        """True when ``color``'s request only offers (the other player must answer);
        False when the rematch starts now."""
        if needs_answer and self.offered_by in (None, color):
            self.offered_by = color
            return True
        return False

    async def request(self, room: Room, client: Client) -> None:
        """``client`` asks for a rematch of ``room``'s finished game: announce the
        offer, or create the rematch room and announce it."""
        color = room.speaker(client)
        async with room.lock:
            if not room.match.is_over():
                raise RoomError("game_not_over", "a rematch can be offered once the game is over")
            if room.record.rematch is not None:
                raise RoomError("rematch_exists", "the rematch has already started")
            humans = room.seats.humans()
            needs_answer = room.record.mode == "online" and len(humans) == 2 and not client.colors >= set(humans)
            bus = room.hub.bus
            if self.offer(color, needs_answer=needs_answer):
                offered = frame("event", event={"kind": "rematch_offered", "color": color.label})
                await bus.publish(room.id, Broadcast("rematch_offered", [offered]))
                return
            new = await room.hub.create_rematch(room)
            room.record.rematch = new.id
            started = frame("event", event={"kind": "rematch_started", "room": new.id})
            await bus.publish(room.id, Broadcast("rematch_started", [started]))


def rematch_records(
    old: RoomRecord, seats: dict[str, SeatRecord], new_id: str
) -> tuple[RoomRecord, dict[str, SeatRecord]]:
    """The rematch room of ``old`` (seats by the colour they play now): the same
    game and players, colours swapped, each player's token hash kept."""
    record = RoomRecord(
        id=new_id,
        game=old.game,
        options=dict(old.options),
        position=old.position,
        seats={"black": old.seats["white"], "white": old.seats["black"]},
        clock=old.clock,
        mode=old.mode,
        listed=False,
        invite_hash=old.invite_hash,
        created=time.time(),
    )
    rows = {
        label: SeatRecord(label, seats[other].kind, seats[other].token_hash)
        for label, other in (("black", "white"), ("white", "black"))
    }
    return record, rows
