"""A computer seat's swap/swap2 opening decisions: the engine's choices, then a server that makes them in its pool.

The unit tests call :func:`tabletop.ai.gomoku.openings.decide_opening` on positions whose
standing is plain (a centre pair for Black against a corner stone, or the reverse) and on the
reference openings that are even by construction.  The server tests drive a ``tabletop serve``
process over its websocket: a computer second that must take Black, a computer opener whose
stones, colour choice and next move keep the game going, and a ping answered while it decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tabletop.ai.gomoku.openings import (
    EVEN_MARGIN,
    OpeningDecision,
    decide_opening,
    opening_candidates,
    opening_score,
    reference_openings,
)
from tabletop.games.core import BLACK, WHITE
from tabletop.games.mnk import GomokuBoard, gomoku
from tabletop.games.openings import OpeningPhase
from tabletop.match import Match, MatchError
from test_server import Frame, Server, Socket, state

RULES = ("freestyle", "renju")


def after_three(rule: str) -> OpeningPhase:
    """The phase after the opener's three stones: the second chooses."""
    phase = OpeningPhase(rule)
    for _ in range(3):
        phase.stone_placed()
    return phase


def board_with(rule: str, *moves: str) -> GomokuBoard:
    board = gomoku(15, rule=rule)
    for m in moves:
        board.push(m)
    return board


# -- the decisions ------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("opening", ["swap", "swap2"])
def test_the_second_takes_black_when_black_stands_clearly_better(rule: str, opening: str) -> None:
    board = board_with(rule, "h8", "a1", "i8")  # two black stones side by side at the centre, White's in a corner
    decision = decide_opening(board, after_three(opening))
    assert decision.choice == "black"
    assert decision.score > EVEN_MARGIN and decision.options["black"] == -decision.options["white"] == decision.score


@pytest.mark.parametrize("rule", RULES)
def test_the_second_takes_white_when_white_stands_clearly_better(rule: str) -> None:
    board = board_with(rule, "a1", "h8", "o15")  # White's stone on the centre, Black's in two corners
    decision = decide_opening(board, after_three("swap2"))
    assert decision.choice == "white" and decision.score > EVEN_MARGIN and decision.stones == ()


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_openers_three_stones_score_even_within_the_margin(rule: str, seed: int) -> None:
    board = gomoku(15, rule=rule)
    decision = decide_opening(board, OpeningPhase("swap"), seed=seed)
    assert decision.choice is None and len(decision.stones) == 3
    family = {tuple(line) for line in opening_candidates(board)}
    assert decision.stones in family  # centre, White near it, Black's second stone on the ring
    for m in decision.stones:
        board.push(m)  # legal: a renju foul would raise
    assert abs(decision.score) <= EVEN_MARGIN
    # scored again after other searches (the engine keeps its table between searches, so a score
    # can move a little), the opening is still near even for White to move
    assert abs(opening_score(board)) <= 2 * EVEN_MARGIN


def test_an_opener_resumed_after_its_first_stone_completes_an_opening_of_the_family() -> None:
    board = gomoku(15)
    phase = OpeningPhase("swap2")
    board.push("h8")  # a server restarted after the first of the computer's three stones
    phase.stone_placed()
    rest = decide_opening(board, phase, seed=3)
    assert rest.choice is None and len(rest.stones) == 2
    assert (board.move_stack[0], *rest.stones) in {tuple(line) for line in opening_candidates(gomoku(15))}
    other = gomoku(15)
    other.push("a1")  # not the start of any: the engine's best stone, one at a time
    assert len(decide_opening(other, phase).stones) == 1


def test_the_reference_openings_are_spread_around_the_even_point() -> None:
    refs = reference_openings(gomoku(15))
    scores = sorted(value for _, value in refs)
    assert len(refs) >= 5
    assert scores[0] <= 0 <= scores[-1]  # the even point is their median
    assert sum(abs(v) <= EVEN_MARGIN for v in scores) >= len(scores) // 2


@pytest.mark.parametrize("rule", RULES)
def test_swap2_second_places_two_stones_only_when_they_leave_an_even_game(rule: str) -> None:
    empty = gomoku(15, rule=rule)
    placed = 0
    for line, _ in reference_openings(empty):
        board = empty.copy()
        for m in line:
            board.push(m)
        decision = decide_opening(board, after_three("swap2"))
        value = decision.options["white"]  # its score for White to move, relative to the even point
        assert decision.options["black"] == -value
        if abs(value) > EVEN_MARGIN:
            # a colour clearly better than the other: taken, no stones
            assert decision.choice == ("white" if value > 0 else "black") and "place" not in decision.options
            continue
        assert set(decision.options) == {"black", "white", "place"}  # every option weighed
        if decision.choice != "place":
            # no pair of stones left it even: the better colour, scored as taken
            assert decision.options["place"] < -EVEN_MARGIN
            assert decision.score == max(decision.options["black"], decision.options["white"])
            continue
        placed += 1
        assert -EVEN_MARGIN <= decision.score == decision.options["place"] <= 0
        white, black = decision.stones
        board.push(white)  # White's stone, then Black's (legal for Black in renju)
        board.push(black)
        # the opener then chooses from this near-even position: the colour its own score prefers
        phase = after_three("swap2")
        phase.choose("place")
        phase.stone_placed()
        phase.stone_placed()
        final = decide_opening(board, phase)
        assert final.choice in ("black", "white") and final.score == max(final.options.values()) >= 0
        assert final.options[final.choice] == final.score and abs(final.score) <= 2 * EVEN_MARGIN
    assert placed >= 1  # some reference opening is even enough that placing pays


@pytest.mark.parametrize("rule", RULES)
def test_the_opener_after_five_stones_takes_the_colour_that_stands_better(rule: str) -> None:
    phase = after_three("swap2")
    phase.choose("place")
    phase.stone_placed()
    phase.stone_placed()
    assert phase.actor is BLACK and phase.options == ("black", "white")
    black_better = board_with(rule, "h8", "a1", "i8", "o15", "g7")  # Black: a bent three at the centre
    assert decide_opening(black_better, phase).choice == "black"
    white_better = board_with(rule, "a1", "h8", "o15", "i8", "a15")  # White: two in the centre, Black: corners
    decision = decide_opening(white_better, phase)
    assert decision.choice == "white" and decision.score > EVEN_MARGIN


def test_the_second_places_the_extra_stones_after_a_place_choice_resumed() -> None:
    board = board_with("freestyle", "h8", "h9", "f5")
    phase = after_three("swap2")
    phase.choose("place")
    both = decide_opening(board, phase)
    assert both.choice is None and len(both.stones) == 2
    board.push(both.stones[0])
    phase.stone_placed()
    last = decide_opening(board, phase)  # only Black's stone left (a restart between the two)
    assert last.choice is None and len(last.stones) == 1 and board.is_legal(last.stones[0])


def test_nothing_to_decide_once_the_opening_is_over() -> None:
    phase = after_three("swap")
    phase.choose("white")
    with pytest.raises(ValueError, match="nothing to decide"):
        decide_opening(board_with("freestyle", "h8", "h9", "j10"), phase)


def test_the_decision_is_a_plain_value() -> None:
    decision = decide_opening(board_with("freestyle", "h8", "a1", "i8"), after_three("swap"))
    assert isinstance(decision, OpeningDecision) and isinstance(decision.score, int)


# -- the Match without its own computer choice, and rooms stored before it -----------------------------------


def test_a_match_that_leaves_the_choice_to_its_caller_waits_for_the_computer() -> None:
    match = Match(gomoku(), {BLACK: "human", WHITE: "level:6"}, opening="swap", computer_chooses=False)
    for mv in ("h8", "h9", "j10"):
        match.play(BLACK, mv)
    assert match.opening is not None and match.opening.stage == "choose"
    assert match.computer_to_move() and match.actor is WHITE
    with pytest.raises(MatchError) as refused:
        match.play(BLACK, "g7")  # the human opener waits for the choice
    assert refused.value.code == "choice_required"
    match.choose(WHITE, "black")
    assert match.seats[BLACK].kind == "level:6" and match.turn is WHITE


def test_a_computer_choosers_stone_takes_the_colour_to_move() -> None:
    # how rooms stored while computers took White at once replay: three stones, then the computer's move
    match = Match(gomoku(), {BLACK: "level:6", WHITE: "level:6"}, opening="swap2", computer_chooses=False)
    for mv in ("h8", "h9", "j10"):
        match.play(BLACK, mv)
    match.play(WHITE, "g7")
    chosen = [e for e in match.events if e.kind == "colors_chosen"]
    assert len(chosen) == 1 and chosen[0].data["choice"] == "white" and chosen[0].data["swapped"] is False
    assert [str(m) for m in match.board.move_stack] == ["h8", "h9", "j10", "g7"] and match.turn is BLACK
    # the opener after swap2's extra stones: its stone takes White, so the seats swap
    match = Match(gomoku(), {BLACK: "level:6", WHITE: "human"}, opening="swap2", computer_chooses=False)
    for mv in ("h8", "h9", "j10"):
        match.play(BLACK, mv)
    match.choose(WHITE, "place")
    for mv in ("g9", "k11"):
        match.play(WHITE, mv)
    match.play(BLACK, "g7")
    assert match.seats[WHITE].kind == "level:6" and match.opening is not None and match.opening.swapped
    assert str(match.board.peek()) == "g7" and match.turn is BLACK


# -- the server -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("opening") / "rooms.db")
    try:
        yield s
    finally:
        s.stop()


def is_event(frame: Frame, *kinds: str) -> bool:
    return frame.get("type") == "event" and frame["event"].get("kind") in kinds


def frame_since(sock: Socket, mark: int, wanted: Callable[[Frame], bool]) -> Frame:
    """The first frame from ``mark`` on that is ``wanted``, waiting if none came yet: an ack and the
    room's events reach the socket by different paths, in either order."""
    for f in sock.seen[mark:]:
        if wanted(f):
            return f
    return sock.until(wanted)


def event_since(sock: Socket, mark: int, kind: str, color: str | None = None) -> Frame:
    """The first ``kind`` event (of ``color``) from ``mark`` on."""
    return frame_since(sock, mark, lambda f: is_event(f, kind) and color in (None, f["event"].get("color")))


DECIDED = ("opening_choice_made", "colors_chosen", "move_played")


def test_a_computer_second_in_swap2_takes_black_and_the_loop_answers_while_it_decides(server: Server) -> None:
    data = server.http.post(
        "/api/rooms",
        json={"game": "gomoku", "options": {"opening": "swap2"}, "seats": {"white": "level:6"}, "as": "black"},
    ).json()
    room, token = data["room"], data["tokens"]["black"]
    sock: Socket = server.ws(room)
    try:
        sock.hello(token)
        mark = len(sock.seen)
        for seq, mv in enumerate(("h8", "a1", "i8"), start=1):  # Black plainly better: the computer must see it
            sock.send({"type": "move", "move": mv, "seq": seq})
            sock.ack(seq)
        thinking = event_since(sock, mark, "thinking", "white")
        thinking_at = next(i for i, f in enumerate(sock.seen) if f is thinking)
        sock.send({"type": "ping"})
        pong = frame_since(sock, thinking_at, lambda f: f.get("type") == "pong")
        pong_at = next(i for i, f in enumerate(sock.seen) if f is pong)
        # the pong came before any frame of the decision: the event loop was free while the pool decided
        assert not any(is_event(f, *DECIDED) for f in sock.seen[thinking_at:pong_at])
        chosen = event_since(sock, mark, "colors_chosen")["event"]
        assert chosen["color"] == "white" and chosen["choice"] == "black" and chosen["swapped"] is True
        assert not any(is_event(f, "opening_choice_made") for f in sock.seen)  # no "place" first
        now = state(server, room)  # the human moves next: nothing races this read
        assert now["seats"]["black"]["kind"] == "level:6" and now["turn"] == "white"
        assert now["opening"]["choices"] == [["white", "black"]] and len(now["moves"]) == 3
        mark = len(sock.seen)
        sock.send({"type": "move", "move": "j8", "seq": 4})  # the same token plays White now
        sock.ack(4)
        reply = event_since(sock, mark, "move_played", "black")
        assert reply["event"]["ply"] == 5  # the game goes on: the computer, Black now, moves
    finally:
        sock.close()


def test_a_computer_opener_places_an_even_opening_and_chooses_after_the_extra_stones(server: Server) -> None:
    data = server.http.post(
        "/api/rooms",
        json={"game": "gomoku", "options": {"opening": "swap2", "rule": "renju"}, "seats": {"black": "level:6"},
              "as": "white"},
    ).json()
    room, token = data["room"], data["tokens"]["white"]
    sock = server.ws(room)
    try:
        sock.hello(token, since=0)  # every event from the start, however fast the computer placed its stones
        asked = event_since(sock, 0, "opening_choice_required")["event"]
        assert asked["color"] == "white" and asked["options"] == ["black", "white", "place"]
        opening = state(server, room)["moves"]
        family = {tuple(str(m) for m in line) for line in opening_candidates(gomoku(15, rule="renju"))}
        assert tuple(opening) in family  # one of the engine's even openings, not three searched moves
        mark = len(sock.seen)
        sock.send({"type": "choose", "choice": "place"})
        event_since(sock, mark, "opening_choice_made")
        for seq, mv in enumerate(("a1", "o15"), start=1):  # White's and Black's extra stones, both far off
            sock.send({"type": "move", "move": mv, "seq": seq})
            sock.ack(seq)
        asked = event_since(sock, mark, "opening_choice_required", "black")["event"]
        assert asked["options"] == ["black", "white"]
        chosen = event_since(sock, mark, "colors_chosen")["event"]  # the computer opener decides in the pool
        assert chosen["color"] == "black" and chosen["choice"] in ("black", "white")
        # White moves next: the computer if it took White, else this token (which plays White then)
        turn = frame_since(sock, mark, lambda f: is_event(f, "turn_changed") and f["event"]["opening"]["stage"] == "done")
        assert turn["event"]["turn"] == "white" and turn["event"]["opening"]["swapped"] is (chosen["choice"] == "white")
        mark = next(i for i, f in enumerate(sock.seen) if f is turn)
        if chosen["choice"] == "white":  # the computer is White: it moves on its own
            reply = event_since(sock, mark, "move_played", "white")
            assert reply["event"]["ply"] == 6
        else:  # it kept Black: this token plays White and moves, and the computer answers
            sock.send({"type": "move", "move": turn["event"]["legal"][0], "seq": 3})
            sock.ack(3)
            reply = event_since(sock, mark, "move_played", "black")
            assert reply["event"]["ply"] == 7
    finally:
        sock.close()
