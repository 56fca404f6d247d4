"""The training runner's speed: Reversi self-play positions a second on 1 and 2 CPUs, local processes beside Ray.

Each figure is one run of the runner (:func:`tabletop.train.runner.run`) making ``--shards`` fresh
shards of ``--games`` self-play games at ``--depth`` / ``--exact`` (the data run's settings by
default) into a temporary folder: on :class:`LocalBackend` with 1 and 2 worker processes, and on
:class:`RayBackend` with a Ray cluster of 1 and 2 CPUs.  The Ray cluster is started in this process
(``ray.init(num_cpus=N)``) before the clock starts, as a cluster is running before a real run; the
clock then covers everything a run does, the workers' start (a fresh interpreter loading the
engine's compiled kernels) included, on both backends.  ``--ray ADDRESS`` measures an existing
cluster instead, at its size.  Every configuration makes the same shards (the same seed), so the
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
    parser.add_argument("--shards", type=int, default=8, help="shards a figure (default 8)")
    parser.add_argument("--games", type=int, default=16, help="self-play games a shard (default 16)")
    parser.add_argument("--depth", type=int, default=4, help="search depth of the moves (default 4)")
    parser.add_argument("--exact", type=int, default=14, help="solved exactly from this many empties (default 14)")
    parser.add_argument("--cpus", default="1,2", help="CPU counts to measure, comma-separated (default 1,2)")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="measure the Ray cluster at ADDRESS (or auto) instead of starting one per CPU count")
    parser.add_argument("--no-ray", action="store_true", help="local processes only")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def _measure(job: Any, shards: int, backend: Any) -> tuple[float, int]:
    """(seconds, positions) of one run of ``shards`` fresh shards."""
    from tabletop.train.reversi import decode
    from tabletop.train.runner import run

    positions = 0

    def count(index: int, payload: bytes, new: bool) -> None:
        nonlocal positions
        positions += len(decode(payload, f"shard {index}")["outcome"])

    with tempfile.TemporaryDirectory(prefix="tabletop-bench-train-") as folder:
        started = time.perf_counter()
        run(job, range(shards), Path(folder), backend, count)
        return time.perf_counter() - started, positions


def run(args: argparse.Namespace) -> int:
    from tabletop.ai.reversi.train import GenConfig
    from tabletop.train.reversi import SelfPlay
    from tabletop.train.runner import LocalBackend, RayBackend

    try:
        cpus = [int(c) for c in str(args.cpus).split(",")]
    except ValueError:
        raise UsageError(f"--cpus takes whole numbers separated by commas, not {args.cpus!r}") from None
    if not cpus or min(cpus) < 1 or args.shards < 1 or args.games < 1:
        raise UsageError("--cpus, --shards and --games must be at least 1")
    try:
        job = SelfPlay(GenConfig(seed=1, games=args.games, depth=args.depth, exact=args.exact))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    rows: list[dict[str, Any]] = []
    load = os.getloadavg()[0]
    for n in cpus:
        seconds, positions = _measure(job, args.shards, LocalBackend(jobs=n))
        rows.append({"backend": "local", "cpus": n, "seconds": seconds, "positions": positions})
        if args.no_ray:
            continue
        ray = _ray()
        if args.ray is None:
            ray.init(num_cpus=n, include_dashboard=False, log_to_driver=False, logging_level="WARNING",
                     object_store_memory=100_000_000)
        else:
            ray.init(address=args.ray, log_to_driver=False, logging_level="WARNING")
        try:
            size = int(ray.cluster_resources().get("CPU", 0))
            seconds, positions = _measure(job, args.shards, RayBackend())
        finally:
            ray.shutdown()
        rows.append({"backend": "ray", "cpus": size, "seconds": seconds, "positions": positions})
    for row in rows:
        row["positions_per_second"] = row["positions"] / row["seconds"]
    ratios = {}
    for n in cpus:
        local = next(r for r in rows if r["backend"] == "local" and r["cpus"] == n)
        ray_row = next((r for r in rows if r["backend"] == "ray" and r["cpus"] == n), None)
        if ray_row is not None:
            ratios[n] = ray_row["positions_per_second"] / local["positions_per_second"]
    if args.json:
        print(json.dumps({"rows": rows, "ray_over_local": ratios, "load": load,
                          "settings": {"shards": args.shards, "games": args.games, "depth": args.depth,
                                       "exact": args.exact}}))
        return 0
    print(f"Reversi self-play through the runner: {args.shards} shards of {args.games} games, depth {args.depth}, "
          f"exact from {args.exact} empties; load average {load:.1f} at the start")
    print(f"{'backend':<8} {'cpus':>4} {'positions':>10} {'seconds':>8} {'positions/s':>12}")
    for row in rows:
        print(f"{row['backend']:<8} {row['cpus']:>4} {row['positions']:>10,} {row['seconds']:>8.1f} "
              f"{row['positions_per_second']:>12,.0f}")
    for n, ratio in ratios.items():
        print(f"Ray / local on {n} CPU{'s' if n > 1 else ''}: {ratio:.2f}")
    return 0


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("Ray is not installed (the extra tabletop[ray]); use --no-ray") from None
    return ray
