"""Players: the perfect Tic-tac-toe player against the game tree, and the generic players on any board."""

from __future__ import annotations

import pytest

from tabletop.ai.base import Limit
from tabletop.ai.generic import GreedyPlayer, MCTSPlayer, MinimaxPlayer, RandomPlayer
from tabletop.ai.tictactoe import PerfectPlayer
from tabletop.games.core import BLACK, WHITE, BaseBoard, Color
from tabletop.games.mnk import Board, tictactoe
from tabletop.players import SpecError, player


def reachable_positions() -> dict[str, BaseBoard]:
    """Every position reachable from the empty board by legal play, found by the rules alone."""
    seen: dict[str, BaseBoard] = {}
    frontier = [tictactoe()]
    while frontier:
        b = frontier.pop()
        key = b.to_text()
        if key in seen:
            continue
        seen[key] = b.copy()
        for m in b.legal_moves:
            c = b.copy()
            c.push(m)
            frontier.append(c)
    return seen


def minimax_value(board: BaseBoard, memo: dict[str, int]) -> int:
    """Plain negamax, independent of the engine: +1 win / 0 draw / -1 loss for the side to move."""
    key = board.to_text()
    if key in memo:
        return memo[key]
    out = board.outcome()
    if out is not None:
        v = 0 if out.winner is None else (1 if out.winner is board.turn else -1)
    else:
        v = -2
        for m in board.legal_moves:
            board.push(m)
            v = max(v, -minimax_value(board, memo))
            board.pop()
    memo[key] = v
    return v


def test_there_are_5478_reachable_positions() -> None:
    # a published count (e.g. OEIS-cited Tic-tac-toe state counts, including the empty board)
    assert len(reachable_positions()) == 5478


def test_perfect_move_keeps_the_value_of_every_reachable_position() -> None:
    memo: dict[str, int] = {}
    perfect = PerfectPlayer(seed=3)
    checked = 0
    for board in reachable_positions().values():
        if board.is_game_over():
            continue
        value = minimax_value(board, memo)
        move = perfect.choose(board)
        board.push(move)
        assert -minimax_value(board, memo) == value, f"{move} spoils {board.to_text()}"
        board.pop()
        checked += 1
    assert checked == 4520  # non-terminal reachable positions: 5478 minus 958 finished games


def test_empty_board_is_a_draw_and_every_first_move_too() -> None:
    scores = PerfectPlayer().analyse(tictactoe()).scores
    assert len(scores) == 9 and all(s.score == 0 and s.exact for s in scores)


def _play(black: object, white: object, board: BaseBoard) -> Color | None:
    players = {BLACK: black, WHITE: white}
    while not board.is_game_over():
        p = players[board.turn]
        board.push(p.choose(board.copy()))  # type: ignore[attr-defined]
    out = board.outcome()
    assert out is not None
    return out.winner


@pytest.mark.parametrize("opponent", ["random", "mcts"])
def test_perfect_player_never_loses_in_1000_games_as_either_colour(opponent: str) -> None:
    perfect = PerfectPlayer(seed=11)
    losses = 0
    for i in range(1000):
        other = RandomPlayer(seed=i) if opponent == "random" else MCTSPlayer(playouts=40, seed=i)
        perfect_is_black = i % 2 == 0
        winner = _play(perfect, other, tictactoe()) if perfect_is_black else _play(other, perfect, tictactoe())
        if winner is not None and (winner is BLACK) != perfect_is_black:
            losses += 1
    assert losses == 0


@pytest.mark.parametrize("make", [lambda: RandomPlayer(seed=1), lambda: GreedyPlayer(seed=1),
                                  lambda: MCTSPlayer(playouts=50, seed=1), lambda: MinimaxPlayer(seconds=0.2)])
def test_generic_players_play_legal_moves_on_any_board_and_leave_it_unchanged(make: object) -> None:
    assert callable(make)
    p = make()
    for board in (tictactoe(), Board(5, 4, 4)):
        while not board.is_game_over():
            before = board.to_text()
            m = p.choose(board)
            assert board.to_text() == before
            assert board.is_legal(m)
            board.push(m)


def test_greedy_and_minimax_take_a_win_in_one() -> None:
    b = tictactoe("XX-/OO-/--- X")
    assert str(GreedyPlayer().choose(b)) == "c3"
    assert str(MinimaxPlayer(seconds=0.5).choose(b)) == "c3"


def test_minimax_blocks_a_threat_and_mcts_finds_the_win() -> None:
    b = tictactoe("OO-/X--/X-- X")  # black must block c3
    assert str(MinimaxPlayer(seconds=0.5).choose(b)) == "c3"
    assert str(MCTSPlayer(playouts=400, seed=2).choose(tictactoe("XX-/OO-/--- X"))) == "c3"


def test_mcts_respects_a_playout_limit_and_minimax_a_depth_limit() -> None:
    a = MCTSPlayer(playouts=10_000, seed=1).analyse(tictactoe(), Limit(nodes=30))
    assert a.nodes == 30
    m = MinimaxPlayer(seconds=None).analyse(tictactoe(), Limit(depth=2))
    assert m.depth == 2


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:20", "mcts:0.05s", "minimax:0.1", "perfect",
                                  "level:1", "level:5", "level:10"])
def test_every_spec_makes_a_player_that_plays(spec: str) -> None:
    p = player(spec)
    assert tictactoe().is_legal(p.choose(tictactoe()))


@pytest.mark.parametrize("spec", ["", "magic", "mcts:x", "mcts:-3", "minimax:0", "level:0", "level:11", "level:x",
                                  "gomocup:", "random:3"])
def test_malformed_specs_are_named_in_the_error(spec: str) -> None:
    with pytest.raises(SpecError, match="spec"):
        player(spec)


def test_top_levels_are_perfect_in_tictactoe() -> None:
    for n in (8, 9, 10):
        lvl = player(f"level:{n}")
        for _ in range(20):
            assert _play(lvl, RandomPlayer(), tictactoe()) in (BLACK, None)
