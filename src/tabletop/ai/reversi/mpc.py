"""The Multi-ProbCut table of the Reversi search: how well a shallow search predicts a deep one.

For each number of empty squares and each search depth the table holds the
shallow depth that is searched first and the fit ``deep = a + b * shallow + e``
with the standard deviation ``sigma`` of ``e`` (``SCALE`` units), measured by
``scripts/fit_reversi_mpc.py`` from positions the engine plays itself.  The
column ``kernel.MPC_END`` fits the exact final score against a shallow search,
for the selective endgame.  The fitted table ships as ``mpc.npz`` beside this
module; without it (or for another layout) the search cuts nothing.  This
module only loads, stores and builds tables; it must not search or fit.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel

__all__ = ["MPC_FILE", "default_mpc", "load_mpc", "save_mpc", "shallow_depth", "table_from_fits"]

MPC_FILE = Path(__file__).with_name("mpc.npz")


def shallow_depth(depth: int) -> int:
    """The shallow depth that predicts a ``depth`` search: about half, with the same parity
    (Reversi scores swing between odd and even depths), at least 1."""
    s = depth // 2
    if (depth - s) % 2:
        s -= 1
    return max(1, s)


def table_from_fits(
    mid: dict[tuple[int, int], tuple[float, float, float]],
    end: dict[int, tuple[int, float, float, float]],
) -> np.ndarray:
    """The kernel's table from fits: ``mid[(empties, depth)] = (a, b, sigma)`` for a search to
    ``depth`` (shallow depth :func:`shallow_depth`), ``end[empties] = (shallow, a, b, sigma)`` for
    a search to the end."""
    table = kernel.new_mpc_table()
    for (empties, depth), (a, b, sigma) in mid.items():
        if depth >= kernel.MPC_MIN_DEPTH and depth < empties:
            table[empties, depth] = (shallow_depth(depth), a, b, sigma)
    for empties, (shallow, a, b, sigma) in end.items():
        table[empties, kernel.MPC_END] = (shallow, a, b, sigma)
    return table


def _check(table: np.ndarray) -> None:
    shallow = table[:, :, kernel.MPC_SHALLOW]
    if table.shape != kernel.new_mpc_table().shape:
        raise ValueError(f"a cut table must have shape {kernel.new_mpc_table().shape}, not {table.shape}")
    used = shallow > 0
    if np.any(table[:, :, kernel.MPC_B][used] <= 0) or np.any(table[:, :, kernel.MPC_SIGMA][used] <= 0):
        raise ValueError("a cut table needs a positive slope and deviation in every used cell")


def save_mpc(table: np.ndarray, path: Path = MPC_FILE, **info: object) -> None:
    """Store a table (float32, compressed) with ``info`` (how it was made) beside it."""
    _check(table)
    extra = {k: np.asarray(str(v)) for k, v in info.items()}
    np.savez_compressed(path, table=np.asarray(table, dtype=np.float32), **extra)  # type: ignore[arg-type]


def load_mpc(path: Path = MPC_FILE) -> np.ndarray | None:
    """The stored table, or None when the file is missing or has another layout."""
    if not path.exists():
        return None
    with np.load(path) as data:
        table = np.ascontiguousarray(data["table"], dtype=np.float32)
    try:
        _check(table)
    except ValueError:
        return None
    return table


@functools.cache
def default_mpc() -> np.ndarray:
    """The shipped table, or one that cuts nothing."""
    table = load_mpc()
    return table if table is not None else kernel.NO_MPC
