"""The learned position value of the Gomoku engine.

``eval-freestyle.npz`` and ``eval-renju.npz`` beside this module hold logistic models fitted by
``scripts/gomoku_eval_fit.py`` from the engine's self-play: for the side to move and for the
other side, one weight for each combination of the four line patterns an empty point has for
that colour (495 combinations of nine kinds), and a constant.  Freestyle's model serves every
rule where both colours play alike (freestyle, standard, caro); renju has one model for Black
to move and one for White to move.

:func:`weights` expands a model into the kernels' table ``weights[c, role, code]``: colour
index ``c`` (0 Black, 1 White), role 0 when that colour is to move and 1 when it is not, and
``code`` the point's four patterns as one base-9 number (:func:`patterns.eval_code`), every
order of the same four patterns sharing the combination's weight.  Entry ``BIAS`` of the
to-move row is the model's constant.  Values are log-odds of a win times :data:`SCALE`, in
integers, so that the search's margins (futility, aspiration) keep their size.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from pathlib import Path

import numpy as np

from tabletop.ai.gomoku import patterns as P

__all__ = ["SCALE", "family", "weights"]

SCALE = 1500  # evaluation units per unit of log-odds
KINDS = len(P.PATTERN_NAMES)
COMBOS: dict[tuple[int, ...], int] = {
    c: i for i, c in enumerate(itertools.combinations_with_replacement(range(KINDS), 4))}
HERE = Path(__file__).parent


def family(rule: str) -> str:
    """The model a rule plays with."""
    return "renju" if rule == "renju" else "freestyle"


def _expand(side: np.ndarray) -> np.ndarray:
    """A colour's 495 combination weights as a row over every ``eval_code``."""
    row = np.zeros(P.EVAL_CODES + 1, dtype=np.float64)
    for code in range(P.EVAL_CODES):
        kinds = tuple(sorted((code // 729, code // 81 % 9, code // 9 % 9, code % 9)))
        row[code] = side[COMBOS[kinds]]
    return row


@lru_cache(maxsize=4)
def weights(rule: str) -> np.ndarray:
    """The table ``weights[colour, role, code]`` (int32) for ``rule``."""
    models = np.load(HERE / f"eval-{family(rule)}.npz")
    n = len(COMBOS)
    table = np.zeros((2, 2, P.EVAL_CODES + 1), dtype=np.float64)
    for c, mover in enumerate(("black_to_move", "white_to_move")):
        model = models[mover] if mover in models else models["all"]
        other = models["white_to_move" if c == 0 else "black_to_move"] if mover in models else models["all"]
        table[c, 0] = _expand(model[:n])
        table[c, 0, P.BIAS] = model[-1]
        table[c, 1] = _expand(other[n : 2 * n])
    out = np.rint(table * SCALE).astype(np.int32)
    return out
