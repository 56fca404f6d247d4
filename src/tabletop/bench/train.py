"""The training runner's speed: Reversi self-play positions a second on 1 and 2 CPUs, local processes beside Ray.

Each figure is one run of the runner (:func:`tabletop.train.runner.run`) making ``--shards`` fresh
shards of ``--games`` self-play games at ``--depth`` / ``--exact`` (the data run's settings by
default) into a temporary folder: on :class:`LocalBackend` with 1 and 2 worker processes, and on
:class:`RayBackend` with a Ray cluster of 1 and 2 CPUs.  The Ray cluster is started in this process
(``ray.init(num_cpus=N)``) before the clock starts, as a cluster is running before a real run.  Two
rates a run: after as many shards as there are CPUs have come back (the positions of the later
shards over the time from that shard's arrival to the last's: every worker has started by then, so
this is the rate a long run keeps, the figure compared), and over the whole run (the workers'
start included: a local run starts fresh interpreters that load the engine's compiled kernels inside
the clock, where Ray has started its worker processes with the cluster, before it).  ``--ray ADDRESS`` measures an existing
cluster instead (whatever its size) in each row of Ray.  Ray starts its worker processes at nice 15
(its ``worker_niceness``), local workers run at the command's own: on a machine shared with other
work that favours the local figures.  Each figure is measured ``--repeat`` times, local and Ray
alternating, and the best kept.  Every configuration makes the same shards (the same seed), so the
figures differ only by the backend.  The ratio Ray / local is printed per CPU count (the aim: 0.9 or
more).  This module only measures and prints.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from tabletop.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shards", type=int, default=12, help="shards a figure (default 12)")
    parser.add_argument("--games", type=int, default=16, help="self-play games a shard (default 16)")
    parser.add_argument("--depth", type=int, default=4, help="search depth of the moves (default 4)")
    parser.add_argument("--exact", type=int, default=14, help="solved exactly from this many empties (default 14)")
    parser.add_argument("--cpus", default="1,2", help="CPU counts to measure, comma-separated (default 1,2)")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="measure the Ray cluster at ADDRESS (or auto) instead of starting one per CPU count")
    parser.add_argument("--repeat", type=int, default=2,
                        help="measure each figure this many times, local and Ray alternating, and keep the best (default 2)")
    parser.add_argument("--no-ray", action="store_true", help="local processes only")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def _measure(job: Any, shards: int, backend: Any, cpus: int) -> dict[str, float]:
    """One run of ``shards`` fresh shards: its seconds and positions, in all and after the first
    ``cpus`` shards."""
    from tabletop.train.reversi import decode
    from tabletop.train.runner import run

    arrivals: list[tuple[float, int]] = []

    def count(index: int, payload: bytes, new: bool) -> None:
        arrivals.append((time.perf_counter(), len(decode(payload, f"shard {index}")["outcome"])))

    with tempfile.TemporaryDirectory(prefix="tabletop-bench-train-") as folder:
        started = time.perf_counter()
        run(job, range(shards), Path(folder), backend, count)
        ended = time.perf_counter()
    positions = sum(n for _, n in arrivals)
    first = arrivals[cpus - 1][0]
    steady = sum(n for _, n in arrivals[cpus:]) / max(1e-9, arrivals[-1][0] - first)
    return {"seconds": ended - started, "positions": positions, "positions_per_second": steady,
            "with_start": positions / (ended - started)}


def run(args: argparse.Namespace) -> int:
    from tabletop.ai.reversi.train import GenConfig
    from tabletop.train.reversi import SelfPlay
    from tabletop.train.runner import LocalBackend

    try:
        cpus = [int(c) for c in str(args.cpus).split(",")]
    except ValueError:
        raise UsageError(f"--cpus takes whole numbers separated by commas, not {args.cpus!r}") from None
    if not cpus or min(cpus) < 1 or args.games < 1 or args.repeat < 1:
        raise UsageError("--cpus, --games and --repeat must be at least 1")
    if args.shards < 2 * max(cpus):
        raise UsageError(f"--shards must be at least twice the most CPUs ({2 * max(cpus)})")
    try:
        job = SelfPlay(GenConfig(seed=1, games=args.games, depth=args.depth, exact=args.exact))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    runs: list[dict[str, Any]] = []
    load = os.getloadavg()[0]
    for _ in range(args.repeat):
        for n in cpus:
            runs.append({"backend": "local", "cpus": n} | _measure(job, args.shards, LocalBackend(jobs=n), n))
            if not args.no_ray:
                runs.append({"backend": "ray", "cpus": n} | _ray_run(job, args.shards, n, args.ray))
    # the best of each figure's tries: the one least slowed by the machine's other work
    rows = []
    for backend in ("local", "ray"):
        for n in cpus:
            tries = [r for r in runs if r["backend"] == backend and r["cpus"] == n]
            if tries:
                best = max(tries, key=lambda r: r["positions_per_second"])
                rows.append(best | {"tries": [round(r["positions_per_second"]) for r in tries]})
    ratios = {}
    for n in cpus:
        local = next(r for r in rows if r["backend"] == "local" and r["cpus"] == n)
        ray_row = next((r for r in rows if r["backend"] == "ray" and r["cpus"] == n), None)
        if ray_row is not None:
            ratios[n] = ray_row["positions_per_second"] / local["positions_per_second"]
    if args.json:
        print(json.dumps({"rows": rows, "runs": runs, "ray_over_local": ratios, "load": load,
                          "settings": {"shards": args.shards, "games": args.games, "depth": args.depth,
                                       "exact": args.exact}}))
        return 0
    print(f"Reversi self-play through the runner: {args.shards} shards of {args.games} games, depth {args.depth}, "
          f"exact from {args.exact} empties; load average {load:.1f} at the start")
    print(f"{'backend':<8} {'cpus':>4} {'positions':>10} {'seconds':>8} {'positions/s':>12} {'with start':>11}  tries")
    for row in rows:
        print(f"{row['backend']:<8} {row['cpus']:>4} {row['positions']:>10,} {row['seconds']:>8.1f} "
              f"{row['positions_per_second']:>12,.0f} {row['with_start']:>11,.0f}  {row['tries']}")
    for n, ratio in ratios.items():
        print(f"Ray / local on {n} CPU{'s' if n > 1 else ''}: {ratio:.2f}")
    return 0


def _ray_run(job: Any, shards: int, cpus: int, address: str | None) -> dict[str, float]:
    """One run on a Ray cluster of ``cpus`` CPUs started here (or on the one at ``address``)."""
    from tabletop.train.runner import RayBackend

    ray = _ray()
    if address is None:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level="WARNING",
                 object_store_memory=100_000_000)
    else:
        ray.init(address=address, log_to_driver=False, logging_level="WARNING")
    try:
        return _measure(job, shards, RayBackend(), cpus)
    finally:
        ray.shutdown()


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("Ray is not installed (the extra tabletop[ray]); use --no-ray") from None
    return ray
