"""Weights of the pattern evaluation: the fitted data file, or a hand-made fallback.

The weight table has one row per game phase (any number that divides 60, the phases splitting the
60 moves evenly; the hand-made table has ``kernel.N_PHASES``) and one column
per feature (``kernel.N_FEATURES``): every pattern configuration, then mobility,
potential mobility, parity and a bias.  The fitted table ships as
``weights.npz`` beside this module (see ``WEIGHTS.md`` for how it was made, and
``tabletop train reversi``).  This module only loads and builds tables; it
must not search or fit.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel

__all__ = ["WEIGHTS_FILE", "default_weights", "handmade_weights", "load_weights", "read_weights", "save_weights"]

WEIGHTS_FILE = Path(__file__).with_name("weights.npz")


def _pattern_table(name: str) -> tuple[int, int]:
    offsets = dict(kernel.PATTERN_NAMES)
    names = [n for n, _ in kernel.PATTERN_NAMES]
    start = offsets[name]
    end = offsets[names[names.index(name) + 1]]
    return start, end


def _digits(index: int, length: int) -> list[int]:
    out = []
    for _ in range(length):
        out.append(index % 3)
        index //= 3
    return out


def handmade_weights() -> np.ndarray:
    """A simple positional evaluation: corners, edges, X/C squares next to empty corners, mobility."""
    s = kernel.SCALE
    w = np.zeros((kernel.N_PHASES, kernel.N_FEATURES), dtype=np.float32)
    # Edge pattern squares: corner, C, A, B, B, A, C, corner.
    edge_value = [6.0, -1.5, 1.0, 0.5, 0.5, 1.0, -1.5, 6.0]
    start, end = _pattern_table("edge2x")
    for idx in range(end - start):
        d = _digits(idx, 10)  # the edge's 8 squares, then its two X-squares (not valued here)
        total = 0.0
        for k, state in enumerate(d[:8]):
            if state == 0:
                continue
            v = edge_value[k]
            if k in (1, 6) and d[0 if k == 1 else 7] != 0:
                v = 0.5  # a C square next to a taken corner is harmless
            total += v if state == 1 else -v
        w[:, start + idx] = total * s / 2  # halved: each corner square belongs to two edge instances
    start, end = _pattern_table("corner3x3")
    for idx in range(end - start):
        d = _digits(idx, 9)  # squares (0,0),(0,1),(0,2),(1,0),(1,1),...
        if d[0] == 0 and d[4] != 0:
            w[:, start + idx] = (-3.0 if d[4] == 1 else 3.0) * s
    w[:, kernel.F_MOBILITY] = 0.8 * s
    w[:, kernel.F_POTENTIAL] = 0.3 * s
    return w


def save_weights(weights: np.ndarray, path: Path = WEIGHTS_FILE) -> None:
    """Store a table compactly (int16 in 1/SCALE disc units)."""
    q = np.clip(np.rint(weights), -32768, 32767).astype(np.int16)
    np.savez_compressed(path, weights=q, n_features=np.int64(kernel.N_FEATURES))


def load_weights(path: Path = WEIGHTS_FILE) -> np.ndarray | None:
    """The fitted table, or None when the file is missing or was made for another feature layout
    (or its phases do not split the 60 moves evenly, as the kernel reads them)."""
    if not path.exists():
        return None
    with np.load(path) as data:
        if int(data["n_features"]) != kernel.N_FEATURES:
            return None
        w = np.asarray(data["weights"], dtype=np.float32)
    if w.ndim != 2 or w.shape[1] != kernel.N_FEATURES or not 1 <= w.shape[0] <= 60 or 60 % w.shape[0]:
        return None
    return np.ascontiguousarray(w)


def read_weights(path: Path) -> np.ndarray:
    """The table in ``path``, or a ``ValueError`` that names the file and what is wrong with it:
    missing, unreadable, or made for another feature layout or phase count."""
    if not path.is_file():
        raise ValueError(f"{path}: no such weights file")
    try:
        table = load_weights(path)
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{path}: not a weights table ({exc})") from None
    if table is None:
        raise ValueError(f"{path}: a weights table for another feature layout or phase count")
    return table


@functools.cache
def default_weights() -> np.ndarray:
    """The fitted table when shipped, else the hand-made one."""
    fitted = load_weights()
    return fitted if fitted is not None else handmade_weights()
