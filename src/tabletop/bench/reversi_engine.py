"""Reversi engine figures: kernel perft speed, search speed, pattern reading against its definition, FFO #40-#44
solve times, peak memory, level ladder.

``tabletop bench reversi`` (the rules benchmark in :mod:`tabletop.bench.reversi`)
ends by calling :func:`run_engine_bench`.  The same figures, plus the level
ladder, come from ``python -m tabletop.bench.reversi_engine`` with its own
options (``--tt-mb``, ``--ladder GAMES``, ``--levels``).

This module only measures; it must not change the engine's settings.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from tabletop.ai.reversi.kernel import feature_indices, feature_indices_by_squares
from tabletop.bench import peak_rss_mb

__all__ = ["add_engine_arguments", "ffo_40_44", "ladder", "main", "run_engine_bench"]

START_BLACK = (1 << 28) | (1 << 35)
START_WHITE = (1 << 27) | (1 << 36)


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The engine's own options (for a parser that wants them)."""
    parser.add_argument(
        "--tt-mb", type=float, default=64.0, help="transposition table size in MB (default 64)"
    )
    parser.add_argument("--perft-depth", type=int, default=11, help="kernel perft depth (default 11)")
    parser.add_argument(
        "--search-depth", type=int, default=9, help="midgame search depth for nodes/s (default 9)"
    )
    parser.add_argument("--no-ffo", action="store_true", help="skip the FFO #40-#44 solves")
    parser.add_argument(
        "--ffo-against", type=Path, metavar="WEIGHTS",
        help="solve FFO #40-#44 in this process with the weights table WEIGHTS (a weights.npz, such as an "
        "earlier commit's) too, each position in turns, and print the ratio of nodes and seconds to it",
    )
    parser.add_argument(
        "--ladder", type=int, default=0, metavar="GAMES", help="play the level ladder, GAMES per pair"
    )
    parser.add_argument("--levels", default="1-10", help="ladder levels, like 1-6 (default 1-10)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the ladder's openings (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def ffo_40_44() -> list[str]:
    """The OBF lines of FFO #40-#44 shipped with the engine."""
    text = resources.files("tabletop.ai.reversi").joinpath("ffo_40_44.json").read_text(encoding="utf-8")
    lines = json.loads(text)["lines"]
    assert isinstance(lines, list)
    return [str(x) for x in lines]


def perft_figure(depth: int) -> dict[str, Any]:
    from tabletop.ai.reversi import kernel

    kernel.perft(START_BLACK, START_WHITE, 3)  # load the compiled code first
    started = time.perf_counter()
    leaves = kernel.perft(START_BLACK, START_WHITE, depth)
    seconds = time.perf_counter() - started
    return {
        "depth": depth,
        "leaves": leaves,
        "seconds": round(seconds, 3),
        "leaves_per_second": round(leaves / seconds),
    }


def search_figure(tt_mb: float, depth: int = 9) -> dict[str, Any]:
    """Midgame nodes per second over a few fixed openings searched to ``depth``."""
    from tabletop.ai.reversi.search import Searcher
    from tabletop.games.core import Color
    from tabletop.games.reversi import Board

    rng = random.Random(3)
    searcher = Searcher(tt_mb)
    nodes = 0
    seconds = 0.0
    for _ in range(4):
        board = Board()
        for _ in range(12):
            board.push(rng.choice(board.legal_moves))
        black, white = board.bitboards()
        p, o = (black, white) if board.turn is Color.BLACK else (white, black)
        searcher.clear()
        result = searcher.search(p, o, depth=depth)
        nodes += result.nodes
        seconds += result.seconds
    return {
        "depth": depth,
        "positions": 4,
        "nodes": nodes,
        "seconds": round(seconds, 3),
        "nodes_per_second": round(nodes / seconds),
    }


@njit(cache=True)
def _read_all(ps: np.ndarray, os_: np.ndarray, out: np.ndarray, by_squares: bool) -> int:
    # Every position's pattern indices, by the byte tables or by the definition; their sum.
    total = 0
    for i in range(ps.shape[0]):
        if by_squares:
            feature_indices_by_squares(ps[i], os_[i], out)
        else:
            feature_indices(ps[i], os_[i], out)
        total += out.sum()
    return total


def eval_figure(positions: int = 20_000, repeat: int = 5, seed: int = 1) -> dict[str, Any]:
    """Pattern reading (byte tables over four board views) against the square-by-square
    definition in the same process, on the same random positions; both must agree."""
    from tabletop.ai.reversi import kernel

    rng = random.Random(seed)
    ps = np.zeros(positions, dtype=np.uint64)
    os_ = np.zeros(positions, dtype=np.uint64)
    for i in range(positions):
        p = o = 0
        for sq in rng.sample(range(64), rng.randint(8, 64)):
            if rng.random() < 0.5:
                p |= 1 << sq
            else:
                o |= 1 << sq
        ps[i], os_[i] = p, o

    out = np.zeros(kernel.PATTERN_SQUARES.shape[0], dtype=np.int64)
    times: dict[str, float] = {}
    sums: dict[str, int] = {}
    for name, by_squares in (("bytes", False), ("squares", True)):
        _read_all(ps[:2], os_[:2], out, by_squares)  # load the compiled code first
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            sums[name] = _read_all(ps, os_, out, by_squares)
            best = min(best, time.perf_counter() - started)
        times[name] = best
    if sums["bytes"] != sums["squares"]:
        raise RuntimeError("the byte-table pattern reading disagrees with the square-by-square one")
    return {
        "positions": positions,
        "ns_bytes": round(times["bytes"] / positions * 1e9, 1),
        "ns_squares": round(times["squares"] / positions * 1e9, 1),
        "ratio": round(times["squares"] / times["bytes"], 2),
    }


def _warm_solver(searcher: Any, sides: tuple[int, int]) -> None:
    """Load the compiled solver before timing: play #40 on (first legal move) to 12 empties, solve that."""
    from tabletop.ai.reversi import kernel

    p, o = sides
    while 64 - (p | o).bit_count() > 12:
        moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
        if moves:
            sq = (moves & -moves).bit_length() - 1
            f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p ^ f ^ (1 << sq)
        elif int(kernel.get_moves(np.uint64(o), np.uint64(p))):
            p, o = o, p
        else:
            return  # the game ended early: nothing to warm with
    searcher.solve(p, o)
    searcher.clear()


def ffo_figure(tt_mb: float, against: np.ndarray | None = None) -> dict[str, Any]:
    """FFO #40-#44 solved with the shipped weights; with ``against`` (a weights table) each position
    is solved with that table too, just before, and the totals' ratios are given (the solver's move
    ordering reads the evaluation, so the table changes its nodes and time)."""
    from tabletop.ai.reversi.search import Searcher, square_name
    from tabletop.records.obf import parse_obf_line

    searchers = {"shipped": Searcher(tt_mb)}
    if against is not None:
        searchers = {"reference": Searcher(tt_mb, weights=against), **searchers}
    for searcher in searchers.values():
        _warm_solver(searcher, parse_obf_line(ffo_40_44()[0]).sides())
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in searchers}
    for number, line in enumerate(ffo_40_44(), 40):
        pos = parse_obf_line(line)
        for name, searcher in searchers.items():
            searcher.clear()  # each solve starts from empty tables, as a fresh engine would
            result = searcher.solve(*pos.sides())
            rows[name].append(
                {
                    "ffo": number,
                    "best": square_name(result.best),
                    "score": int(result.score),
                    "expected": pos.expected_score,
                    "exact": int(result.score) == pos.expected_score,
                    "nodes": result.nodes,
                    "seconds": round(result.seconds, 2),
                }
            )

    def totals(name: str) -> dict[str, Any]:
        return {"positions": rows[name], "total_seconds": round(sum(r["seconds"] for r in rows[name]), 2),
                "total_nodes": sum(r["nodes"] for r in rows[name])}

    figure = totals("shipped")
    if against is not None:
        reference = totals("reference")
        figure["reference"] = reference
        figure["seconds_ratio"] = round(figure["total_seconds"] / max(reference["total_seconds"], 0.01), 3)
        figure["nodes_ratio"] = round(figure["total_nodes"] / reference["total_nodes"], 3)
    return figure


def _reference_weights(path: Path) -> np.ndarray:
    """The table of ``--ffo-against``, or a ValueError naming what is wrong with the file."""
    from tabletop.ai.reversi.eval import read_weights

    try:
        return read_weights(path)
    except ValueError as exc:
        raise ValueError(f"--ffo-against {exc}") from None


def _play(a: Any, b: Any, opening: list[int]) -> int:
    """Disc difference for the Black seat ``a`` from the opening (move indices into legal lists)."""
    from tabletop.games.core import Color
    from tabletop.games.reversi import Board

    board = Board()
    for index in opening:
        legal = board.legal_moves
        board.push(legal[index % len(legal)])
    seats = {Color.BLACK: a, Color.WHITE: b}
    while not board.is_game_over():
        board.push(seats[board.turn].choose(board))
    black, white = board.discs()
    return black - white


def ladder(levels: list[int], games: int, seed: int = 1) -> list[dict[str, Any]]:
    """Each level against the one below, ``games`` games per pair, colours alternating per opening."""
    from tabletop.ai.reversi import level_player

    rng = random.Random(seed)
    rows = []
    for low, high in zip(levels, levels[1:]):
        strong, weak = (
            level_player(high, seed=rng.randrange(1 << 30)),
            level_player(low, seed=rng.randrange(1 << 30)),
        )
        points = 0.0
        started = time.perf_counter()
        for g in range(games):
            if g % 2 == 0:
                opening = [
                    rng.randrange(64) for _ in range(4)
                ]  # a random 4-ply opening, played with both colours
                diff = _play(strong, weak, opening)
            else:
                diff = -_play(weak, strong, opening)
            points += 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        rows.append(
            {
                "higher": high,
                "lower": low,
                "games": games,
                "score": round(points / games, 3),
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def _levels(text: str) -> list[int]:
    low, _, high = text.partition("-")
    try:
        a, b = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"--levels {text!r}: expected like 1-10") from None
    if not 1 <= a < b <= 10:
        raise ValueError(f"--levels {text!r}: two levels within 1..10, low first")
    return list(range(a, b + 1))


def run_engine_bench(args: argparse.Namespace) -> int:
    """Print the engine figures (called by ``tabletop bench reversi``)."""
    tt_mb = float(getattr(args, "tt_mb", 64.0))
    if not tt_mb > 0:
        raise ValueError(f"--tt-mb must be positive, not {tt_mb}")
    games = int(getattr(args, "ladder", 0) or 0)
    levels = (
        _levels(str(getattr(args, "levels", "1-10"))) if games else []
    )  # refuse bad levels before measuring
    against_path = getattr(args, "ffo_against", None)
    if against_path is not None and getattr(args, "no_ffo", False):
        raise ValueError("--ffo-against needs the FFO solves: leave out --no-ffo")
    against = _reference_weights(Path(against_path)) if against_path is not None else None  # refused before measuring
    results: dict[str, Any] = {"tt_mb": tt_mb}
    results["perft"] = perft_figure(int(getattr(args, "perft_depth", 11)))
    results["search"] = search_figure(tt_mb, int(getattr(args, "search_depth", 9)))
    results["patterns"] = eval_figure()
    if not getattr(args, "no_ffo", False):
        results["ffo_40_44"] = ffo_figure(tt_mb, against)
    if games:
        results["ladder"] = ladder(levels, games, int(getattr(args, "seed", 1)))
    results["peak_memory_mb"] = round(peak_rss_mb(), 1)
    if getattr(args, "json", False):
        print(json.dumps(results))
        return 0
    p = results["perft"]
    print(
        f"engine perft({p['depth']}): {p['leaves']:,} leaves in {p['seconds']}s = {p['leaves_per_second'] / 1e6:.1f}M leaves/s"
    )
    s = results["search"]
    print(
        f"engine search: depth {s['depth']} from 4 openings, {s['nodes']:,} nodes in {s['seconds']}s = {s['nodes_per_second'] / 1e6:.2f}M nodes/s"
    )
    e = results["patterns"]
    print(
        f"engine pattern reading: {e['ns_bytes']} ns a position "
        f"(reference, square by square: {e['ns_squares']} ns; {e['ratio']}x), {e['positions']:,} positions"
    )
    if "ffo_40_44" in results:
        for row in results["ffo_40_44"]["positions"]:
            mark = "ok" if row["exact"] else f"WRONG (expected {row['expected']:+d})"
            print(
                f"FFO #{row['ffo']}: {row['best']} {row['score']:+d} {mark}  {row['nodes']:,} nodes  {row['seconds']}s"
            )
        ffo = results["ffo_40_44"]
        print(f"FFO #40-#44 total: {ffo['total_seconds']}s, {ffo['total_nodes']:,} nodes")
        if "reference" in ffo:
            ref = ffo["reference"]
            wrong = [row["ffo"] for row in ref["positions"] if not row["exact"]]
            print(
                f"FFO #40-#44 with {against_path}: {ref['total_seconds']}s, {ref['total_nodes']:,} nodes"
                f"{'' if not wrong else f' (WRONG on {wrong})'}; shipped / reference: "
                f"{ffo['seconds_ratio']}x the seconds, {ffo['nodes_ratio']}x the nodes"
            )
    for row in results.get("ladder", []):
        print(
            f"level {row['higher']} vs level {row['lower']}: {row['score']:.0%} over {row['games']} games ({row['seconds']}s)"
        )
    print(f"peak memory: {results['peak_memory_mb']} MB (table {tt_mb:g} MB)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop.bench.reversi_engine", description=__doc__)
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_engine_bench(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
