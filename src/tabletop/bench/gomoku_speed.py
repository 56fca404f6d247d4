"""Search speed beside an outside Gomocup engine (Rapfi) on the same middle-game positions.

Run: ``tabletop bench gomoku --vs .bench-envs/rapfi.sh --speed --think 1`` (the README's "Sparring
against Rapfi" builds it).  For each position of ``tabletop/data/gomoku-middle-games.json`` (20
freestyle, 20 renju, taken from our own level-10 games) it

- runs level 10's main search (the alpha-beta :class:`~tabletop.ai.gomoku.search.Searcher` with
  level 10's width, pruning, four rule and table size) for the given seconds on a fresh table, and
  notes when each depth was completed, the search's nodes and the threat-solver nodes it spent
  inside;
- sends the same position to the engine through our Gomocup manager, as ``tabletop match`` does
  (``INFO rule``, ``START 15``, ``INFO timeout_turn`` of those seconds, ``BOARD``), a fresh engine
  process per position, and reads the engine's own report from its ``MESSAGE`` lines: Rapfi prints
  ``Depth D-SEL | Eval E | Time Tms | PV`` for each completed depth and ``Speed S | Depth D-SEL |
  Eval E | Node N | Time T`` at the end.

It prints one row per position and a summary per rule: nodes a second and the time each side took
to complete depth 4, 6, 8 and 10.  Nodes a second are given by the clock and by the processor time
the search got (ours: this process's; the engine's: its process's once it has ended, less what it
takes to start): on a shared machine the second is the one to compare, the share of the processor
each side got is printed beside it, and the times to a depth are by the clock.  The depths are each engine's own nominal depth: ours counts
plies (even depths only, fours cost a ply at level 10); Rapfi's counts plies less its reductions
and extensions, so equal numbers are not equal trees.  Nodes are not equal work either: one of
Rapfi's nodes is a move made with its incremental evaluation, one of ours a node of the numba
search (the threat-solver nodes shown apart).

``python -m tabletop.bench.gomoku_speed --make-positions``, run in the repository's root, writes the
positions file again from the match logs named in ``SOURCES`` (deterministic: the games in the order
of their numbers, those of at least 30 plies, the position after ply 20 + number mod 5).  The
positions come from our own engine's games only, never from the engine measured against.  This
module only measures; it plays no game and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop.ai.base import Limit
from tabletop.errors import UsageError
from tabletop.games import new_board
from tabletop.games.core import BaseBoard

POSITIONS = Path(__file__).resolve().parent.parent / "data" / "gomoku-middle-games.json"
SOURCES = {
    # level 10 (d28dcb0, the renju every-move VCT check) against level 10 of 618f311, 1 s a move
    "freestyle": "benchmarks/logs/gomoku-l10-safety-vct4-vs-618f311-think1-freestyle.jsonl",
    "renju": "benchmarks/logs/gomoku-l10-safety-vct4-vs-618f311-think1-seed33-renju.jsonl",
}
PER_RULE = 20
MIN_PLIES = 30
DEPTHS = (4, 6, 8, 10)

DEPTH_LINE = re.compile(r"^MESSAGE Depth (\d+)-(\d+) \| Eval (\S+) \| Time (\d+)(ms|s|min)\b")
END_LINE = re.compile(r"^MESSAGE Speed (\d+)([KM]?) \| Depth (\d+)-(\d+) \| Eval (\S+) \| Node (\d+)([KMGT]?) \| "
                      r"Time (\d+)(ms|s|min)\b")
UNITS = {"": 1, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000, "T": 1_000_000_000_000}
MILLISECONDS = {"ms": 1, "s": 1_000, "min": 60_000}


def make_positions(root: Path) -> dict[str, Any]:
    """The positions file's content, built from the logs of ``SOURCES`` under the repository ``root``."""
    positions: dict[str, list[list[str]]] = {}
    for rule, log in SOURCES.items():
        rows = [json.loads(line) for line in (root / log).read_text().splitlines() if line.strip()]
        rows.sort(key=lambda row: row["spec"]["number"])
        chosen: list[list[str]] = []
        for row in rows:
            line = row["result"]["line"]
            if len(line) >= MIN_PLIES:
                chosen.append(list(line[:20 + row["spec"]["number"] % 5]))
            if len(chosen) == PER_RULE:
                break
        positions[rule] = chosen
    return {
        "source": "middle-game positions of level-10 games of this project (tabletop match logs: "
                  + ", ".join(f"{rule} {log}" for rule, log in SOURCES.items())
                  + f"): the games by number with at least {MIN_PLIES} plies, the moves up to ply 20 + number mod 5;"
                  " written by python -m tabletop.bench.gomoku_speed --make-positions",
        "positions": positions,
    }


@dataclass
class Side:
    """One side's search of one position: its nodes, time and the milliseconds each depth was completed."""

    nodes: int = 0
    threat_nodes: int = 0
    milliseconds: float = 0.0
    depth: int = 0
    selective_depth: int = 0
    reached: dict[int, float] = field(default_factory=dict)  # depth -> ms when it was completed
    move: str = ""
    score: str = ""  # the engine's own evaluation for the side to move ("-M34": mated in 34), as it prints it
    cpu_seconds: float = 0.0  # the processor time the search got (the machine may be shared)

    @property
    def nodes_per_second(self) -> float:
        return 1000 * self.nodes / self.milliseconds if self.milliseconds else 0.0

    @property
    def nodes_per_cpu_second(self) -> float:
        return self.nodes / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def all_nodes_per_cpu_second(self) -> float:
        """With the threat solver's nodes inside the search (ours; the engine's count is one)."""
        return (self.nodes + self.threat_nodes) / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def cpu_share(self) -> float:
        return 1000 * self.cpu_seconds / self.milliseconds if self.milliseconds else 0.0


def replay(rule: str, moves: list[str]) -> BaseBoard:
    board = new_board("gomoku", {"rule": rule})
    for text in moves:
        board.push(board.parse_move(text))
    return board


def ours(board: BaseBoard, seconds: float) -> Side:
    """Level 10's main search on ``board`` for ``seconds``, on a fresh table."""
    from tabletop.ai.gomoku import LEVELS, Position
    from tabletop.ai.gomoku import engine as engine_module
    from tabletop.ai.gomoku.search import Searcher, SearchResult

    settings = LEVELS[10]
    side = Side()
    pos = Position.from_board(board)
    cpu = time.process_time()
    started = time.perf_counter()

    def completed(result: SearchResult) -> None:
        side.reached[result.depth] = 1000 * (time.perf_counter() - started)

    searcher = Searcher(pos, deadline=started + seconds, width=settings.width, tt_entries=engine_module.TT_ENTRIES,
                        pruning=True, extend_fours=settings.extend_fours, taper=settings.taper,
                        taper2=settings.taper2, on_depth=completed)
    result = searcher.search()
    side.milliseconds = 1000 * (time.perf_counter() - started)
    side.cpu_seconds = time.process_time() - cpu
    side.nodes = result.nodes
    side.threat_nodes = result.threat_nodes
    side.depth = result.depth
    side.move = str(pos.to_move(board, result.best)) if result.best else ""
    return side


def children_cpu() -> float:
    """The processor seconds of this process's ended and waited-for children."""
    times = os.times()
    return times.children_user + times.children_system


def start_cpu(command: str) -> float:
    """The engine's processor seconds to start, take START 15 and end (the least of three runs): taken
    off its searches' processor time, so that its nodes a processor second count the search only."""
    runs = []
    for _ in range(3):
        before = children_cpu()
        subprocess.run(shlex.split(command), input="START 15\r\nEND\r\n", text=True, capture_output=True,
                       timeout=60, check=False)
        runs.append(children_cpu() - before)
    return min(runs)


def theirs(command: str, board: BaseBoard, seconds: float, start_seconds: float) -> Side:
    """The engine's search of ``board`` given ``seconds`` a turn, from its own MESSAGE report, in a fresh
    process (a fresh table).  Rapfi's ``YXSHOWINFO`` asks it for its line per completed depth."""
    from tabletop.protocols.gomocup import GomocupPlayer

    side = Side()
    before = children_cpu()
    with GomocupPlayer(command, start_lines=("YXSHOWINFO",)) as engine:
        side.move = str(engine.choose(board, Limit(seconds=seconds)))
        notes = list(engine.notes)
    side.cpu_seconds = max(0.0, children_cpu() - before - start_seconds)  # the process is waited for on close
    reported = False
    for note in notes:
        m = DEPTH_LINE.match(note)
        if m:
            depth, sel, _, amount, unit = m.groups()
            side.reached.setdefault(int(depth), float(int(amount) * MILLISECONDS[unit]))  # a re-search prints it again
            continue
        m = END_LINE.match(note)
        if m:
            _, _, depth, sel, score, nodes, nodes_unit, amount, unit = m.groups()
            side.depth, side.selective_depth, side.score = int(depth), int(sel), score
            side.nodes = int(nodes) * UNITS[nodes_unit]
            side.milliseconds = float(int(amount) * MILLISECONDS[unit])
            reported = True
    if not reported:
        raise SystemExit(f"the engine printed no 'MESSAGE Speed ... | Node ... | Time ...' line; its messages: {notes}")
    return side


def cell(side: Side, depth: int) -> str:
    ms = side.reached.get(depth)
    return "-" if ms is None else f"{ms:.0f}"


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def show(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def summarise(rule: str, rows: list[tuple[int, Side, Side]], seconds: float) -> dict[str, Any]:
    """Medians over a rule's positions; the times to a depth over the positions that completed it."""
    out: dict[str, Any] = {"rule": rule, "positions": len(rows)}
    for name, sides in (("ours", [row[1] for row in rows]), ("theirs", [row[2] for row in rows])):
        # speeds over the searches that used at least half their time: one that stopped early (a mate
        # found in a few milliseconds) is mostly start-up and protocol
        full = [s for s in sides if s.milliseconds >= 500 * seconds]
        out[f"{name}_full_searches"] = len(full)
        out[f"{name}_knps"] = median([s.nodes_per_second / 1000 for s in full])
        out[f"{name}_knps_cpu"] = median([s.nodes_per_cpu_second / 1000 for s in full])
        out[f"{name}_all_knps_cpu"] = median([s.all_nodes_per_cpu_second / 1000 for s in full])
        out[f"{name}_cpu_share"] = median([s.cpu_share for s in full])
        out[f"{name}_depth"] = median([float(s.depth) for s in full])
        for depth in DEPTHS:
            times = [s.reached[depth] for s in sides if depth in s.reached]
            out[f"{name}_ms_d{depth}"] = median(times)
            out[f"{name}_reached_d{depth}"] = len(times)
    out["ours_threat_knps"] = median([row[1].threat_nodes / row[1].milliseconds for row in rows
                                      if row[1].milliseconds])
    return out


def position_row(index: int, plies: int, us: Side, them: Side | None, seconds: float, turn_ms: float,
                 turn_depth: int) -> list[str]:
    """One position's cells; the processor figures only for a search that used at least half its time."""
    cells = [str(index), str(plies)]
    for side in (us, them):
        if side is None:
            continue
        full = side.milliseconds >= 500 * seconds
        cells += [f"{side.nodes_per_second / 1000:.0f}", f"{side.nodes_per_cpu_second / 1000:.0f}" if full else "-",
                  f"{100 * side.cpu_share:.0f}" if full else "-"]
        if side is us:
            cells += [f"{us.threat_nodes / us.milliseconds:.0f}" if us.milliseconds else "-", str(us.depth)]
        else:
            cells += [f"{side.depth}-{side.selective_depth}"]
        cells += [cell(side, d) for d in DEPTHS] + [f"{side.milliseconds:.0f}"]
        if side is us:
            cells += [f"{turn_ms:.0f}", str(turn_depth)]
    return [*cells, us.move + (f" / {them.move}" if them is not None else "")]


def print_table(head: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |", flush=True)


def load_positions() -> dict[str, list[list[str]]]:
    """The stored middle-game positions: a rule's name -> the moves of each position."""
    positions: dict[str, list[list[str]]] = json.loads(POSITIONS.read_text())["positions"]
    return positions


def turn(board: BaseBoard, seconds: float) -> tuple[float, int]:
    """Level 10's whole turn on ``board`` given ``seconds`` (threat solvers, search, safety check, as
    in a game but without the opening book): the milliseconds it took and the depth its search completed."""
    from tabletop.ai.gomoku import LEVELS
    from tabletop.ai.gomoku.engine import GomokuEngine

    started = time.perf_counter()
    analysis = GomokuEngine(LEVELS[10]).analyse(board, Limit(seconds=seconds))
    return 1000 * (time.perf_counter() - started), analysis.depth


def side_by_side(command: str | None, seconds: float, rules: list[str], count: int = PER_RULE,
                 as_json: bool = False) -> dict[str, Any]:
    """Measure each rule's stored positions: level 10's main search and, with ``command``, the engine's
    own report beside it, and level 10's whole turn at the same seconds.  Prints the tables (or, with
    ``as_json``, nothing) and returns every figure."""
    if not seconds > 0:
        raise UsageError(f"the seconds a position must be positive, not {seconds}")
    if count < 1:
        raise UsageError(f"the positions a rule must be at least 1, not {count}")
    data = load_positions()
    unknown = [r for r in rules if r not in data]
    if unknown or not rules:
        raise UsageError(f"no stored positions for {', '.join(unknown) or 'no rule'} (there are {', '.join(data)})")

    from tabletop.ai.gomoku.engine import warm_up

    def say(text: str = "") -> None:
        if not as_json:
            print(text, flush=True)

    warm_up()  # numba's compilation is not search time
    start_seconds = start_cpu(command) if command else 0.0
    if command:
        say(f"engine {command}: {1000 * start_seconds:.0f} ms of processor time to start, taken off each search's")
    report: dict[str, Any] = {"engine": command, "seconds": seconds, "start_cpu_seconds": start_seconds, "rules": {}}
    summaries = []
    for rule in rules:
        say(f"\n{rule}: {seconds:g} s a position each; kN/s by the clock, kN/cpu-s by the processor time "
            f"the search got, cpu % its share; ms dN = when depth N was completed, ms = the search's time "
            f"(ours: level 10's main search; turn: level 10's whole turn, its ms and depth"
            + (f"; theirs: {command}, its own report)" if command else ")"))
        head = ["#", "plies", "ours kN/s", "kN/cpu-s", "cpu %", "threat kN/s", "depth"]
        head += [f"ms d{d}" for d in DEPTHS] + ["ms", "turn ms", "turn depth"]
        if command:
            head += ["theirs kN/s", "kN/cpu-s", "cpu %", "depth-sel"] + [f"ms d{d}" for d in DEPTHS] + ["ms"]
        head += ["moves"]
        say("| " + " | ".join(head) + " |")
        say("|" + "---|" * len(head))
        rows: list[tuple[int, Side, Side]] = []
        turns: list[tuple[float, int]] = []
        for index, moves in enumerate(data[rule][:count], 1):
            board = replay(rule, moves)
            us = ours(board, seconds)
            turn_ms, turn_depth = turn(board, seconds)
            them = theirs(command, board, seconds, start_seconds) if command else None
            rows.append((index, us, them or Side()))
            turns.append((turn_ms, turn_depth))
            say("| " + " | ".join(position_row(index, len(moves), us, them, seconds, turn_ms, turn_depth)) + " |")
        summary = summarise(rule, rows, seconds)
        summary["turn_ms"] = median([t[0] for t in turns])
        summary["turn_depth"] = median([float(t[1]) for t in turns])
        summaries.append(summary)
        report["rules"][rule] = {
            "summary": summary,
            "positions": [{"moves": data[rule][i - 1], "ours": vars(u), "turn": {"ms": t[0], "depth": t[1]},
                           **({"theirs": vars(th)} if command else {})}
                          for (i, u, th), t in zip(rows, turns, strict=True)],
        }
    say("\nsummary: medians over the positions (speeds and depth: over the searches that used at least half "
        "their time, how many in brackets; ms to a depth: over those that completed it, how many in brackets; "
        "turn: level 10's whole turn)")
    if command:
        head = ["rule", "kN/s ours / theirs", "kN/cpu-s ours (with threat nodes) / theirs",
                "theirs / ours (cpu, search)", "cpu % ours / theirs", "depth ours / theirs"]
        head += [f"ms d{d} ours / theirs" for d in DEPTHS] + ["turn ms / depth"]
    else:
        head = ["rule", "kN/s", "kN/cpu-s (with threat nodes)", "cpu %", "depth"]
        head += [f"ms d{d}" for d in DEPTHS] + ["turn ms / depth"]
    table = []
    for s in summaries:
        if command:
            ratio = s["theirs_knps_cpu"] / s["ours_knps_cpu"] if s["ours_knps_cpu"] else None
            cells = [s["rule"], f"{show(s['ours_knps'])} ({s['ours_full_searches']}) / {show(s['theirs_knps'])} "
                                f"({s['theirs_full_searches']})",
                     f"{show(s['ours_knps_cpu'])} ({show(s['ours_all_knps_cpu'])}) / {show(s['theirs_knps_cpu'])}",
                     f"x{show(ratio, 1)}",
                     f"{show(100 * s['ours_cpu_share'])} / {show(100 * s['theirs_cpu_share'])}",
                     f"{show(s['ours_depth'], 1)} / {show(s['theirs_depth'], 1)}"]
            cells += [f"{show(s[f'ours_ms_d{d}'])} ({s[f'ours_reached_d{d}']}) / {show(s[f'theirs_ms_d{d}'])} "
                      f"({s[f'theirs_reached_d{d}']})" for d in DEPTHS]
        else:
            cells = [s["rule"], f"{show(s['ours_knps'])} ({s['ours_full_searches']})",
                     f"{show(s['ours_knps_cpu'])} ({show(s['ours_all_knps_cpu'])})",
                     show(100 * s["ours_cpu_share"]), show(s["ours_depth"], 1)]
            cells += [f"{show(s[f'ours_ms_d{d}'])} ({s[f'ours_reached_d{d}']})" for d in DEPTHS]
        cells += [f"{show(s['turn_ms'])} / {show(s['turn_depth'], 1)}"]
        table.append(cells)
    if not as_json:
        print_table(head, table)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--engine", help="the Gomocup engine command, e.g. .bench-envs/rapfi.sh (none: ours alone)")
    parser.add_argument("--seconds", type=float, default=1.0, help="search time a position for each side (default 1)")
    parser.add_argument("--rules", default="freestyle,renju", help="rules to measure (default freestyle,renju)")
    parser.add_argument("--count", type=int, default=PER_RULE, help=f"positions a rule (default {PER_RULE})")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    parser.add_argument("--make-positions", action="store_true",
                        help="write the positions file again from the logs (run in the repository's root)")
    args = parser.parse_args(argv)
    if args.make_positions:
        content = make_positions(Path.cwd())
        rules = ",\n".join(f"  {json.dumps(rule)}: [\n" + ",\n".join(f"   {json.dumps(moves)}" for moves in lines)
                           + "\n  ]" for rule, lines in content["positions"].items())
        POSITIONS.write_text(f'{{\n "source": {json.dumps(content["source"])},\n "positions": {{\n{rules}\n }}\n}}\n')
        print(f"wrote {POSITIONS}")
        return 0
    try:
        report = side_by_side(args.engine, args.seconds, [r.strip() for r in args.rules.split(",") if r.strip()],
                              args.count)
    except UsageError as exc:
        parser.error(str(exc))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
