"""The Reversi engine: kernel against the rules library, exact endgames, search control, levels, analysis."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tabletop.ai.base import Limit
from tabletop.ai.reversi import analyse, kernel, level_player
from tabletop.ai.reversi.eval import handmade_weights, load_weights, save_weights
from tabletop.ai.reversi.search import Searcher, square_name, time_for_move
from tabletop.games.core import PASS, Color
from tabletop.games.reversi import Board, perft_bitboards
from tabletop.players import player as player_from_spec
from tabletop.records.obf import parse_obf_line

DATA = Path(__file__).parent / "data" / "othello"
START_BLACK = (1 << (3 * 8 + 4)) | (1 << (4 * 8 + 3))  # e4 and d5
START_WHITE = (1 << (3 * 8 + 3)) | (1 << (4 * 8 + 4))  # d4 and e5
# Leaves from the start, a forced pass counted as a ply (../shared/data/othello/perft.md).
PERFT = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]


def _sides(board: Board) -> tuple[int, int]:
    black, white = board.bitboards()
    return (black, white) if board.turn is Color.BLACK else (white, black)


def test_perft_from_the_start_matches_the_reference_to_depth_9() -> None:
    assert [kernel.perft(START_BLACK, START_WHITE, d) for d in range(10)] == PERFT


def test_perft_agrees_with_the_rules_library_in_random_positions() -> None:
    rng = random.Random(5)
    for _ in range(12):
        board = Board()
        for _ in range(rng.randrange(4, 40)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        p, o = _sides(board)
        assert kernel.perft(p, o, 3) == perft_bitboards(p, o, 3)


def test_kernel_moves_and_flips_agree_with_the_rules_board_over_random_games() -> None:
    rng = random.Random(1)
    positions = 0
    for _ in range(2000):
        board = Board()
        while not board.is_game_over():
            p, o = _sides(board)
            moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
            legal = [m for m in board.legal_moves if not m.is_pass]
            assert moves == sum(1 << (m.row * 8 + m.col) for m in legal)
            if not legal:
                assert board.legal_moves == [PASS]
                board.push(PASS)
                continue
            move = rng.choice(legal)
            sq = move.row * 8 + move.col
            flipped = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            board.push(move)
            after_p, after_o = _sides(board)  # now the opponent is to move
            assert after_o == p | flipped | (1 << sq)
            assert after_p == o & ~flipped
            positions += 1
    assert positions > 100000


def _flips_by_walking(p: int, o: int, sq: int) -> int:
    """Discs turned by playing ``sq``, walking each of the eight lines square by square."""
    turned = 0
    row, col = divmod(sq, 8)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            r, c, line = row + dr, col + dc, 0
            while 0 <= r < 8 and 0 <= c < 8 and o >> (r * 8 + c) & 1:
                line |= 1 << (r * 8 + c)
                r, c = r + dr, c + dc
            if 0 <= r < 8 and 0 <= c < 8 and p >> (r * 8 + c) & 1:
                turned |= line
    return turned


def _random_sides(rng: random.Random, fill: float) -> tuple[int, int]:
    p = o = 0
    for sq in range(64):
        if rng.random() < fill:
            if rng.random() < 0.5:
                p |= 1 << sq
            else:
                o |= 1 << sq
    return p, o


def test_flips_on_every_empty_square_of_random_boards_match_a_line_walk() -> None:
    # Illegal squares must give 0 as well: the endgame solver tries empties without a move list.
    rng = random.Random(7)
    illegal = legal = 0
    for _ in range(3000):
        p, o = _random_sides(rng, rng.uniform(0.3, 0.95))
        for sq in range(64):
            if (p | o) >> sq & 1:
                continue
            expected = _flips_by_walking(p, o, sq)
            assert int(kernel.flips(np.uint64(p), np.uint64(o), sq)) == expected, (hex(p), hex(o), sq)
            legal += expected != 0
            illegal += expected == 0
    assert legal > 10000 and illegal > 10000


def test_pattern_indices_match_a_square_by_square_reading() -> None:
    # The evaluation reads each pattern a byte at a time through board transforms; its index
    # must be the definition: sum of 3**k * (0 empty, 1 ours, 2 theirs) over the pattern's squares.
    rng = random.Random(11)
    n = kernel.PATTERN_SQUARES.shape[0]
    out = np.zeros(n, dtype=np.int64)
    expected = np.zeros(n, dtype=np.int64)
    p, o = START_BLACK, START_WHITE  # the definition itself, by hand, on the start position
    kernel.feature_indices_by_squares(np.uint64(p), np.uint64(o), expected)
    for i in range(n):
        squares = [int(sq) for sq in kernel.PATTERN_SQUARES[i] if sq >= 0]
        digits = [1 if p >> sq & 1 else 2 if o >> sq & 1 else 0 for sq in squares]
        assert expected[i] == int(kernel.PATTERN_OFFSETS[i]) + sum(d * 3**k for k, d in enumerate(digits))
    for _ in range(2000):
        p, o = _random_sides(rng, rng.uniform(0.05, 1.0))
        kernel.feature_indices(np.uint64(p), np.uint64(o), out)
        kernel.feature_indices_by_squares(np.uint64(p), np.uint64(o), expected)
        assert (out == expected).all(), (hex(p), hex(o))


def _exact_by_minimax(p: int, o: int, passed: bool = False) -> int:
    moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
    if not moves:
        if passed:
            return Searcher.final_score(p, o)
        return -_exact_by_minimax(o, p, True)
    best = -65
    for sq in range(64):
        if moves >> sq & 1:
            f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            best = max(best, -_exact_by_minimax(o ^ f, p ^ f ^ (1 << sq)))
    return best


def test_the_table_free_solver_agrees_with_plain_minimax_near_the_end() -> None:
    # The last empties go through hand-ordered code (two, three and four empties, then the
    # parity loop): every window must give the exact score or the right side of it.
    rng = random.Random(5)
    nodes = np.zeros(2, dtype=np.int64)
    checked = 0
    while checked < 300:
        board = Board()
        empties = rng.randint(1, 6)
        while not board.is_game_over() and 64 - sum(b.bit_count() for b in board.bitboards()) > empties:
            board.push(rng.choice(board.legal_moves))
        if board.is_game_over():
            continue
        p, o = _sides(board)
        exact = _exact_by_minimax(p, o)
        solve = kernel._solve_small
        assert solve(np.uint64(p), np.uint64(o), -64, 64, False, nodes) == exact
        for alpha in (exact - 3, exact - 1, exact, exact + 1):
            v = solve(np.uint64(p), np.uint64(o), alpha, alpha + 1, False, nodes)
            assert (v > alpha) == (exact > alpha), (hex(p), hex(o), alpha, v, exact)
        checked += 1


def test_perft_rejects_overlapping_bitboards() -> None:
    with pytest.raises(ValueError, match="overlap"):
        kernel.perft(1, 1, 2)


def test_stable_discs_are_never_flipped_in_random_games() -> None:
    rng = random.Random(7)
    for _ in range(40):
        board = Board()
        history: list[tuple[int, int, Color]] = []
        while not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
            black, white = board.bitboards()
            history.append((black, white, board.turn))
        final_black, final_white = board.bitboards()
        for black, white, _ in history:
            stable_black = int(kernel.stable_discs(np.uint64(black), np.uint64(white)))
            stable_white = int(kernel.stable_discs(np.uint64(white), np.uint64(black)))
            assert stable_black & final_black == stable_black
            assert stable_white & final_white == stable_white


def test_every_ffo_position_1_to_19_is_solved_exactly() -> None:
    searcher = Searcher(64)
    lines = (DATA / "fforum-1-19.obf").read_text().splitlines()
    assert len(lines) == 19
    for number, line in enumerate(lines, 1):
        pos = parse_obf_line(line)
        result = searcher.solve(*pos.sides())
        assert result.exact
        assert result.score == pos.expected_score, f"FFO #{number}"
        assert pos.annotations[square_name(result.best)] == pos.expected_score, f"FFO #{number}"


def test_solver_scores_every_move_exactly_when_asked() -> None:
    pos = parse_obf_line((DATA / "fforum-1-19.obf").read_text().splitlines()[0])
    result = Searcher(16).solve(*pos.sides(), all_moves=True)
    got = {square_name(s.square): int(s.score) for s in result.scores}
    for move, score in pos.annotations.items():
        assert got[move] == score
    assert all(s.exact for s in result.scores)


def test_a_plain_solve_marks_only_the_best_score_exact_and_the_others_as_bounds() -> None:
    pos = parse_obf_line((DATA / "fforum-1-19.obf").read_text().splitlines()[0])
    result = Searcher(16).solve(*pos.sides())
    assert [s.exact for s in result.scores] == [True] + [False] * (len(result.scores) - 1)
    assert int(result.scores[0].score) == pos.expected_score
    for s in result.scores[1:]:  # each other move was only proven no better than the best
        assert s.score <= result.scores[0].score
        assert pos.annotations[square_name(s.square)] <= s.score


def test_finished_game_gives_empties_to_the_winner() -> None:
    assert Searcher.final_score(0b1110, 0b1) == 2 + 60
    assert Searcher.final_score(0b1, 0b1110) == -2 - 60
    assert Searcher.final_score(0b1, 0b10) == 0


def test_search_stops_from_another_thread_with_a_legal_move() -> None:
    board = Board()
    for name in ("f5", "d6", "c3", "d3", "c4"):
        board.push(name)
    searcher = Searcher(8)
    searcher.search(*_sides(board), depth=2)  # compiled (or loaded) before the clock starts
    threading.Timer(0.3, searcher.stop).start()
    started = time.perf_counter()
    result = searcher.search(*_sides(board), depth=40)
    assert time.perf_counter() - started < 5.0
    assert board.is_legal(board.move_at(result.best % 8, result.best // 8))
    assert result.depth >= 1


def test_search_respects_a_time_budget() -> None:
    board = Board()
    searcher = Searcher(8)
    searcher.search(*_sides(board), depth=2)  # compile outside the measured call
    started = time.perf_counter()
    result = searcher.search(*_sides(board), seconds=0.3)
    assert time.perf_counter() - started < 1.5
    assert result.depth >= 3


def test_node_limit_ends_the_search() -> None:
    result = Searcher(8).search(START_BLACK, START_WHITE, nodes=2000, depth=30)
    assert result.nodes < 20000
    assert result.best in (19, 26, 37, 44)


def test_table_size_option_changes_the_table() -> None:
    small, large = Searcher(1), Searcher(16)
    assert small.mid_keys.nbytes * 8 <= large.mid_keys.nbytes
    with pytest.raises(ValueError, match="positive"):
        Searcher(0)


def test_clock_budget_spreads_time_and_keeps_a_reserve() -> None:
    assert time_for_move(60.0, 0.0, 50) == pytest.approx(3.0, rel=0.02)
    assert time_for_move(0.1, 0.0, 20) < 0.05  # most of a short clock is kept for the moves to the end
    assert time_for_move(60.0, 2.0, 50) > time_for_move(60.0, 0.0, 50)
    assert time_for_move(1.0, 0.0, 12) <= 0.5


def test_analysis_scores_every_legal_move_with_pv() -> None:
    board = Board()
    for name in ("f5", "f6", "e6"):
        board.push(name)
    before = board.to_text()
    result = analyse(board, Limit(depth=4))
    assert board.to_text() == before
    assert {m for m in (s.move for s in result.scores)} == set(board.legal_moves)
    assert result.depth == 4 and result.nodes > 0
    assert result.pv and result.pv[0] == result.scores[0].move
    assert [s.score for s in result.scores] == sorted((s.score for s in result.scores), reverse=True)


def test_analysis_is_exact_near_the_end() -> None:
    pos = parse_obf_line((DATA / "fforum-1-19.obf").read_text().splitlines()[1])
    board = Board.from_bitboards(pos.black, pos.white, Color.BLACK if pos.black_to_move else Color.WHITE)
    result = analyse(board, Limit(seconds=10))
    assert all(s.exact for s in result.scores)
    assert str(result.scores[0].move) == "a4" and result.scores[0].score == 10


def test_a_forced_pass_is_chosen_when_stuck() -> None:
    # Black (to move) has no placement; White still has one.
    board = Board.from_bitboards(0b1, 0b10, Color.BLACK)
    board2 = Board.from_bitboards(0b10, 0b1, Color.WHITE)
    for b in (board, board2):
        if b.legal_moves == [PASS]:
            assert level_player(5).choose(b) == PASS


@pytest.mark.parametrize("level", [1, 4, 7, 10])
def test_level_players_choose_legal_moves_and_leave_the_board_unchanged(level: int) -> None:
    rng = random.Random(level)
    board = Board()
    for _ in range(rng.randrange(10, 30)):
        board.push(rng.choice(board.legal_moves))
    before = board.to_text()
    move = level_player(level).choose(board, Limit(seconds=0.2) if level == 10 else None)
    assert board.to_text() == before
    assert board.is_legal(move)


def test_level_spec_reaches_the_engine() -> None:
    p = player_from_spec("level:6")
    board = Board()
    assert board.is_legal(p.choose(board))
    assert p.name == "level:6"


def _play(a: object, b: object, opening_seed: int) -> int:
    """Disc difference for ``a`` (Black) after a random 4-ply opening."""
    rng = random.Random(opening_seed)
    board = Board()
    for _ in range(4):
        board.push(rng.choice(board.legal_moves))
    seats = {Color.BLACK: a, Color.WHITE: b}
    while not board.is_game_over():
        board.push(seats[board.turn].choose(board))  # type: ignore[attr-defined]
    black, white = board.discs()
    return black - white


def test_a_higher_level_beats_level_one() -> None:
    strong, weak = level_player(5, seed=1), level_player(1, seed=2)
    results = [_play(strong, weak, s) for s in range(3)] + [-_play(weak, strong, s) for s in range(3)]
    assert sum(r > 0 for r in results) >= 5


def test_weights_file_loads_or_falls_back_to_the_handmade_table() -> None:
    fitted = load_weights()
    table = fitted if fitted is not None else handmade_weights()
    assert table.shape[1] == kernel.N_FEATURES and 60 % table.shape[0] == 0
    assert abs(kernel.evaluate(np.uint64(START_BLACK), np.uint64(START_WHITE), table)) < 4 * kernel.SCALE


def test_a_table_of_any_phase_count_dividing_60_loads_and_each_phase_reads_its_own_row(tmp_path: Path) -> None:
    # a table whose phases differ only in their bias: the start position (60 empties) reads the first
    # row, a position of one empty square the last
    for phases in (12, 20, 30):
        table = np.zeros((phases, kernel.N_FEATURES), dtype=np.float32)
        table[:, kernel.F_BIAS] = np.arange(phases) * kernel.SCALE
        save_weights(table, tmp_path / "w.npz")
        loaded = load_weights(tmp_path / "w.npz")
        assert loaded is not None and loaded.shape == (phases, kernel.N_FEATURES)
        assert kernel.evaluate(np.uint64(START_BLACK), np.uint64(START_WHITE), loaded) == 0
        full = np.uint64((1 << 63) - 1)  # every square but one the mover's
        assert kernel.evaluate(full, np.uint64(0), loaded) - kernel.evaluate(full, np.uint64(0), table * 0) == (
            phases - 1
        ) * kernel.SCALE
    save_weights(np.zeros((7, kernel.N_FEATURES), dtype=np.float32), tmp_path / "w.npz")
    assert load_weights(tmp_path / "w.npz") is None, "7 phases do not split the 60 moves evenly"


def test_impossible_position_is_refused() -> None:
    with pytest.raises(ValueError, match="share a square"):
        Searcher(1).search(0b11, 0b10, depth=1)


def test_level_ten_on_a_clock_answers_within_its_share_of_the_time() -> None:
    board = Board()
    for name in ("f5", "d6", "c3", "d3", "c4", "f4"):
        board.push(name)
    player = level_player(10)
    player.clock = (2.0, 0.0)  # two seconds left for the rest of the game
    player.choose(board, Limit(depth=1))  # load the compiled code outside the timing
    player.clock = (2.0, 0.0)
    started = time.perf_counter()
    move = player.choose(board)
    assert time.perf_counter() - started < 1.0
    assert board.is_legal(move)


def test_analysis_of_other_board_sizes_falls_back_to_the_generic_search() -> None:
    from tabletop.ai import analyse
    from tabletop.ai.base import Limit
    from tabletop.games.reversi import Board as ReversiBoard

    for size in (6, 10):
        board = ReversiBoard(size=size)
        result = analyse(board, Limit(seconds=0.3))
        assert {str(s.move) for s in result.scores} == {str(m) for m in board.legal_moves}
        assert result.depth >= 1


def _position_after(moves: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    while len(board.move_stack) < moves and not board.is_game_over():
        board.push(rng.choice(board.legal_moves))
    return board


def test_clock_budget_leaves_most_of_the_clock_and_lets_critical_moves_stretch() -> None:
    from tabletop.ai.reversi.levels import CLOCK_RESERVE, clock_budget

    for remaining, increment, empties in [(60.0, 0.0, 50), (5.0, 0.0, 30), (0.3, 0.0, 24), (2.0, 1.0, 40)]:
        target, hard = clock_budget(remaining, increment, empties)
        assert 0 < target <= hard <= max(0.005, CLOCK_RESERVE * remaining + 0.8 * increment)
        assert hard > target or hard == CLOCK_RESERVE * remaining + 0.8 * increment


def test_level_ten_never_exceeds_a_tight_match_clock() -> None:
    from tabletop.match import ClockSettings, Match, MatchError

    warm = level_player(10)  # the compiled searches and solver loaded outside the clock
    warm.choose(_position_after(20, 1), Limit(depth=3))
    warm.clock = (10.0, 0.0)
    warm.choose(_position_after(48, 1))
    match = Match(
        Board(), {Color.BLACK: "level:10", Color.WHITE: "level:10"}, clock=ClockSettings(initial=8.0)
    )
    match.start()
    moves = []
    while not match.is_over():
        color = match.board.turn
        left = match.clock.left(color) if match.clock else 0.0
        started = time.perf_counter()
        try:
            match.think()
        except MatchError:  # flagged between choosing and playing
            pytest.fail(f"{color} ran out of time: (ply, left, took) {moves}")
        moves.append((len(match.board.move_stack), round(left, 3), round(time.perf_counter() - started, 3)))
        assert not match.check_time(), f"{color} ran out of time: (ply, left, took) {moves}"
    assert match.clock is not None and min(match.clock.remaining) > 0
    assert max(took / left for _, left, took in moves) < 0.5, moves  # no move took half the time left


def test_on_a_clock_level_ten_solves_exactly_when_the_solve_fits_and_not_otherwise() -> None:
    from tabletop.ai.reversi.levels import clock_budget

    board = _position_after(48, 4)  # 12 empties: solved in milliseconds
    player = level_player(10)
    player.clock = (30.0, 0.0)
    assert player.search(board).exact
    board = _position_after(34, 4)  # 26 empties: far beyond a 0.2-second budget
    player.clock = (2.0, 0.0)
    _, hard = clock_budget(2.0, 0.0, 26)
    started = time.perf_counter()
    result = player.search(board)
    assert not result.exact and board.is_legal(board.move_at(result.best % 8, result.best // 8))
    assert time.perf_counter() - started < hard + 0.15


def test_a_changed_best_move_or_a_falling_score_marks_a_critical_position() -> None:
    from tabletop.ai.reversi.search import UNSTABLE_DROP, is_critical

    assert is_critical((19, 40), 26, 40)
    assert is_critical((19, 40), 19, 40 - UNSTABLE_DROP)
    assert not is_critical((19, 40), 19, 40 - UNSTABLE_DROP + 1)
    assert not is_critical((19, 40), 19, 90)


def test_a_stretched_target_never_passes_the_hard_limit() -> None:
    board = _position_after(24, 9)
    p, o = _sides(board)
    searcher = Searcher(8)
    searcher.search(p, o, depth=4)
    started = time.perf_counter()
    result = searcher.search(p, o, depth=60, seconds=1.0, target_seconds=0.05, selectivity=1.5)
    took = time.perf_counter() - started
    assert took < 1.1 and result.depth >= 1
