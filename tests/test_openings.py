"""Opening rules (swap, swap2): the state machine, then full flows through a Match."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import tabletop.games.mnk
import tabletop.games.openings
import tabletop.records.psq
from tabletop.games.core import BLACK, WHITE
from tabletop.games.openings import OpeningError, OpeningPhase


@pytest.mark.parametrize("module", [tabletop.games.openings, tabletop.games.mnk, tabletop.records.psq])
def test_module_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_swap_opener_places_three_then_the_second_chooses() -> None:
    phase = OpeningPhase("swap")
    for left in (3, 2, 1):
        assert (phase.stage, phase.actor, phase.stones_left) == ("place", BLACK, left)
        phase.check_stone(BLACK)
        phase.stone_placed()
    assert (phase.stage, phase.actor, phase.options) == ("choose", WHITE, ("black", "white"))


@pytest.mark.parametrize(("choice", "swapped"), [("black", True), ("white", False), (" Black ", True)])
def test_swap_choice_decides_whether_seats_swap(choice: str, swapped: bool) -> None:
    phase = OpeningPhase("swap")
    for _ in range(3):
        phase.stone_placed()
    assert phase.choose(choice) is swapped
    assert phase.done and phase.swapped is swapped and phase.options == ()


def test_swap2_second_may_place_two_more_and_hand_the_choice_back() -> None:
    phase = OpeningPhase("swap2")
    for _ in range(3):
        phase.stone_placed()
    assert phase.options == ("black", "white", "place")
    assert phase.choose("place") is False
    assert (phase.stage, phase.actor, phase.stones_left) == ("place", WHITE, 2)
    with pytest.raises(OpeningError) as info:
        phase.check_stone(BLACK)
    assert info.value.code == "not_your_turn"
    phase.check_stone(WHITE)
    phase.stone_placed()
    phase.stone_placed()
    assert (phase.stage, phase.actor, list(phase.options)) == ("choose", BLACK, ["black", "white"])
    assert phase.choose("black") is False  # the opener keeps Black
    assert phase.to_dict()["choices"] == [["white", "place"], ["black", "black"]]


def test_swap2_opener_taking_white_swaps() -> None:
    phase = OpeningPhase("swap2")
    for _ in range(3):
        phase.stone_placed()
    phase.choose("place")
    phase.stone_placed()
    phase.stone_placed()
    assert phase.choose("white") is True


def test_out_of_phase_steps_are_refused_with_a_code() -> None:
    phase = OpeningPhase("swap")
    with pytest.raises(OpeningError) as info:
        phase.choose("black")
    assert info.value.code == "no_choice_pending"
    with pytest.raises(OpeningError) as info:
        phase.check_stone(WHITE)
    assert info.value.code == "not_your_turn"
    for _ in range(3):
        phase.stone_placed()
    with pytest.raises(OpeningError) as info:
        phase.check_stone(WHITE)
    assert info.value.code == "choice_required"
    with pytest.raises(OpeningError) as info:
        phase.choose("place")  # swap has no third option
    assert info.value.code == "bad_choice"
    phase.choose("white")
    with pytest.raises(OpeningError) as info:
        phase.stone_placed()
    assert info.value.code == "not_in_opening"


def test_unknown_opening_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="swap, swap2"):
        OpeningPhase("soosyrv8")
