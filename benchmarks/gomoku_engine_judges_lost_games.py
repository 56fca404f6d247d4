"""Where did A lose, in an outside engine's judgement? Rapfi's evaluation of every position A had to
move in, in each game A lost of a Gomoku match log.

Run: ``nice .venv/bin/python benchmarks/gomoku_engine_judges_lost_games.py LOG --engine .bench-envs/rapfi.sh``
on a log of ``tabletop match gomoku ... --log LOG`` (or ``tabletop bench gomoku --vs ... --log``).
For each lost game it replays the moves and, at each of A's turns past the opening, sends the position
to the engine (a fresh process, ``--seconds`` a position, as :mod:`tabletop.bench.gomoku_speed` does) and
prints the engine's score for A (its own units; ``M12`` wins in 12, ``-M12`` loses in 12), its depth
and the move it would play beside A's.  Then the verdict: the first of A's turns the engine scores at
``--lost`` or worse (or mated), and A's move before it, with the engine's choice there and its score.

The engine is a yardstick: nothing here is kept but the printout (its moves go into no book, no
training data and no table).  ``benchmarks/gomoku_lost_games.py`` asks the same question of our own
threat solvers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tabletop.bench.gomoku_speed import replay, theirs


def points(score: str) -> float:
    """The engine's score as a number: a mate is beyond every evaluation, nearer mates further."""
    if "M" in score:
        plies = int(score.replace("-", "").replace("M", "") or 0)
        value = 100_000 - plies
        return -value if score.startswith("-") else value
    return float(score)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("log", help="a match log (JSON lines) whose games carry their moves")
    parser.add_argument("--engine", required=True, help="the Gomocup engine command, e.g. .bench-envs/rapfi.sh")
    parser.add_argument("--seconds", type=float, default=1.0, help="the engine's time a position (default 1)")
    parser.add_argument("--lost", type=float, default=-800, help="the score for A counted as lost (default -800)")
    parser.add_argument("--games", type=int, default=10**9, help="lost games to read at most")
    args = parser.parse_args(argv)
    try:
        games = [json.loads(raw) for raw in Path(args.log).read_text().splitlines() if raw.strip()]
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read the match log {args.log!r}: {exc}") from None
    lost = [g for g in games if g["result"]["a_score"] == 0 and g["result"].get("line")]
    for data in sorted(lost, key=lambda g: g["result"]["number"])[:args.games]:
        result = data["result"]
        rule = data["spec"]["options"].get("rule", "freestyle")
        moves = list(result["line"])
        a_black = result["a_is_black"]
        print(f"game {result['number']} (A {'Black' if a_black else 'White'}, {result['plies']} plies, "
              f"{rule}; reason: {result['reason']})", flush=True)
        turns = []
        for ply in range(len(result["opening"]), len(moves)):
            if (ply % 2 == 0) != a_black:
                continue  # B's turn
            board = replay(rule, moves[:ply])
            side = theirs(args.engine, board, args.seconds, 0.0)
            turns.append((ply, side))
            print(f"  ply {ply + 1:2d}: A played {moves[ply]:4s} engine {side.move:4s} score {side.score:>6s} "
                  f"depth {side.depth}-{side.selective_depth}", flush=True)
        first = next((i for i, (_, side) in enumerate(turns) if points(side.score) <= args.lost), None)
        if first is None:
            print("  verdict: the engine never scored A's position as lost at A's turns")
        elif first == 0:
            print(f"  verdict: lost from A's first turn out of the opening (ply {turns[0][0] + 1}, "
                  f"{turns[0][1].score})")
        else:
            ply, side = turns[first - 1]
            choice = (f"the engine would play {side.move}" if side.move != moves[ply] else
                      "the engine's choice too: lost before, beyond what it saw in its time")
            print(f"  verdict: lost after A's {moves[ply]} at ply {ply + 1} (scored {side.score} before it; "
                  f"{choice}); {turns[first][1].score} at ply {turns[first][0] + 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
