"""Rematches: the same players again with colours swapped, each keeping its token.

In an online room between two people the first request is an offer and the
other player's request accepts it; otherwise (a local room, a computer seat, a
client holding both seats) the first request starts the rematch.  This module
decides that (:class:`RematchOffer`), shapes the new room's records and the
broadcasts that announce the offer or the new room; the room runs the request
under its lock and the hub stores the new room.  It knows no room.
"""

from __future__ import annotations

import time

from tabletop.games.core import Color
from tabletop.server.bus import Broadcast, frame
from tabletop.server.errors import RoomError
from tabletop.server.store import RoomRecord, SeatRecord

__all__ = ["RematchOffer", "rematch_records", "started"]


class RematchOffer:
    """Who has offered a rematch in one finished room."""

    def __init__(self) -> None:
        self.offered_by: Color | None = None

    def request(
        self, color: Color, *, over: bool, record: RoomRecord, humans: list[Color], colors: set[Color]
    ) -> Broadcast | None:
        """``color`` asks for a rematch of a room whose record is ``record`` (``over``: its game
        has ended; ``humans``: its people's seats; ``colors``: the seats of the client asking).
        The offer's broadcast when the other player must answer; None when the rematch starts now.
        A room whose game goes on, or that has its rematch already, refuses (:class:`RoomError`)."""
        if not over:
            raise RoomError("game_not_over", "a rematch can be offered once the game is over")
        if record.rematch is not None:
            raise RoomError("rematch_exists", "the rematch has already started")
        needs_answer = record.mode == "online" and len(humans) == 2 and not colors >= set(humans)
        if needs_answer and self.offered_by in (None, color):
            self.offered_by = color
            offered = frame("event", event={"kind": "rematch_offered", "color": color.label})
            return Broadcast("rematch_offered", [offered])
        return None


def started(new_id: str) -> Broadcast:
    """The broadcast that sends a finished room's people to its rematch ``new_id``."""
    return Broadcast("rematch_started", [frame("event", event={"kind": "rematch_started", "room": new_id})])


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
