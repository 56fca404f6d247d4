"""``tabletop train reversi gen|fit``: make self-play training data, and fit the evaluation from it."""

from __future__ import annotations

import argparse
import math
import os
import signal
from pathlib import Path
from typing import Any

from tabletop.cli import CliError

POSITIONS_PER_GAME = 58  # about, for sizing a run from a number of positions


def register(sub: Any) -> None:
    parser = sub.add_parser("train", help="make training data and fit the Reversi evaluation")
    games = parser.add_subparsers(dest="train_game", metavar="GAME")
    reversi = games.add_parser("reversi", help="the Reversi pattern evaluation")
    steps = reversi.add_subparsers(dest="train_step", metavar="STEP")

    gen = steps.add_parser("gen", help="self-play games into compressed shards (resumable: finished shards are kept)")
    gen.add_argument("--dir", type=Path, required=True, help="directory of the shards")
    gen.add_argument("--positions", type=int, default=1_200_000, help="about how many positions to make")
    gen.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                     help="local worker processes (default: every core; not used with --ray)")
    gen.add_argument("--ray", metavar="auto|ADDRESS", default=None,
                     help="make the shards on a Ray cluster: auto (the one started on this machine) or its "
                          "address (needs the extra tabletop[ray]; see README)")
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--games-per-shard", type=int, default=64)
    gen.add_argument("--depth", type=int, default=6, help="search depth of the self-play moves")
    gen.add_argument("--exact", type=int, default=16, help="solve exactly from this many empties")
    gen.add_argument("--random-min", type=int, default=2, help="fewest random opening plies of a game")
    gen.add_argument("--random-max", type=int, default=24, help="most random opening plies of a game")
    gen.set_defaults(func=_gen)

    fit = steps.add_parser("fit", help="fit the evaluation from the shards, validation error printed per phase")
    fit.add_argument("--dir", type=Path, required=True, help="directory of the shards")
    fit.add_argument("--out", type=Path, required=True, help="the weights file to write (.npz)")
    fit.add_argument("--ridge", type=float, default=3.0, help="L2 penalty per weight (in squared discs)")
    fit.add_argument("--iterations", type=int, default=60, help="conjugate-gradient iterations per phase")
    fit.add_argument("--holdout", type=float, default=0.05, help="share of the games held out for validation")
    fit.add_argument("--label", choices=("outcome", "score", "mix"), default="mix",
                     help="what the fit predicts: the game's outcome, the search score, or their mean")
    fit.add_argument("--phases", type=int, default=12,
                     help="game phases of the table, each its own weights (a divisor of 60: 12 is 5 empties a phase)")
    fit.set_defaults(func=_fit)
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _gen(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from tabletop.ai.reversi.train import GenConfig
    from tabletop.train.reversi import generate
    from tabletop.train.runner import backend_from

    if args.positions < 1:
        raise CliError(f"--positions must be at least 1, not {args.positions}")
    try:
        config = GenConfig(seed=args.seed, games=args.games_per_shard, depth=args.depth, exact=args.exact,
                           random_min=args.random_min, random_max=args.random_max)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.jobs < 1:
        raise CliError(f"--jobs must be at least 1, not {args.jobs}")
    backend = backend_from(args.ray, args.jobs)
    shards = math.ceil(args.positions / (config.games * POSITIONS_PER_GAME))
    done = {"positions": 0, "new": 0}
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} shards"),
               TextColumn("{task.fields[positions]:,} positions, {task.fields[rate]} positions/s"),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns) as progress:
        task = progress.add_task("self-play", total=shards, positions=0, rate="-")

        def on_shard(index: int, positions: int, new: bool) -> None:
            done["positions"] += positions
            if new:
                done["new"] += positions
            elapsed = progress.tasks[task].elapsed or 0.0
            rate = f"{done['new'] / elapsed:,.0f}" if elapsed > 0 and done["new"] else "-"
            progress.update(task, advance=1, positions=done["positions"], rate=rate)

        previous = signal.signal(signal.SIGTERM, _interrupt)  # a kill stops the workers too
        try:
            report = generate(args.dir, config, shards, backend, on_shard)
        finally:
            signal.signal(signal.SIGTERM, previous)
    for message in report.broken:
        print(f"made again: {message}")
    print(f"{shards} shards, {done['positions']:,} positions in {args.dir} ({done['new']:,} made now)")
    return 0


def _fit(args: argparse.Namespace) -> int:
    from tabletop.ai.reversi.fit import FitConfig
    from tabletop.train.reversi import fit_directory

    try:
        config = FitConfig(ridge=args.ridge, iterations=args.iterations, holdout=args.holdout, label=args.label,
                           phases=args.phases)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    fit_directory(args.dir, args.out, config, print)  # a bad shard: ShardError, one line
    return 0
