"""tabletop.tournament: games through Match, failures named by kind, colours and openings in pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabletop import tournament
from tabletop.ai.base import Limit
from tabletop.games import new_board
from tabletop.games.core import BaseBoard, Move
from tabletop.match import Match
from tabletop.players import SpecError
from tabletop.tournament import GameSpec, check_players, failure_kind, play_match, play_one, schedule


class Scripted:
    """A fake player: the first legal move, or the fault it was made for; remembers being closed."""

    closed: list[str] = []

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.name = spec

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        if self.spec == "crash":
            raise RuntimeError("segmentation fault")
        if self.spec == "slow":
            raise TimeoutError("the engine did not answer 'go' in time")
        if self.spec == "illegal":
            occupied = [m for m in board.move_stack if not m.is_pass]
            return occupied[0] if occupied else board.legal_moves[0]
        return board.legal_moves[0]

    def close(self) -> None:
        Scripted.closed.append(self.spec)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    Scripted.closed = []

    def fake(spec: str, game: str | None = None) -> Any:
        return Scripted(spec)

    monkeypatch.setattr("tabletop.players.player", fake)


def _spec(a: str, b: str, a_is_black: bool = True, opening: tuple[str, ...] = ("b2",), number: int = 0) -> GameSpec:
    return GameSpec("tictactoe", {}, a, b, a_is_black, opening, None, number)


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize(("fault", "kind", "words"), [("crash", "crash", "segmentation fault"),
                                                      ("slow", "timeout", "in time"),
                                                      ("illegal", "bad answer", "occupied")])
def test_a_failing_player_loses_and_the_failure_is_named(fault: str, kind: str, words: str) -> None:
    result = play_one(_spec("first", fault, a_is_black=True, opening=()))
    assert result.a_score == 1.0 and result.failure is not None
    assert (result.failure.player, result.failure.spec, result.failure.kind) == ("B", fault, kind)
    assert result.failure.color == "white" and words in result.failure.reason.lower()
    assert result.reason.startswith(f"B ({fault}) as white: {kind}")
    assert sorted(Scripted.closed) == sorted(["first", fault])


@pytest.mark.usefixtures("scripted")
def test_a_failure_of_a_is_a_loss_for_a_never_a_win() -> None:
    result = play_one(_spec("crash", "first", a_is_black=False))
    assert result.a_score == 0.0 and result.black_score == 1.0
    assert result.failure is not None and result.failure.player == "A" and result.failure.color == "white"


@pytest.mark.usefixtures("scripted")
def test_a_game_is_played_through_match_from_its_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Match] = []
    real_start = Match.start

    def start(self: Match) -> None:
        seen.append(self)
        real_start(self)

    monkeypatch.setattr(Match, "start", start)
    result = play_one(_spec("first", "first", a_is_black=False, opening=("b2",)))
    (match,) = seen
    assert [str(m) for m in match.board.move_stack][0] == "b2"
    assert match.is_over() and match.events[-1].kind == "game_ended"
    kinds = [e.kind for e in match.events]
    assert kinds.count("move_played") == len(match.board.move_stack) - 1  # the opening is not an event
    assert result.failure is None and result.plies == len(match.board.move_stack)
    assert result.moves["A"] + result.moves["B"] == result.plies - 1
    assert result.opening == ("b2",) and not result.a_is_black
    assert list(result.line) == [str(m) for m in match.board.move_stack]  # the whole game, opening first


def test_real_players_through_match_score_as_their_outcome() -> None:
    # perfect play never loses; every move of both sides is counted and timed
    for a_is_black in (True, False):
        result = play_one(GameSpec("tictactoe", {}, "perfect", "random", a_is_black, (), None))
        assert result.a_score in (0.5, 1.0) and result.failure is None
        assert result.seconds["A"] > 0 and result.moves["A"] + result.moves["B"] == result.plies >= 5


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (TimeoutError("slow"), "timeout"),
        (ValueError("the engine 'x' did not answer 'pong' in time"), "timeout"),
        (ValueError("the engine 'x' sent an illegal move: '=== A1'"), "bad answer"),
        (ValueError("the engine 'x' sent a malformed move: '=== Z9'"), "bad answer"),
        (RuntimeError("the engine 'x' exited before answering 'pong'"), "crash"),
        (OSError("cannot start"), "crash"),
    ],
)
def test_failure_kinds_from_the_controllers_errors(error: Exception, kind: str) -> None:
    assert failure_kind(error) == kind


def test_schedule_pairs_each_opening_with_both_colours() -> None:
    book = [("d3", "c5", "f6", "f5"), ("f5", "f6", "e6", "f4")]
    specs = schedule("reversi", {}, "a", "b", 5, book, 0.1)
    assert [s.number for s in specs] == [0, 1, 2, 3, 4]
    assert [s.a_is_black for s in specs] == [True, False, True, False, True]
    assert [s.opening for s in specs] == [book[0], book[0], book[1], book[1], book[0]]
    assert {s.pair for s in specs[:2]} == {0} and specs[4].pair == 2


def test_parallel_jobs_give_the_same_games_in_order() -> None:
    specs = schedule("tictactoe", {}, "perfect", "perfect", 4, [()], None)
    report = play_match(specs, jobs=2)
    assert [r.number for r in report.results] == [0, 1, 2, 3]
    assert [r.a_is_black for r in report.results] == [True, False, True, False]
    assert all(r.a_score == 0.5 for r in report.results)


def test_summary_counts_failures_apart_from_the_outcomes(monkeypatch: pytest.MonkeyPatch) -> None:
    Scripted.closed = []
    monkeypatch.setattr("tabletop.players.player", lambda spec, game=None: Scripted(spec))
    specs = [_spec("first", "crash", a_is_black=i % 2 == 0, number=i) for i in range(4)]
    summary = play_match(specs).summary()
    assert summary["wins"] == 4 and [f["game"] for f in summary["failures"]] == [1, 2, 3, 4]
    assert {f["kind"] for f in summary["failures"]} == {"crash"} and {f["player"] for f in summary["failures"]} == {"B"}


def test_check_players_names_the_bad_flag() -> None:
    with pytest.raises(SpecError, match="--b: bad player spec 'mcts:x'"):
        check_players("tictactoe", {"--a": "random", "--b": "mcts:x"})
    with pytest.raises(ValueError, match="unknown game"):
        check_players("go", {"--a": "random"})


def test_openings_give_distinct_reversi_starts() -> None:
    book = tournament.openings("reversi", new_board("reversi"), 10, seed=4)
    assert len(book) == len(set(book)) == 10


# -- the game log ------------------------------------------------------------------------------------------


def _log_specs(games: int = 6, a: str = "random", seed: int = 3) -> list[GameSpec]:
    board = new_board("reversi", {"size": 6})
    book = tournament.openings("reversi", board, games // 2, seed)
    return schedule("reversi", {"size": 6}, a, "greedy", games, book, None)


def test_a_logged_match_stopped_midway_plays_only_the_missing_games(tmp_path: Any) -> None:
    path = str(tmp_path / "games.jsonl")
    specs = _log_specs()
    full = play_match(specs, log=tournament.GameLog(path))
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    # a stop after four games, the fifth cut off in the middle of its line
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:4]) + "\n" + lines[4][:25])
    played: list[int] = []
    again = play_match(specs, on_game=lambda r: played.append(r.number), log=tournament.GameLog(path))
    assert sorted(played) == list(range(6))  # the four logged games count, two are played
    assert [r.number for r in again.results] == list(range(6))
    for old, new in zip(full.results[:4], again.results[:4], strict=True):
        assert (old.a_score, old.plies, old.reason, old.opening) == (new.a_score, new.plies, new.reason, new.opening)
        assert old.line == new.line and len(new.line) == new.plies  # the moves come back from the log
    reread = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(reread) == 6 and reread[:4] == lines[:4]  # the cut line is gone, two whole lines added
    assert tournament.GameLog(path).finished(specs)[5].number == 5


def test_a_log_of_another_match_or_a_broken_line_is_refused_by_name(tmp_path: Any) -> None:
    path = tmp_path / "games.jsonl"
    specs = _log_specs(2)
    play_match(specs, log=tournament.GameLog(str(path)))
    with pytest.raises(tournament.GameLogError, match="line 1: game 1 of another match"):
        play_match(_log_specs(2, a="greedy"), log=tournament.GameLog(str(path)))
    path.write_text("{not json\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(tournament.GameLogError, match="line 1: not a game of a match log"):
        tournament.GameLog(str(path)).finished(specs)
