"""Build the Reversi opening book from the engine's own searches (resumable).

    nice python scripts/build_reversi_book.py [--plies 12] [--depth 10] [--margin 3] [--positions 3000] [--jobs 2] [--ray auto|ADDRESS]

Breadth first from the start, ply by ply: every book position gets all its moves
searched (``--depth`` plies, the level-10 selectivity); its children that score within
``--margin`` discs of the best are expanded at the next ply, best lines first, until
``--plies`` or ``--positions`` expanded positions.  Positions are taken up to symmetry.
Then negamax backs the searched values up the tree, and every expanded position and
every searched child goes into ``src/tabletop/ai/reversi/book.npz`` (``--out``) as a
64-bit key and an int8 value.

The searches run through the training runner (:class:`tabletop.train.books.ReversiBookSearch`)
in ``--jobs`` local processes or on a Ray cluster (``--ray auto|ADDRESS``), each result a
checked shard in the folder beside ``--state`` (``state.shards/``, named by the position and
the search's settings).  Each expanded position is appended to ``--state`` (one JSON line)
as soon as it is searched, so an interrupted build picks up where it stopped when rerun with
the same options; delete the state file and its shards to start again (after the weights
change, say).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tabletop.ai.reversi.book import BOOK_FILE, Book, canonical, children, position_key
from tabletop.ai.reversi.eval import default_weights
from tabletop.ai.reversi.levels import LEVELS
from tabletop.train.books import ReversiBookSearch
from tabletop.train.runner import backend_from, run

START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))  # black e4 d5, white d4 e5


def _read_state(path: Path) -> dict[int, dict[str, object]]:
    done: dict[int, dict[str, object]] = {}
    if not path.exists():
        return done
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            done[position_key(int(row["p"]), int(row["o"]))] = row
        except (ValueError, KeyError, TypeError):
            if n < len(lines):
                raise ValueError(
                    f"{path}: line {n} is not a book state line; delete the file to start again"
                ) from None
            # a last line cut short by an interruption: dropped, its position searched again
            path.write_text("".join(f"{good}\n" for good in lines[:-1]))
    return done


def build(args: argparse.Namespace) -> Book:
    state_path: Path = args.state
    done = _read_state(state_path)
    if done:
        print(f"resuming: {len(done)} positions already searched in {state_path}", file=sys.stderr)
    state_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    frontier = [canonical(*START)]
    expanded = 0
    backend = backend_from(args.ray, args.jobs)
    with state_path.open("a") as state:
        for ply in range(args.plies):
            frontier = frontier[: max(0, args.positions - expanded)]
            if not frontier:
                break
            todo = [q for q in frontier if position_key(*q) not in done]
            searched = 0

            def keep(index: int, payload: bytes, new: bool, ply: int = ply, todo: list[tuple[int, int]] = todo) -> None:
                nonlocal searched
                row = json.loads(payload) | {"ply": ply}
                state.write(json.dumps(row) + "\n")
                state.flush()
                done[position_key(int(row["p"]), int(row["o"]))] = row
                searched += 1
                rate = searched / max(1e-9, time.perf_counter() - started)
                print(f"\rply {ply}: {searched}/{len(todo)} searched ({rate:.2f}/s)", end="", file=sys.stderr)

            job = ReversiBookSearch(args.depth, args.selectivity, tuple(todo))
            run(job, range(len(todo)), state_path.with_suffix(".shards"), backend, keep)
            expanded += len(frontier)
            # The next ply: children within the margin of their parent's best, the closest first.
            candidates: dict[int, tuple[float, tuple[int, int]]] = {}
            for p, o in frontier:
                scores = dict((int(sq), float(v)) for sq, v in done[position_key(p, o)]["scores"])  # type: ignore[union-attr]
                best = max(scores.values())
                for sq, cp, co in children(p, o):
                    gap = best - scores[sq]
                    if gap <= args.margin:
                        key = position_key(cp, co)
                        if key not in candidates or gap < candidates[key][0]:
                            candidates[key] = (gap, canonical(cp, co))
            frontier = [q for _, q in sorted(candidates.values())]
            print(f"\nply {ply}: {expanded} expanded, next ply {len(frontier)} candidates", file=sys.stderr)
    return _negamax(done)


def _negamax(done: dict[int, dict[str, object]]) -> Book:
    """Values of every expanded position (backed up) and every searched child."""
    leaf: dict[int, float] = {}
    for row in done.values():
        p, o = int(row["p"]), int(row["o"])  # type: ignore[call-overload]
        scores = {int(sq): float(v) for sq, v in row["scores"]}  # type: ignore[attr-defined]
        for sq, cp, co in children(p, o):
            leaf[position_key(cp, co)] = -scores[sq]
    memo: dict[int, float] = {}

    def value(p: int, o: int) -> float:
        key = position_key(p, o)
        if key in memo:
            return memo[key]
        if key not in done:
            return leaf[key]
        memo[key] = max(-value(cp, co) for _, cp, co in children(p, o))
        return memo[key]

    values = dict(leaf)
    for key, row in done.items():
        values[key] = value(int(row["p"]), int(row["o"]))  # type: ignore[call-overload]
    return Book.from_dict(values)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--plies", type=int, default=12, help="deepest ply expanded (default 12)")
    ap.add_argument("--depth", type=int, default=10, help="search depth of every move (default 10)")
    ap.add_argument(
        "--margin", type=float, default=3.0, help="discs from the best that a move is expanded (default 3)"
    )
    ap.add_argument("--positions", type=int, default=3000, help="most positions expanded (default 3000)")
    ap.add_argument(
        "--selectivity", type=float, default=LEVELS[10].selectivity, help="MPC cut in sigmas (0: none)"
    )
    ap.add_argument("--jobs", type=int, default=2, help="local worker processes (default 2; not with --ray)")
    ap.add_argument("--ray", metavar="auto|ADDRESS", default=None,
                    help="search on a Ray cluster: auto (the one started on this machine) or its address")
    ap.add_argument(
        "--state", type=Path, default=Path("build/reversi-book/state.jsonl"), help="resumable progress"
    )
    ap.add_argument("--out", type=Path, default=BOOK_FILE, help=f"the book (default {BOOK_FILE})")
    args = ap.parse_args(argv)
    for name in ("plies", "depth", "positions", "jobs"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if args.margin < 0 or args.selectivity < 0:
        ap.error("--margin and --selectivity must not be negative")
    if not args.out.parent.is_dir():
        ap.error(f"--out: no folder {args.out.parent}")
    default_weights()  # fail early on a broken weights file
    started = time.perf_counter()
    try:
        book = build(args)
    except ValueError as exc:
        print(f"build_reversi_book: {exc}", file=sys.stderr)
        return 1
    book.save(
        args.out,
        made_by=f"scripts/build_reversi_book.py --plies {args.plies} --depth {args.depth} --margin {args.margin} "
        f"--positions {args.positions} --selectivity {args.selectivity}",
    )
    size = args.out.stat().st_size
    print(
        f"{len(book)} positions, {size / 1024:.0f} KiB, {time.perf_counter() - started:.0f} s; book written to {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
