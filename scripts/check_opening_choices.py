"""Check a computer seat's swap colour choice against how the engine's own games from that opening end.

Usage: python scripts/check_opening_choices.py [OPENINGS] [SEED] [LEVEL] [RULE] [FAMILY]

Draws ``OPENINGS`` three-stone openings: with FAMILY ``match`` (the default) from the match
runner's family (:func:`tabletop.ai.gomoku.openings.opening_candidates`, which equal levels split
about evenly as a whole), with ``wide`` near the centre (Black on the centre, White within two
points, Black's second stone within three, where Black mostly stands better); asks :func:`tabletop.ai.gomoku.openings.decide_opening` which colour
the second takes, then plays the game out from the opening between two players of ``LEVEL``
(default 7, which has no randomness: one game per opening) and prints, per opening, the score
relative to the even point, the choice, the winner, and at the end how often the chosen colour
won among the decided games, split by whether the score was beyond the even margin; beside it the
swap2 answer on the same stones (a colour, or place with its two stones) and the time of each decision.
"""

from __future__ import annotations

import random
import sys
import time

from tabletop.ai.gomoku.openings import EVEN_MARGIN, decide_opening, opening_candidates
from tabletop.games.core import BLACK, WHITE, IllegalMoveError
from tabletop.games.mnk import gomoku
from tabletop.games.openings import OpeningPhase
from tabletop.players import player


def openings(count: int, seed: int, rule: str, family: str) -> list[list[str]]:
    rng = random.Random(seed)
    if family == "match":
        lines = [[str(m) for m in line] for line in opening_candidates(gomoku(15, rule=rule))]
        rng.shuffle(lines)
        return lines[:count]
    out: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    while len(out) < count:
        board = gomoku(15, rule=rule)
        cx = cy = 7
        white = (cx + rng.randint(-2, 2), cy + rng.randint(-2, 2))
        black = (cx + rng.randint(-3, 3), cy + rng.randint(-3, 3))
        try:
            line = [board.move_at(cx, cy), board.move_at(*white), board.move_at(*black)]
            for m in line:
                board.push(m)
        except (IllegalMoveError, ValueError):
            continue
        key = tuple(str(m) for m in line)
        if key not in seen:
            seen.add(key)
            out.append(list(key))
    return out


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 20
    seed = int(argv[1]) if len(argv) > 1 else 1
    level = argv[2] if len(argv) > 2 else "7"
    rule = argv[3] if len(argv) > 3 else "freestyle"
    family = argv[4] if len(argv) > 4 else "match"
    started = time.perf_counter()
    places = 0
    agree = {True: [0, 0], False: [0, 0]}  # beyond the margin? -> [chosen colour won, decided games]
    for line in openings(count, seed, rule, family):
        board = gomoku(15, rule=rule)
        for m in line:
            board.push(m)
        phase = OpeningPhase("swap")
        for _ in range(3):
            phase.stone_placed()
        t = time.perf_counter()
        decision = decide_opening(board, phase)
        decide_s = time.perf_counter() - t
        # the swap2 answer on the same stones (not played out): a colour, or place and two stones
        swap2 = OpeningPhase("swap2")
        for _ in range(3):
            swap2.stone_placed()
        t = time.perf_counter()
        second = decide_opening(board, swap2)
        swap2_s = time.perf_counter() - t
        places += second.choice == "place"
        players = {BLACK: player(f"level:{level}"), WHITE: player(f"level:{level}")}
        while not board.is_game_over():
            board.push(players[board.turn].choose(board.copy()))
        outcome = board.outcome()
        winner = None if outcome is None or outcome.winner is None else outcome.winner.label
        clear = abs(decision.score) > EVEN_MARGIN
        if winner is not None:
            agree[clear][1] += 1
            agree[clear][0] += int(winner == decision.choice)
        print(f"{' '.join(line):12} score {decision.score:+6d} for {decision.choice:5}  winner {winner or 'draw':5} "
              f"after {len(board.move_stack):3d} plies  (decided in {decide_s:.2f} s; swap2: {second.choice} "
              f"{' '.join(str(m) for m in second.stones)} in {swap2_s:.2f} s)", flush=True)
    for clear, (won, games) in agree.items():
        band = f"beyond +-{EVEN_MARGIN}" if clear else f"within +-{EVEN_MARGIN}"
        share = f"{won / games:.2f}" if games else "-"
        print(f"{band}: the chosen colour won {won} of {games} decided games ({share})")
    print(f"swap2: place chosen on {places} of {count} openings")
    print(f"{rule}, level {level}, {count} {family} openings, seed {seed}: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
