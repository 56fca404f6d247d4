"""Write ``src/tabletop/server/web/levels.json``: an Elo estimate for each computer level,
from the level ladder's scores (each level against the one below, 100 games a step) in
``benchmarks/HISTORY.md``'s tables (the section "Figures moved from RESULTS.md" holds them whole;
RESULTS.md keeps today's summary row).

Derivation: a step's score ``s`` is an Elo difference of ``400 * log10(s / (1 - s))``; a
score of 100 % of ``n`` games counts as ``(n - 0.5) / n`` (no finite difference fits a clean
sweep, and half a game is the usual correction).  Level 1 is anchored at 800, the rating a rank
beginner gets on the usual chess-like scale; each level above adds its step.  The estimates are
differences between the levels themselves, measured in self-play: they are not ratings against
people, and a chain of steps overstates the top (each level is tuned against the one below).

Gomoku's standard and caro rules have no ladder of their own: the page shows the freestyle one's.
Tic-tac-toe has no ladder (levels 8-10 play perfectly), so its levels are described in words
(``tabletop.ai.tictactoe.level_player``).

    .venv/bin/python scripts/level_elo.py          # writes the file
    .venv/bin/python scripts/level_elo.py --check  # exits 1 if the file differs
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "src" / "tabletop" / "server" / "web" / "levels.json"
ANCHOR = 800
GAMES_A_STEP = 100

# the score of level N+1 against level N, for N = 1..9 (benchmarks/HISTORY.md)
LADDERS: dict[str, dict[str, Any]] = {
    "reversi": {
        "source": "benchmarks/HISTORY.md, Reversi engine, 'Level ladder' table (728016b's engine)",
        "steps": [0.86, 0.99, 0.915, 0.865, 0.835, 0.835, 0.70, 0.71, 0.67],
    },
    "gomoku-freestyle": {
        "source": "benchmarks/HISTORY.md: steps 2/1-6/5 from the Gomoku 'Level ladder' table, 7/6-10/9 from the"
        " summary row 'Gomoku level ladder' (the searching levels as they play now)",
        "steps": [1.0, 0.84, 0.76, 0.80, 0.74, 0.925, 0.71, 0.78, 0.85],
    },
    "gomoku-renju": {
        "source": "benchmarks/HISTORY.md: as freestyle, the renju rows",
        "steps": [1.0, 0.78, 0.77, 0.76, 0.765, 0.92, 0.65, 0.83, 0.74],
    },
}

TICTACTOE = {
    "1": "plays at random",
    "2": "looks one move ahead, slips on 60 % of its moves",
    "3": "looks one move ahead, slips on 40 % of its moves",
    "4": "plays perfectly but slips on 25 % of its moves",
    "5": "plays perfectly but slips on 15 % of its moves",
    "6": "plays perfectly but slips on 8 % of its moves",
    "7": "plays perfectly but slips on 3 % of its moves",
    "8": "plays perfectly: never loses",
    "9": "plays perfectly: never loses",
    "10": "plays perfectly: never loses",
}


def step_elo(score: float, games: int = GAMES_A_STEP) -> float:
    """The Elo difference of a score of ``score`` (0..1) over ``games`` games."""
    s = min(max(score, 0.5 / games), (games - 0.5) / games)
    return 400 * math.log10(s / (1 - s))


def estimates(steps: list[float], anchor: int = ANCHOR) -> dict[str, int]:
    """Level -> Elo estimate, level 1 at ``anchor``, rounded to 10."""
    elo = float(anchor)
    out = {"1": anchor}
    for n, score in enumerate(steps, start=2):
        elo += step_elo(score)
        out[str(n)] = int(round(elo, -1))
    return out


def build() -> dict[str, Any]:
    return {
        "about": "Elo estimates of the computer levels, written by scripts/level_elo.py (its docstring has"
        f" the derivation): each ladder step's score s over {GAMES_A_STEP} games is 400*log10(s/(1-s)),"
        f" 100 % counts as {GAMES_A_STEP - 0.5:g}/{GAMES_A_STEP}; level 1 is set at {ANCHOR}. Differences"
        " measured between the levels in self-play, not against people.",
        "anchor": ANCHOR,
        "elo": {
            key: {"source": ladder["source"], "steps": ladder["steps"], "levels": estimates(ladder["steps"])}
            for key, ladder in LADDERS.items()
        },
        "words": {"tictactoe": TICTACTOE},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is not what this script writes")
    args = parser.parse_args()
    text = json.dumps(build(), indent=1) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("levels.json is current" if same else "levels.json differs: run scripts/level_elo.py")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
