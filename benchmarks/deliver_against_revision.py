"""A room's broadcast handed to a connection, in this tree beside an earlier revision, in one process.

    .venv/bin/python benchmarks/deliver_against_revision.py REV [--rounds N]

Every event a server sends passes :meth:`tabletop.server.seats.Client.deliver` once per
connection; in this tree it also keeps the connection's event version (each event once, in
order).  This loads ``src/tabletop/server/seats.py`` as it is at git revision REV into a module
of its own, checks that both clients pass on the same broadcasts, and times them in
alternating rounds: 200,000 broadcasts of a move's two events to one client, whose ``send``
appends to a list as the socket's queue does.

It prints each side's best time per broadcast and the median of the paired ratios (this tree /
REV).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from tabletop.server import seats
from tabletop.server.bus import Broadcast

ROOT = Path(__file__).resolve().parents[1]
COUNT = 200_000


def module_at(rev: str, path: str, name: str, folder: Path) -> ModuleType:
    try:
        text = subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except subprocess.CalledProcessError as exc:
        sys.exit(f"deliver_against_revision: cannot read {path} at {rev!r}: {exc.stderr.strip()}")
    file = folder / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def broadcasts() -> list[Broadcast]:
    out = []
    for ply in range(COUNT):
        version = 2 * ply + 2
        frames = [
            {"type": "event", "version": version - 1, "event": {"kind": "move_played", "move": "f5"}},
            {"type": "event", "version": version, "event": {"kind": "turn_changed", "turn": "white"}},
        ]
        out.append(Broadcast("events", frames, version))
    return out


def run(module: Any, items: list[Broadcast]) -> tuple[float, int]:
    sent: list[Any] = []
    client = module.Client(sent.append)
    deliver = client.deliver
    began = time.perf_counter()
    for item in items:
        deliver(item)
    return time.perf_counter() - began, len(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    items = broadcasts()
    with tempfile.TemporaryDirectory() as folder:
        old = module_at(args.rev, "src/tabletop/server/seats.py", "seats_old", Path(folder))
        assert run(old, items)[1] == run(seats, items)[1] == COUNT, "both pass on every broadcast"
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(args.rounds):
            theirs.append(run(old, items)[0])
            ours.append(run(seats, items)[0])
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    print(f"Client.deliver, {COUNT:,} broadcasts of two events, {args.rounds} alternating rounds")
    print(f"  this tree: best {min(ours) / COUNT * 1e9:.0f} ns a broadcast")
    print(f"  {args.rev}: best {min(theirs) / COUNT * 1e9:.0f} ns a broadcast")
    print(f"  median paired ratio (this tree / {args.rev}): {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
