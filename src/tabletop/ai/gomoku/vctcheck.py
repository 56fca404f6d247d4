"""An independent check of a claimed VCT against every defender reply on the rules board.

:func:`unbeaten_replies` takes a position on a rules board (:mod:`tabletop.games.mnk`)
and the attacker's claimed winning line, plays its first move and then tries
*every* legal reply of the defender: a reply that wins at once, or after which
the attacker has neither a VCF nor a VCT again (each replayed and verified on
the rules board), is reported.  It recurses into the replies beaten only by a
VCT, down to ``levels`` defender moves.  It is slow (a solver call per reply)
and meant for tests and ``scripts/check_vct.py``, never for play.
"""

from __future__ import annotations

from tabletop.ai.gomoku.engine import verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.core import BaseBoard

__all__ = ["unbeaten_replies"]


def _vcf_wins(board: BaseBoard, nodes: int) -> bool:
    pos = Position.from_board(board)
    line = ThreatSolver(pos, max_nodes=nodes).vcf()
    return line is not None and verified_win(board, pos, line) is not None


def _vct_again(board: BaseBoard, depth: int, nodes: int) -> list[int] | None:
    pos = Position.from_board(board)
    for d in range(1, depth + 1):  # deepening: a deeper search can need far more nodes
        line = ThreatSolver(pos, max_nodes=nodes).vct(depth=d)
        if line is not None:
            return line if verified_win(board, pos, line) is not None else None
    return None


def unbeaten_replies(board: BaseBoard, line: list[int], depth: int = 6, levels: int = 2,
                     nodes: int = 200_000) -> list[tuple[list[str], str]]:
    """Defender replies to ``line[0]`` (the side to move's attack) that the check
    cannot beat, each as (the moves played from ``board``, reason); empty when
    every reply was beaten."""
    pos = Position.from_board(board)
    attack = pos.to_move(board, line[0])
    after = board.copy()
    after.push(attack)
    if after.outcome() is not None:
        return []
    bad: list[tuple[list[str], str]] = []
    for reply in list(after.legal_moves):
        b = after.copy()
        b.push(reply)
        moves = [str(attack), str(reply)]
        out = b.outcome()
        if out is not None:
            if out.winner is not board.turn:
                bad.append((moves, "the defender wins at once"))
            continue
        if _vcf_wins(b, nodes // 10):
            continue
        again = _vct_again(b, depth, nodes)
        if again is None:
            bad.append((moves, "no VCF or VCT found for the attacker"))
            continue
        if levels > 1:
            for deeper, why in unbeaten_replies(b, again, max(depth - 1, 1), levels - 1, nodes):
                bad.append((moves + deeper, why))
    return bad
