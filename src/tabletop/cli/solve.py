"""``tabletop solve POSITION_OR_FILE.obf [--json]``: solve Reversi endgames exactly.

Each OBF line (64 squares of ``-XO`` from a1 on the top-left, row by row, then
the side to move, then optional ``MOVE:SCORE;`` annotations) is solved with the
engine's exact solver; the result is printed with the annotation's best score,
if any, so a test file checks itself.  A malformed line is reported by its
number and the others are still solved; the exit status is 2 if any failed.
This module reads arguments and prints; the lines are read by :func:`tabletop.records.obf.parse_obf_line`
and solved by :mod:`tabletop.ai.reversi.search`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tabletop.records.obf import parse_obf_line

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    p = sub.add_parser("solve", help="solve Reversi endgame positions (OBF) exactly")
    p.add_argument("source", metavar="POSITION_OR_FILE", help="an .obf file, or one OBF line in quotes")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    p.add_argument("--tt-mb", type=float, default=64.0, help="transposition table size in MB (default 64)")
    p.set_defaults(func=run)


def _lines(source: str) -> list[tuple[int, str]]:
    path = Path(source)
    if path.suffix.lower() == ".obf" or (path.exists() and not path.is_dir()):
        try:
            content = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read {source}: {exc.strerror or exc}") from None
        return [
            (n, ln)
            for n, ln in enumerate(content.splitlines(), 1)
            if ln.strip() and ln.lstrip()[0] not in "%#"
        ]
    return [(1, source)]


def run(args: argparse.Namespace) -> int:
    from tabletop.ai.reversi.search import Searcher, square_name

    if not args.tt_mb > 0:
        raise ValueError(f"--tt-mb must be positive, not {args.tt_mb}")
    searcher = Searcher(args.tt_mb)
    failed = 0
    for number, line in _lines(args.source):
        try:
            pos = parse_obf_line(line)
            player, opponent = pos.sides()
            if searcher.is_over(player, opponent):
                score, best, nodes, seconds = searcher.final_score(player, opponent), [], 0, 0.0
            else:
                result = searcher.solve(player, opponent)
                score, best = int(result.score), [square_name(result.best)]
                nodes, seconds = result.nodes, result.seconds
        except ValueError as exc:
            print(f"tabletop: error: line {number}: {exc}", file=sys.stderr)
            failed += 1
            continue
        expected = pos.expected_score
        if args.json:
            record = {
                "position": pos.text,
                "best_moves": best,
                "score": score,
                "nodes": nodes,
                "seconds": round(seconds, 4),
                "expected_score": expected,
            }
            print(json.dumps(record), flush=True)
        else:
            verdict = ""
            if expected is not None:
                good = score == expected and all(pos.annotations.get(m) == expected for m in best)
                verdict = f"  expected {expected:+d} {'ok' if good else 'MISMATCH'}"
            moves = " ".join(best) or "(game over)"
            print(
                f"{number:>3}  {moves:<6} {score:+3d}  {nodes:>12,} nodes  {seconds:8.3f}s{verdict}",
                flush=True,
            )
    return 2 if failed else 0
