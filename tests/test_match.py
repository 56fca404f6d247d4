"""Match: turn order, events, undo/redo, takebacks, draws, resignation and clocks."""

from __future__ import annotations

import pytest

from tabletop.games.core import BLACK, WHITE
from tabletop.games.mnk import tictactoe
from tabletop.match import ClockSettings, Event, Match, MatchError


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def test_events_arrive_in_order_with_rising_versions() -> None:
    seen: list[Event] = []
    m = Match(tictactoe())
    m.subscribe(seen.append)
    m.start()
    for color, mv in [(BLACK, "a1"), (WHITE, "b1"), (BLACK, "a2"), (WHITE, "b2"), (BLACK, "a3")]:
        m.play(color, mv)
    assert kinds(seen) == ["game_started", "turn_changed"] + ["move_played", "turn_changed"] * 4 + [
        "move_played", "game_ended"]
    assert [e.version for e in seen] == list(range(1, len(seen) + 1))
    assert seen[-1].data["outcome"]["winner"] == "black"
    assert sorted(seen[-1].data["outcome"]["cells"]) == ["a1", "a2", "a3"]
    assert m.turn is None and m.state()["turn"] is None


def test_refused_requests_change_nothing() -> None:
    m = Match(tictactoe())
    m.start()
    m.play(BLACK, "b2")
    v = m.version
    with pytest.raises(MatchError) as err:
        m.play(BLACK, "a1")
    assert err.value.code == "not_your_turn"
    with pytest.raises(MatchError) as err:
        m.play(WHITE, "b2")
    assert err.value.code == "illegal_move" and "occupied" in str(err.value)
    with pytest.raises(MatchError) as err:
        m.play(WHITE, "q9")
    assert err.value.code == "illegal_move"
    assert m.version == v and m.board.to_text() == "---/-X-/--- O"


def test_undo_against_the_computer_takes_back_the_reply_too_and_redo_replays() -> None:
    m = Match(tictactoe(), {BLACK: "human", WHITE: "perfect"})
    m.start()
    m.play(BLACK, "a1")
    m.think()
    assert len(m.board.move_stack) == 2
    undone = m.undo()
    assert [str(x) for x in undone][1] == "a1" and m.board.move_stack == []
    assert "move_undone" in kinds(m.events)
    m.redo()  # the exact inverse of undo: a1 and the computer's reply come back
    assert [str(x) for x in m.board.move_stack] == [str(x) for x in reversed(undone)]
    assert m.board.turn is BLACK


def test_hot_seat_undo_goes_back_one_move() -> None:
    m = Match(tictactoe())
    m.play(BLACK, "a1")
    m.play(WHITE, "b1")
    m.undo()
    assert [str(x) for x in m.board.move_stack] == ["a1"]
    with pytest.raises(MatchError):
        Match(tictactoe(), local=False).undo()


def test_takeback_request_accepted_and_declined() -> None:
    m = Match(tictactoe(), local=False)
    m.play(BLACK, "a1")
    m.play(WHITE, "b1")
    m.request_takeback(WHITE)
    with pytest.raises(MatchError):
        m.answer_takeback(WHITE, True)  # one cannot answer one's own request
    m.answer_takeback(BLACK, False)
    assert len(m.board.move_stack) == 2
    m.request_takeback(BLACK)
    m.answer_takeback(WHITE, True)  # black's last move a1 and white's reply are taken back
    assert m.board.move_stack == [] and m.board.turn is BLACK
    with pytest.raises(MatchError) as err:
        m.answer_takeback(WHITE, True)
    assert err.value.code == "no_request"


def test_resign_and_agreed_draw_end_the_game() -> None:
    m = Match(tictactoe())
    m.play(BLACK, "b2")
    m.resign(WHITE)
    out = m.outcome()
    assert out is not None and out.winner is BLACK and out.reason == "resign"
    with pytest.raises(MatchError) as err:
        m.play(WHITE, "a1")
    assert err.value.code == "game_over"
    d = Match(tictactoe())
    d.play(BLACK, "b2")
    d.offer_draw(BLACK)
    d.answer_draw(WHITE, True)
    out = d.outcome()
    assert out is not None and out.winner is None and out.reason == "agreement"


def test_clock_charges_the_mover_adds_increment_and_flags() -> None:
    now = [0.0]
    m = Match(tictactoe(), clock=ClockSettings(initial=10, increment=2), now=lambda: now[0])
    m.start()
    now[0] = 3.0
    m.play(BLACK, "b2")
    assert m.clock is not None
    assert m.clock.snapshot() == {"black": 9.0, "white": 10.0}
    now[0] = 14.5
    assert m.check_time() is True
    out = m.outcome()
    assert out is not None and out.winner is BLACK and out.reason == "time"
    assert m.events[-1].kind == "game_ended"


def test_rematch_swaps_colours() -> None:
    m = Match(tictactoe(), {BLACK: "human", WHITE: "level:3"})
    r = m.rematch(tictactoe())
    assert r.seats[BLACK].kind == "level:3" and r.seats[WHITE].kind == "human"


def test_redo_after_undoing_past_a_forced_pass_brings_back_every_move() -> None:
    from tabletop.games import new_board

    # White's b1 leaves Black without a move: the match plays Black's pass
    m = Match(new_board("reversi", {"size": 6}, position="X-XXX-/OXXXX-/OOXOX-/OOOXX-/OOOO-X/OOOOO- O"))
    m.start()
    m.play(WHITE, "b1")
    assert [str(x) for x in m.board.move_stack] == ["b1", "pass"]
    reply = str(m.board.legal_moves[0])
    m.play(WHITE, reply)
    m.undo()
    m.undo()  # back past the pass to the start
    assert m.board.move_stack == []
    assert [str(x) for x in m.redo()] == ["b1"]
    assert [str(x) for x in m.redo()] == [reply]
    assert [str(x) for x in m.board.move_stack] == ["b1", "pass", reply]
    with pytest.raises(MatchError) as err:
        m.redo()
    assert err.value.code == "nothing_to_redo"
