"""Gomoku engine figures for ``tabletop bench gomoku``: search speed, VCF solve times, peak memory.

- search nodes per second: the alpha-beta search (numba kernels over incremental
  patterns) on seeded middle-game positions, ``--seconds`` each, plain and with the
  engine's pruning (whose VCF checks are counted apart);
- the renju VCT puzzles of ``tests/data/renju/vct-puzzles.json``: solved / total and time;
- VCF solve time on the positions of ``tests/test_vcf.py`` (a chain of seven
  fours on 20x20, a double four, an open four), with the length of the line;
- threat-solver nodes per second over those solves;
- peak memory of the process (resident set, from the OS) after a full-strength
  search with the default transposition-table bound; the engine's target is
  under 300 MB by default (Gomocup allows 350 MB).

``tabletop bench gomoku_engine --vs-gomoku-terminal N`` also plays N games
(20x20 freestyle, colours alternating) of our top level against the "hard" AI
of PyPI's ``gomoku-terminal`` (1.0.2), installed on first use into its own
virtual environment under ``.bench-envs/gomoku-terminal`` (git-ignored) and
driven through a small pbrain adapter written there, so the match goes through
our Gomocup manager like any outside engine.

:func:`run_engine_bench` is called by :mod:`tabletop.bench.gomoku` after the
rules figures; :func:`add_arguments` / :func:`run` let it run alone.  This
module only measures and prints.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import Position, analyse
from tabletop.ai.gomoku.engine import warm_up
from tabletop.ai.gomoku.search import Searcher
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.bench import add_gomoku_match_arguments, peak_rss_mb, reference_python, vmhwm_bytes
from tabletop.games.mnk import GomokuBoard, gomoku

__all__ = ["VCF_POSITIONS", "add_arguments", "run", "run_engine_bench", "vct_puzzles"]

_EMPTY20 = "/".join(["-" * 20] * 9)
VCF_POSITIONS: dict[str, tuple[int, str, str]] = {
    # name: (size, rule, position text); the first is the seven-four chain of tests/test_vcf.py
    "seven-four chain 20x20": (
        20,
        "freestyle",
        "---------O----------/------------------XX/---------X----------/-------X-------X----/"
        "O-----X--X----X-----/--------O-XX--------/-XX-OX------O-------/-----X--------------/"
        "-X--X---------------/-X------------------/-O---O--------------/" + _EMPTY20 + " X",
    ),
    "double four 15x15": (
        15,
        "freestyle",
        "---------------/-O-------------/---------------/--------O------/--------X------/--------X------/"
        "--------X------/----OXXX-------/---------------/---------------/---------------/---------------/"
        "---------------/-O-----------O-/--------------- X",
    ),
    "open four 15x15": (
        15,
        "freestyle",
        "---------------/---------------/--O------------/---------O-----/---------------/-----O---------/"
        "---------------/-----XXX-------/---------------/---------------/---------------/---------------/"
        "---------------/---------------/--------------- X",
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_gomoku_match_arguments(parser)


_ADAPTER = """
# pbrain adapter for gomoku-terminal's AI, written by tabletop.bench.gomoku_engine
import sys
from gomoku.ai import GomokuAI
from gomoku.board import Board

ai = GomokuAI("hard")
board = Board()

def reply(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()

def to_move():
    return Board.BLACK if board.move_count % 2 == 0 else Board.WHITE

def answer():
    row, col = ai.get_move(board, to_move())
    board.place_stone(row, col, to_move())
    reply(f"{col},{row}")

collecting = None
for line in sys.stdin:
    parts = line.strip().split(" ", 1)
    cmd = parts[0].upper()
    if collecting is not None:
        if cmd == "DONE":
            board = Board()
            own = [(x, y) for x, y, f in collecting if f == 1]
            opp = [(x, y) for x, y, f in collecting if f == 2]
            first, second = (own, opp) if len(own) == len(opp) else (opp, own)
            for i in range(max(len(first), len(second))):
                for stones in (first, second):
                    if i < len(stones):
                        x, y = stones[i]
                        board.place_stone(y, x, to_move())
            collecting = None
            answer()
        else:
            x, y, f = (int(v) for v in cmd.split(","))
            collecting.append((x, y, f))
        continue
    if cmd == "START":
        if parts[1].strip() != "20":
            reply("ERROR only 20x20")
        else:
            board = Board()
            reply("OK")
    elif cmd == "RESTART":
        board = Board()
        reply("OK")
    elif cmd == "BEGIN":
        answer()
    elif cmd == "TURN":
        x, y = (int(v) for v in parts[1].split(","))
        board.place_stone(y, x, to_move())
        answer()
    elif cmd == "BOARD":
        collecting = []
    elif cmd == "INFO":
        pass
    elif cmd == "ABOUT":
        reply('name="gomoku-terminal hard", version="1.0.2"')
    elif cmd == "END":
        break
    else:
        reply("UNKNOWN")
"""


def gomoku_terminal_command(root: Path) -> str:
    """The pbrain command for gomoku-terminal's hard AI, installing it on first use."""
    python = reference_python(root, "gomoku-terminal", "gomoku-terminal==1.0.2")
    env = python.parent.parent
    adapter = env / "pbrain_gomoku_terminal.py"
    adapter.write_text(_ADAPTER)
    return f"{python} {adapter}"


def play_gomoku_terminal(games: int, think: float, root: Path) -> dict[str, Any]:
    """Our level 10 against gomoku-terminal's hard AI on 20x20 freestyle, colours alternating."""
    from tabletop.ai.gomoku import level_player
    from tabletop.protocols.gomocup import GomocupPlayer

    command = gomoku_terminal_command(root)
    record: list[dict[str, Any]] = []
    for game in range(games):
        ours = level_player(10)
        ours_black = game % 2 == 0
        board = gomoku(20)
        with GomocupPlayer(command, default_seconds=120) as theirs:
            failure = ""
            while not board.is_game_over():
                mine = (board.turn.name == "BLACK") == ours_black
                try:
                    move = (ours if mine else theirs).choose(board.copy(), Limit(seconds=think if mine else 120))
                except Exception as exc:  # their failure loses the game for them
                    failure = f"{'we' if mine else 'they'} failed: {exc}"
                    break
                board.push(move)
        out = board.outcome()
        won = out is not None and out.winner is not None and (out.winner.name == "BLACK") == ours_black
        if failure:
            won = failure.startswith("they")
        record.append({"game": game + 1, "we_play": "black" if ours_black else "white",
                       "result": "win" if won else ("draw" if out is not None and out.winner is None else "loss"),
                       "plies": len(board.move_stack), "note": failure,
                       "moves": [str(m) for m in board.move_stack]})
    wins = sum(1 for r in record if r["result"] == "win")
    return {"games": games, "wins": wins, "record": record}


def play_mcts(games: int, think: float, seed: int) -> dict[str, Any]:
    """Our level 10 at ``think`` seconds a move against the generic ``mcts`` player at ten times
    that, on 15x15 freestyle: each balanced three-stone opening of the match runner is played
    twice, colours swapped."""
    from tabletop.ai.generic import MCTSPlayer
    from tabletop.ai.gomoku import level_player
    from tabletop.ai.gomoku.openings import balanced_openings

    book = balanced_openings(gomoku(15), (games + 1) // 2, seed) or [[]]
    record: list[dict[str, Any]] = []
    for game in range(games):
        opening = book[(game // 2) % len(book)]
        ours, theirs = level_player(10), MCTSPlayer(seconds=10 * think, seed=seed + game)
        ours_black = game % 2 == 0
        board = gomoku(15)
        for move in opening:
            board.push(move)
        while not board.is_game_over():
            mine = (board.turn.name == "BLACK") == ours_black
            board.push((ours if mine else theirs).choose(board.copy(), Limit(seconds=think if mine else 10 * think)))
        out = board.outcome()
        result = "draw" if out is None or out.winner is None else (
            "win" if (out.winner.name == "BLACK") == ours_black else "loss")
        record.append({"game": game + 1, "we_play": "black" if ours_black else "white", "result": result,
                       "plies": len(board.move_stack)})
    wins = sum(1 for r in record if r["result"] == "win")
    draws = sum(1 for r in record if r["result"] == "draw")
    return {"games": games, "wins": wins, "draws": draws, "score": (wins + draws / 2) / games if games else 0.0,
            "think": think, "mcts_seconds": 10 * think, "record": record}


def gomocup_peak_bytes(max_memory: int, turn_ms: int = 3000) -> int:
    """Peak resident memory (VmHWM, Linux) of a fresh ``tabletop engine gomocup`` given
    ``INFO max_memory`` (0: none given), ``INFO timeout_turn``, START 15, BEGIN and up to
    five TURNs."""
    command = [str(Path(sys.executable).with_name("tabletop")), "engine", "gomocup"]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def say(line: str) -> str:
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline().strip()
        while answer.startswith(("MESSAGE", "DEBUG")):
            answer = stdout.readline().strip()
        if not answer or answer.startswith(("ERROR", "UNKNOWN")):
            raise RuntimeError(f"the engine answered {line!r} with {answer!r}")
        return answer

    try:
        if max_memory:
            stdin.write(f"INFO max_memory {max_memory}\n")
        stdin.write(f"INFO timeout_turn {turn_ms}\n")
        say("START 15")
        taken = {say("BEGIN")}
        for move in ("8,8", "6,9", "9,6", "5,5", "10,3"):
            if move not in taken:
                taken.add(move)
                taken.add(say(f"TURN {move}"))
        peak = vmhwm_bytes(proc.pid)
        if peak is None:
            raise RuntimeError("no /proc/PID/status here to read the engine's peak memory from")
        return peak
    finally:
        stdin.write("END\n")
        stdin.flush()
        proc.wait(10)


def vct_puzzles(path: Path, nodes: int = 200_000) -> dict[str, Any]:
    """Solve the renju VCT puzzles of ``path`` (tests/data/renju/vct-puzzles.json): how many the
    solver (VCF, then VCT deepening to 8 threats, ``nodes`` threat nodes) solves with a line that
    replays on the rules board and holds against every defence (:func:`vct_holds`), and the time."""
    from tabletop.ai.gomoku.engine import vct_holds, verified_win

    if not path.exists():
        return {"solved": 0, "total": 0, "seconds": 0.0, "slowest": 0.0}
    cases = json.loads(path.read_text())["cases"]
    solved = 0
    total_time = slowest = 0.0
    for case in cases:
        board = gomoku(15, "renju")
        for name in case["moves"]:
            board.push(board.parse_move(name.lower()))
        pos = Position.from_board(board)
        started = time.perf_counter()
        solver = ThreatSolver(pos, max_nodes=nodes)
        line = solver.vcf()
        for depth in range(1, 9):
            if line is not None or solver.aborted:
                break
            line = solver.vct(depth=depth)
        ok = (line is not None and verified_win(board, pos, line) is not None
              and vct_holds(board, pos, line, depth=8, nodes=nodes // 4))
        took = time.perf_counter() - started
        total_time += took
        slowest = max(slowest, took)
        solved += ok
    return {"solved": solved, "total": len(cases), "seconds": total_time, "slowest": slowest}


def _middle_games(count: int, seed: int) -> list[GomokuBoard]:
    rng = random.Random(seed)
    boards: list[GomokuBoard] = []
    while len(boards) < count:
        b = gomoku(15)
        for _ in range(rng.randrange(8, 20)):
            near = [m for m in b.legal_moves if abs(m.col - 7) <= 3 and abs(m.row - 7) <= 3]
            b.push(rng.choice(near))
            if b.is_game_over():
                break
        if not b.is_game_over():
            boards.append(b)
    return boards


def run_engine_bench(args: argparse.Namespace) -> int:
    seconds = max(0.05, float(getattr(args, "seconds", 2.0)))
    seed = int(getattr(args, "seed", 1))
    warm_up()  # pays numba's start-up (patterns, threats, search) before anything is timed
    results: dict[str, Any] = {}
    nodes = 0
    spent = 0.0
    pruned_nodes = pruned_threats = 0
    pruned_spent = 0.0
    for board in _middle_games(3, seed):
        pos = Position.from_board(board)
        started = time.perf_counter()
        searcher = Searcher(pos, deadline=started + seconds)
        searcher.search()
        spent += time.perf_counter() - started
        nodes += searcher.nodes
        started = time.perf_counter()
        result = Searcher(pos, deadline=started + seconds, pruning=True).search()
        pruned_spent += time.perf_counter() - started
        pruned_nodes += result.nodes
        pruned_threats += result.threat_nodes
    results["search_nodes_per_s"] = nodes / spent
    results["pruning_search_nodes_per_s"] = pruned_nodes / pruned_spent
    results["pruning_search_threat_nodes_per_s"] = pruned_threats / pruned_spent
    solves: dict[str, dict[str, float]] = {}
    threat_nodes = 0
    threat_time = 0.0
    for name, (size, rule, text) in VCF_POSITIONS.items():
        pos = Position.from_board(gomoku(size, rule, position=text))
        started = time.perf_counter()
        solver = ThreatSolver(pos, max_nodes=1_000_000)
        line = solver.vcf(depth=12)
        took = time.perf_counter() - started
        threat_nodes += solver.nodes
        threat_time += took
        solves[name] = {"ms": took * 1000, "fours": (len(line) - 1) // 2 if line else 0, "nodes": solver.nodes}
    results["vcf"] = solves
    results["threat_nodes_per_s"] = threat_nodes / threat_time if threat_time else 0.0
    results["vct_puzzles"] = vct_puzzles(Path.cwd() / "tests" / "data" / "renju" / "vct-puzzles.json")
    deep = _middle_games(1, seed + 1)[0]
    analyse(deep, Limit(seconds=seconds))
    results["peak_rss_mb"] = peak_rss_mb()
    results["memory_target_mb"] = 300
    versus = int(getattr(args, "vs_gomoku_terminal", 0) or 0)
    if versus > 0:
        root = Path.cwd()
        results["vs_gomoku_terminal"] = play_gomoku_terminal(versus, float(getattr(args, "think", 2.0)), root)
    versus_mcts = int(getattr(args, "vs_mcts", 0) or 0)
    if versus_mcts > 0:
        results["vs_mcts"] = play_mcts(versus_mcts, float(getattr(args, "think", 2.0)), seed)
    if getattr(args, "json", False):
        print(json.dumps({"engine": results}))
    else:
        print("tabletop bench gomoku: engine")
        print(f"  alpha-beta search                 {results['search_nodes_per_s']:10.0f} nodes/s")
        print(f"  threat solver (VCF)               {results['threat_nodes_per_s']:10.0f} nodes/s")
        print(f"  ... with the engine's pruning     {results['pruning_search_nodes_per_s']:10.0f} nodes/s"
              f" (+ {results['pruning_search_threat_nodes_per_s']:.0f} VCF-check nodes/s)")
        for name, s in solves.items():
            print(f"  VCF {name:30s} {s['ms']:8.1f} ms  ({int(s['fours'])} fours, {int(s['nodes'])} nodes)")
        pz = results["vct_puzzles"]
        if pz["total"]:
            print(f"  VCT renju puzzles (quintet set)   {pz['solved']}/{pz['total']} solved in {pz['seconds']:.2f} s"
                  f" (slowest {pz['slowest']:.2f} s; each claim checked against every defence)")
        else:
            print("  VCT renju puzzles                 no tests/data/renju/vct-puzzles.json here")
        print(f"  peak memory (resident)            {results['peak_rss_mb']:10.1f} MB   (target < 300 MB)")
        if "vs_gomoku_terminal" in results:
            v = results["vs_gomoku_terminal"]
            print(f"  vs gomoku-terminal hard, 20x20    {v['wins']}/{v['games']} wins")
            for r in v["record"]:
                print(f"    game {r['game']:2d} as {r['we_play']:5s} {r['result']:4s} in {r['plies']} plies {r['note']}")
        if "vs_mcts" in results:
            v = results["vs_mcts"]
            print(f"  vs mcts at {v['mcts_seconds']:g} s a move (ours {v['think']:g} s), 15x15: "
                  f"{v['wins']} wins, {v['draws']} draws of {v['games']} (score {v['score']:.2f}, target 0.90)")
            for r in v["record"]:
                print(f"    game {r['game']:2d} as {r['we_play']:5s} {r['result']:4s} in {r['plies']} plies")
    return 0


def run(args: argparse.Namespace) -> int:
    return run_engine_bench(args)
