"""Check the VCT solver's claimed wins against every defender reply on the rules board.

Usage: python scripts/check_vct.py [GAMES] [SEED] [LEVEL] [RULE]

Plays ``GAMES`` quick games between two engine players (default level 3, whose
blunders leave many threats on the board); in every position it asks the VCT
solver for a win, and for each claimed win it checks the first attacking move
against *every* legal defender reply on the real rules board
(:mod:`tabletop.games.mnk`): a reply after which the attacker has no verified
VCF and the solver cannot find a VCT again (with a larger budget) is printed as
a possible refutation, so that it can be examined by hand
(:func:`tabletop.ai.gomoku.vctcheck.unbeaten_replies`, two defender moves deep).
"""

from __future__ import annotations

import random
import sys

from tabletop.ai.gomoku.engine import verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.ai.gomoku.vctcheck import unbeaten_replies
from tabletop.games.core import BLACK, IllegalMoveError
from tabletop.games.mnk import gomoku
from tabletop.players import player

CLAIM_NODES = 20_000


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 5
    seed = int(argv[1]) if len(argv) > 1 else 1
    level = argv[2] if len(argv) > 2 else "3"
    rule = argv[3] if len(argv) > 3 else "freestyle"
    rng = random.Random(seed)
    claims = refuted = 0
    for g in range(games):
        board = gomoku(15, rule)
        a, b = player(f"level:{level}"), player(f"level:{level}")
        for eng in (a, b):
            if hasattr(eng, "rng"):
                eng.rng.seed(rng.random())
        seen_attackers: set[str] = set()
        while not board.is_game_over():
            pos = Position.from_board(board)
            line = ThreatSolver(pos, max_nodes=CLAIM_NODES).vct(depth=6)
            text = board.to_text()
            if line is not None and verified_win(board, pos, line) is not None and text not in seen_attackers:
                seen_attackers.add(text)
                vcf = ThreatSolver(Position.from_board(board), max_nodes=CLAIM_NODES).vcf()
                if vcf is None:  # only VCTs that are not plain VCFs
                    claims += 1
                    bad = unbeaten_replies(board, line, depth=6, levels=2)
                    if bad:
                        refuted += 1
                        print(f"game {g} claim {text}: {len(bad)} unbeaten replies", flush=True)
                        for moves, why in bad[:4]:
                            print(f"   {' '.join(moves)}: {why}", flush=True)
            mover = a if board.turn is BLACK else b
            try:
                board.push(mover.choose(board))
            except IllegalMoveError as exc:
                print(f"game {g}: {exc}")
                break
    print(f"claims {claims}, with unbeaten replies {refuted}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
