"""Rematches: the same players again with colours swapped, each keeping its token.

In an online room between two people the first request is an offer and the
other player's request accepts it; otherwise (a local room, a computer seat, a
client holding both seats) the first request starts the rematch.  This module
decides that and shapes the new room's records; the room stores and announces.
"""

from __future__ import annotations

import time

from tabletop.games.core import Color
from tabletop.server.store import RoomRecord, SeatRecord

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
