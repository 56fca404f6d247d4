"""Opening rules (swap, swap2): the state machine, then full flows through a Match."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tabletop.games.mnk
import tabletop.games.openings
import tabletop.records.psq
from tabletop.games.core import BLACK, WHITE, Color
from tabletop.games.mnk import gomoku, tictactoe
from tabletop.games.openings import OpeningError, OpeningPhase
from tabletop.match import ClockSettings, Match, MatchError


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


# -- through a Match -----------------------------------------------------------------------------


def _kinds(match: Match, since: int) -> list[str]:
    return [e.kind for e in match.events[since:]]


def test_swap_flow_where_the_second_takes_black_swaps_the_seats() -> None:
    match = Match(gomoku(), opening="swap")
    alice, bob = match.seats[BLACK], match.seats[WHITE]
    match.start()
    assert [e.kind for e in match.events] == ["game_started", "opening_started", "turn_changed"]
    assert match.events[-1].data["opening"]["stage"] == "place"
    assert match.actor is BLACK
    # the opener (Black seat) places all three stones, of both colours
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    assert match.board.to_text().split()[0].count("X") == 2 and match.board.to_text().split()[0].count("O") == 1
    assert match.actor is WHITE and match.board.turn is WHITE
    required = [e for e in match.events if e.kind == "opening_choice_required"]
    assert len(required) == 1
    assert required[0].data == {"color": "white", "options": ["black", "white"], "rule": "swap"}
    assert match.events[-1].kind == "turn_changed" and match.events[-1].data["legal"] == []
    before = match.version
    match.choose(WHITE, "black")
    assert _kinds(match, before) == ["colors_chosen", "turn_changed"]
    chosen = match.events[before].data
    assert chosen["swapped"] is True and chosen["color"] == "white" and chosen["choice"] == "black"
    assert match.seats[BLACK] is bob and match.seats[WHITE] is alice
    # alice, now White, plays the fourth stone; the game goes on normally
    assert match.actor is WHITE
    match.play(WHITE, "g7")
    assert match.actor is BLACK and match.state()["opening"]["stage"] == "done"
    with pytest.raises(MatchError) as info:
        match.play(WHITE, "a1")
    assert info.value.code == "not_your_turn"


def test_swap_flow_where_the_second_keeps_white() -> None:
    match = Match(gomoku(), opening="swap")
    bob = match.seats[WHITE]
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    match.choose(WHITE, "white")
    chosen = next(e for e in match.events if e.kind == "colors_chosen")
    assert chosen.data["swapped"] is False and match.seats[WHITE] is bob
    match.play(WHITE, "g7")
    assert match.board.move_stack[-1] == match.board.parse_move("g7")


def test_swap2_flow_with_two_extra_stones_and_the_opener_choosing() -> None:
    match = Match(gomoku(rule="renju"), opening="swap2")
    alice, bob = match.seats[BLACK], match.seats[WHITE]
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    req = [e for e in match.events if e.kind == "opening_choice_required"][-1]
    assert req.data["options"] == ["black", "white", "place"] and req.data["color"] == "white"
    before = match.version
    match.choose(WHITE, "place")
    assert _kinds(match, before) == ["opening_choice_made", "turn_changed"]
    assert match.actor is WHITE
    with pytest.raises(MatchError) as info:
        match.play(BLACK, "a1")
    assert info.value.code == "not_your_turn"
    match.play(WHITE, "g9")  # a White stone
    match.play(WHITE, "i11")  # a Black stone
    assert match.board.to_text().split()[0].count("X") == 3 and match.board.to_text().split()[0].count("O") == 2
    req = [e for e in match.events if e.kind == "opening_choice_required"][-1]
    assert req.data["options"] == ["black", "white"] and req.data["color"] == "black"
    match.choose(BLACK, "white")
    assert match.seats[WHITE] is alice and match.seats[BLACK] is bob
    assert match.actor is WHITE and match.board.turn is WHITE
    match.play(WHITE, "k12")
    assert match.actor is BLACK


def test_swap2_second_taking_black_at_once() -> None:
    match = Match(gomoku(), opening="swap2")
    bob = match.seats[WHITE]
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    match.choose(WHITE, "black")
    assert match.seats[BLACK] is bob and match.actor is WHITE


def test_out_of_phase_requests_raise_match_errors_with_codes() -> None:
    match = Match(gomoku(), opening="swap2")
    with pytest.raises(MatchError) as info:
        match.choose(BLACK, "black")
    assert info.value.code == "no_choice_pending"
    with pytest.raises(MatchError) as info:
        match.play(WHITE, "h8")
    assert info.value.code == "not_your_turn"
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    version = match.version
    with pytest.raises(MatchError) as info:
        match.play(WHITE, "a1")
    assert info.value.code == "choice_required"
    with pytest.raises(MatchError) as info:
        match.choose(BLACK, "white")
    assert info.value.code == "not_your_choice"
    with pytest.raises(MatchError) as info:
        match.choose(WHITE, "purple")
    assert info.value.code == "bad_choice"
    with pytest.raises(MatchError) as info:
        match.undo()
    assert info.value.code == "not_allowed"
    assert match.version == version and len(match.board.move_stack) == 3


def test_opening_stones_cannot_be_taken_back_after_the_choice() -> None:
    match = Match(gomoku(), opening="swap")
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    match.choose(WHITE, "white")
    match.play(WHITE, "g7")
    match.play(BLACK, "a1")
    undone = match.undo()
    assert [str(m) for m in undone] == ["a1"]
    match.undo()
    with pytest.raises(MatchError) as info:
        match.undo()
    assert info.value.code == "not_allowed"
    assert len(match.board.move_stack) == 3


def test_opening_is_only_for_gomoku_and_known_rules() -> None:
    with pytest.raises(ValueError):
        Match(tictactoe(), opening="swap")
    with pytest.raises(ValueError):
        Match(gomoku(), opening="pro")


def test_a_computer_seat_plays_through_the_opening() -> None:
    match = Match(gomoku(size=9), {BLACK: "random", WHITE: "random"}, opening="swap2")
    while not match.is_over() and (match.opening is not None and not match.opening.done):
        assert match.computer_to_move()
        match.think()
    assert match.opening is not None and match.opening.done
    assert any(e.kind == "colors_chosen" for e in match.events)
    assert match.state()["opening"]["stage"] == "done"


def test_rematch_keeps_the_opening_rule() -> None:
    match = Match(gomoku(), {BLACK: "human", WHITE: "random"}, opening="swap")
    again = match.rematch(gomoku())
    assert again.opening is not None and again.opening.rule == "swap"


def test_online_takeback_cannot_reach_into_the_opening() -> None:
    match = Match(gomoku(), opening="swap", local=False)
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    with pytest.raises(MatchError) as info:
        match.request_takeback(BLACK)
    assert info.value.code == "not_allowed"
    match.choose(WHITE, "white")
    match.play(WHITE, "g7")
    match.request_takeback(WHITE)  # White's own move after the opening: fine
    match.answer_takeback(BLACK, True)
    assert len(match.board.move_stack) == 3
    with pytest.raises(MatchError) as info:
        match.request_takeback(BLACK)  # Black's last stone is an opening stone
    assert info.value.code == "not_allowed"


def test_computer_chooser_takes_white_at_once() -> None:
    match = Match(gomoku(), {BLACK: "human", WHITE: "random"}, opening="swap")
    for mv in ["h8", "h9", "j10"]:
        match.play(BLACK, mv)
    kinds = [e.kind for e in match.events]
    assert kinds[-3:] == ["opening_choice_required", "colors_chosen", "turn_changed"]
    assert match.opening is not None and match.opening.done and not match.opening.swapped
    assert match.computer_to_move() and match.actor is WHITE


def test_opening_time_is_charged_to_the_seat_that_acts_and_follows_a_swap() -> None:
    now = [0.0]
    match = Match(gomoku(), opening="swap", clock=ClockSettings(initial=100.0), now=lambda: now[0])
    assert match.clock is not None
    alice = match.seats[BLACK]
    match.start()
    for mv in ["h8", "h9", "j10"]:
        now[0] += 10.0
        match.play(BLACK, mv)
    assert (match.clock.left(BLACK), match.clock.left(WHITE)) == (70.0, 100.0)
    now[0] += 5.0
    match.choose(WHITE, "black")
    # bob (95 s left) is now Black, alice (70 s) White and to move
    assert match.seats[WHITE] is alice
    assert (match.clock.left(BLACK), match.clock.left(WHITE)) == (95.0, 70.0)
    assert match.clock.running is WHITE


@settings(deadline=None, max_examples=40)
@given(st.sampled_from(["swap", "swap2"]), st.data())
def test_any_opening_ends_with_white_to_move_and_seats_swapped_as_chosen(rule: str, data: st.DataObject) -> None:
    match = Match(gomoku(size=9), opening=rule)
    first, second = match.seats[BLACK], match.seats[WHITE]
    phase = match.opening
    assert phase is not None
    last_chooser: Color | None = None
    last_choice = ""
    while not phase.done:
        actor = match.actor
        assert actor is not None
        if phase.stage == "place":
            match.play(actor, data.draw(st.sampled_from(match.board.legal_moves)))
        else:
            last_chooser, last_choice = actor, data.draw(st.sampled_from(list(phase.options)))
            match.choose(actor, last_choice)
    stones = len(match.board.move_stack)
    assert stones in ((3,) if rule == "swap" else (3, 5))
    assert match.board.turn is WHITE and match.actor is WHITE  # whoever holds White moves next
    assert last_chooser is not None
    swapped = (last_choice == "black") != (last_chooser is BLACK)
    assert (match.seats[BLACK] is second) is swapped and (match.seats[WHITE] is first) is swapped
    assert [e.kind for e in match.events].count("colors_chosen") == 1
