"""Opening rules for Gomoku and Renju: ``swap`` and ``swap2``.

An opening rule decides who plays which colour after some stones have been
placed by agreement, so the first player cannot simply take the strongest
opening.  This module holds the rule as a small state machine,
:class:`OpeningPhase`, that says at every step who acts and what they may do;
:class:`tabletop.match.Match` drives it and turns its steps into events.

Roles are named by the seat's colour *at the start*: the *opener* is the seat
that starts as Black, the *second* the seat that starts as White.  Seats only
change colour at the very end, when the last choice is made, so during the
opening the opener is always the Black seat and the second the White seat.

- ``swap``: the opener places three stones (Black, White, Black); the second
  chooses a colour (``"black"`` or ``"white"``).
- ``swap2``: the opener places three stones; the second chooses ``"black"``,
  ``"white"``, or ``"place"``: two more stones (White, Black), after which
  the opener chooses ``"black"`` or ``"white"``.

Whoever ends up White plays the next stone.  A chooser who takes the colour
of the other seat swaps the seats.

This module knows nothing of seats, clocks or events, and must not import
:mod:`tabletop.match`.

>>> phase = OpeningPhase("swap2")
>>> for _ in range(3):
...     phase.stone_placed()
>>> phase.stage, phase.actor.label, phase.options
('choose', 'white', ('black', 'white', 'place'))
>>> phase.choose("place")
False
>>> phase.stone_placed(); phase.stone_placed()
>>> phase.actor.label, phase.options
('black', ('black', 'white'))
>>> phase.choose("white")
True
>>> phase.done
True
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.games.core import BLACK, WHITE, Color

__all__ = ["OPENING_RULES", "OpeningError", "OpeningPhase"]

OPENING_RULES = ("swap", "swap2")

PLACE = "place"
CHOOSE = "choose"
DONE = "done"


class OpeningError(ValueError):
    """A step the opening rule does not allow now; ``code`` names the kind."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class OpeningPhase:
    """Where an opening stands: ``stage`` (``"place"``, ``"choose"`` or
    ``"done"``), the seat colour that acts (``actor``), the stones it still
    has to place or the options it may choose from."""

    rule: str
    stage: str = PLACE
    actor: Color = BLACK
    stones_left: int = 3
    options: tuple[str, ...] = ()
    stones_placed: int = 0
    swapped: bool = False
    choices: tuple[tuple[str, str], ...] = ()  # (seat colour label, choice), in order

    def __post_init__(self) -> None:
        if self.rule not in OPENING_RULES:
            raise ValueError(f"unknown opening rule {self.rule!r} (known: {', '.join(OPENING_RULES)})")

    @property
    def done(self) -> bool:
        return self.stage == DONE

    def check_stone(self, seat: Color) -> None:
        """Raise :class:`OpeningError` unless ``seat`` may place a stone now."""
        if self.stage == CHOOSE:
            raise OpeningError(
                "choice_required",
                f"the opening waits for {self.actor.label} to choose: {', '.join(self.options)}",
            )
        if self.stage == PLACE and seat is not self.actor:
            raise OpeningError(
                "not_your_turn",
                f"{self.actor.label} places the opening stones ({self.stones_left} to go), not {seat.label}",
            )

    def stone_placed(self) -> None:
        """Record one opening stone; move on to the choice when the last is down."""
        if self.stage != PLACE:
            raise OpeningError("not_in_opening", "no opening stone is expected now")
        self.stones_placed += 1
        self.stones_left -= 1
        if self.stones_left > 0:
            return
        self.stage = CHOOSE
        if self.stones_placed == 3:
            self.actor = WHITE
            self.options = ("black", "white", "place") if self.rule == "swap2" else ("black", "white")
        else:  # swap2 after the two extra stones: back to the opener
            self.actor = BLACK
            self.options = ("black", "white")

    def choose(self, choice: str) -> bool:
        """The actor's choice.  Returns whether the seats swap colours.

        Raises :class:`OpeningError` (``no_choice_pending``, ``bad_choice``)."""
        if self.stage != CHOOSE:
            raise OpeningError("no_choice_pending", "there is no opening choice to make now")
        c = choice.strip().lower()
        if c not in self.options:
            raise OpeningError("bad_choice", f"choice {choice!r} is not one of {', '.join(self.options)}")
        self.choices = (*self.choices, (self.actor.label, c))
        if c == PLACE:
            self.stage = PLACE
            self.stones_left = 2
            self.options = ()
            return False  # the second seat places the 4th and 5th stones
        self.swapped = (c == "black") != (self.actor is BLACK)
        self.stage = DONE
        self.options = ()
        self.stones_left = 0
        return self.swapped

    def computer_choice(self) -> str:
        """The choice a computer seat makes when nobody decides for it: take White, which moves next.

        :class:`tabletop.match.Match` makes it by default; the server instead
        asks the Gomoku engine (:func:`tabletop.ai.gomoku.openings.decide_opening`),
        which may also take Black or ask for swap2's two extra stones."""
        if self.stage != CHOOSE:
            raise OpeningError("no_choice_pending", "there is no opening choice to make now")
        return "white"

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view for events and state snapshots."""
        return {
            "rule": self.rule,
            "stage": self.stage,
            "actor": None if self.done else self.actor.label,
            "stones_left": self.stones_left,
            "options": list(self.options),
            "stones_placed": self.stones_placed,
            "swapped": self.swapped,
            "choices": [list(c) for c in self.choices],
        }
