"""Fit the Reversi evaluation from self-play positions (:mod:`tabletop.ai.reversi.train`).

The shards are read by :mod:`tabletop.train.reversi`, which hands their arrays here; this module
reads no shard file.

1. Take every shard's positions; identical positions (up to the board's 8 symmetries) become one, with the mean of
   their labels.  The count printed is of these distinct positions.
2. Hold out a share of the distinct positions (by a hash of the position, so a position is never on
   both sides) for validation.
3. Per phase (a range of empty squares), fit the weights of every pattern configuration and of the
   scalar features (mobility, potential mobility, parity, a bias) by ridge least squares, solved by
   conjugate gradients with a diagonal preconditioner (numpy and numba only).  Each phase is fitted on
   its own positions and, at half weight, on those of the phases beside it, so that configurations
   rare in one phase borrow from its neighbours.
4. Print, per phase, the root-mean-square error in discs on the training and held-out positions, and
   the held-out error of the table in use today for comparison; write the table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.patterns import build_patterns

__all__ = ["FitConfig", "Dataset", "canonical", "fit_dataset", "merge_positions"]

N_SCALARS = 4  # mobility, potential mobility, parity, bias: the features after the pattern tables


@dataclass(frozen=True)
class FitConfig:
    ridge: float = 3.0
    iterations: int = 60
    holdout: float = 0.05
    label: str = "mix"  # "outcome", "score" or "mix" (their mean)
    phases: int = 12
    neighbour_weight: float = 0.5

    def __post_init__(self) -> None:
        if not self.ridge >= 0:
            raise ValueError(f"--ridge must be zero or more, not {self.ridge}")
        if self.iterations < 1:
            raise ValueError(f"--iterations must be at least 1, not {self.iterations}")
        if not 0 < self.holdout < 0.5:
            raise ValueError(f"--holdout must be between 0 and 0.5, not {self.holdout}")
        if self.label not in ("outcome", "score", "mix"):
            raise ValueError(f"--label must be outcome, score or mix, not {self.label!r}")
        if not 1 <= self.phases <= 60 or 60 % self.phases:
            raise ValueError(f"--phases must divide 60, not {self.phases}")


@dataclass
class Dataset:
    """Distinct positions (canonical form) with their labels in discs, mover's side."""

    player: np.ndarray
    opponent: np.ndarray
    outcome: np.ndarray
    score: np.ndarray
    raw: int  # positions read before merging the identical ones

    def __len__(self) -> int:
        return len(self.player)


# ------------------------------------------------------------------------------ symmetries
_K1 = np.uint64(0x5555555555555555)
_K2 = np.uint64(0x3333333333333333)
_K4 = np.uint64(0x0F0F0F0F0F0F0F0F)


def _mirror(x: np.ndarray) -> np.ndarray:
    """Columns reversed (a <-> h) for every board in ``x``."""
    x = ((x >> np.uint64(1)) & _K1) | ((x & _K1) << np.uint64(1))
    x = ((x >> np.uint64(2)) & _K2) | ((x & _K2) << np.uint64(2))
    return ((x >> np.uint64(4)) & _K4) | ((x & _K4) << np.uint64(4))


def _flip(x: np.ndarray) -> np.ndarray:
    """Rows reversed (1 <-> 8)."""
    return x.byteswap()


def _transpose(x: np.ndarray) -> np.ndarray:
    """Rows and columns exchanged (the a1-h8 diagonal kept)."""
    t = (x ^ (x >> np.uint64(7))) & np.uint64(0x00AA00AA00AA00AA)
    x = x ^ t ^ (t << np.uint64(7))
    t = (x ^ (x >> np.uint64(14))) & np.uint64(0x0000CCCC0000CCCC)
    x = x ^ t ^ (t << np.uint64(14))
    t = (x ^ (x >> np.uint64(28))) & np.uint64(0x00000000F0F0F0F0)
    out: np.ndarray = x ^ t ^ (t << np.uint64(28))
    return out


def canonical(player: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least (player, opponent) pair among each position's 8 symmetric images."""
    best_p, best_o = player.copy(), opponent.copy()
    images = [(player, opponent)]
    for f in (_mirror, _flip):
        images += [(f(p), f(o)) for p, o in images]
    images += [(_transpose(p), _transpose(o)) for p, o in images]
    for p, o in images[1:]:
        better = (p < best_p) | ((p == best_p) & (o < best_o))
        best_p = np.where(better, p, best_p)
        best_o = np.where(better, o, best_o)
    return best_p, best_o


def merge_positions(parts: Sequence[Mapping[str, np.ndarray]]) -> Dataset:
    """The positions of every shard's arrays in ``parts``, identical positions (up to symmetry) merged."""
    player = np.concatenate([part["player"] for part in parts])
    opponent = np.concatenate([part["opponent"] for part in parts])
    outcome = np.concatenate([part["outcome"] for part in parts]).astype(np.float64)
    score = np.concatenate([part["score"] for part in parts]).astype(np.float64)
    cp, co = canonical(player, opponent)
    keys = np.stack([cp, co], axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.bincount(inverse)
    return Dataset(
        player=np.ascontiguousarray(unique[:, 0]),
        opponent=np.ascontiguousarray(unique[:, 1]),
        outcome=np.bincount(inverse, outcome) / counts,
        score=np.bincount(inverse, score) / counts,
        raw=len(player),
    )


# ------------------------------------------------------------------------------ features
# The pattern index is kernel.feature_indices_by_squares' loop, over the pattern set being fitted
# (an argument) rather than the shipped one the kernel compiles in as a constant.
@njit(cache=True)
def _features(
    player: np.ndarray, opponent: np.ndarray, squares: np.ndarray, offsets: np.ndarray,
    index: np.ndarray, scalars: np.ndarray, empties: np.ndarray,
) -> None:
    for n in range(player.shape[0]):
        p = player[n]
        o = opponent[n]
        for i in range(squares.shape[0]):
            idx = 0
            for k in range(squares.shape[1] - 1, -1, -1):
                sq = squares[i, k]
                if sq < 0:
                    continue
                idx *= 3
                b = np.uint64(1) << np.uint64(sq)
                if p & b:
                    idx += 1
                elif o & b:
                    idx += 2
            index[n, i] = offsets[i] + idx
        e = 64 - kernel.count(p | o)
        empties[n] = e
        scalars[n, 0] = kernel.count(kernel.get_moves(p, o)) - kernel.count(kernel.get_moves(o, p))
        scalars[n, 1] = kernel._potential(p, o) - kernel._potential(o, p)
        scalars[n, 2] = 1.0 if e & 1 else -1.0
        scalars[n, 3] = 1.0


def features(data: Dataset, squares: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each position's weight index per pattern instance, its scalar features and its empty squares."""
    n = len(data)
    index = np.zeros((n, squares.shape[0]), dtype=np.int64)
    scalars = np.zeros((n, N_SCALARS), dtype=np.float64)
    empties = np.zeros(n, dtype=np.int64)
    _features(data.player, data.opponent, squares, offsets, index, scalars, empties)
    return index, scalars, empties


# ------------------------------------------------------------------------------ the fit
def _predict(w: np.ndarray, index: np.ndarray, scalars: np.ndarray, n_pattern: int) -> np.ndarray:
    out: np.ndarray = w[index].sum(axis=1) + scalars @ w[n_pattern:]
    return out


def _gradient(r: np.ndarray, index: np.ndarray, scalars: np.ndarray, n_pattern: int) -> np.ndarray:
    """X^T r: the pattern columns by counting, the scalar columns by a product."""
    out = np.empty(n_pattern + N_SCALARS)
    out[:n_pattern] = np.bincount(index.ravel(), np.repeat(r, index.shape[1]), minlength=n_pattern)
    out[n_pattern:] = scalars.T @ r
    return out


def fit_phase(
    index: np.ndarray, scalars: np.ndarray, target: np.ndarray, weight: np.ndarray,
    n_pattern: int, ridge: float, iterations: int,
) -> np.ndarray:
    """Weights minimising sum(weight * (X w - target)^2) + ridge * |w|^2, by preconditioned conjugate
    gradients on the normal equations."""
    diag = np.empty(n_pattern + N_SCALARS)
    diag[:n_pattern] = np.bincount(index.ravel(), np.repeat(weight, index.shape[1]), minlength=n_pattern)
    diag[n_pattern:] = (scalars**2 * weight[:, None]).sum(axis=0)
    diag += ridge
    diag[diag == 0] = 1.0

    def normal(v: np.ndarray) -> np.ndarray:
        return _gradient(weight * _predict(v, index, scalars, n_pattern), index, scalars, n_pattern) + ridge * v

    w = np.zeros(n_pattern + N_SCALARS)
    r = _gradient(weight * target, index, scalars, n_pattern)
    z = r / diag
    d = z.copy()
    rz = float(r @ z)
    for _ in range(iterations):
        q = normal(d)
        dq = float(d @ q)
        if dq <= 0:
            break
        step = rz / dq
        w += step * d
        r -= step * q
        z = r / diag
        rz_next = float(r @ z)
        if rz_next < 1e-12 * max(1.0, rz):
            break
        d = z + (rz_next / rz) * d
        rz = rz_next
    return w


def _rms(error: np.ndarray) -> float:
    return float(np.sqrt(np.mean(error**2))) if len(error) else float("nan")


@njit(cache=True)
def _evaluate_all(player: np.ndarray, opponent: np.ndarray, weights: np.ndarray, out: np.ndarray) -> None:
    for n in range(player.shape[0]):
        out[n] = kernel.evaluate(player[n], opponent[n], weights) / kernel.SCALE


def fit_dataset(data: Dataset, out: Path, config: FitConfig, say: Callable[[str], None]) -> np.ndarray:
    """Fit from ``data``, print the errors through ``say``, write the table to ``out``."""
    from tabletop.ai.reversi.eval import default_weights

    say(f"{data.raw:,} positions read, {len(data):,} distinct (the board's symmetries merged)")
    squares, offsets, names = build_patterns()
    n_pattern = int(names[-1][1])
    index, scalars, empties = features(data, squares, offsets)
    if config.label == "outcome":
        target = data.outcome
    elif config.label == "score":
        target = data.score
    else:
        target = (data.outcome + data.score) / 2
    held = (data.player * np.uint64(0x9E3779B97F4A7C15) ^ data.opponent) % np.uint64(10_000) < np.uint64(
        round(config.holdout * 10_000)
    )
    today = np.zeros(len(data))
    _evaluate_all(data.player, data.opponent, np.ascontiguousarray(default_weights(), dtype=np.float32), today)
    width = 60 // config.phases
    phase_of = np.clip((60 - empties) // width, 0, config.phases - 1)
    table = np.zeros((config.phases, n_pattern + N_SCALARS))
    say(f"{'phase':>5} {'empties':>8} {'train':>9} {'held out':>9} {'rms train':>10} {'rms held out':>13} "
        f"{'today held out':>15}")
    checked: list[np.ndarray] = []  # each phase's held-out errors, for the whole set's line
    for k in range(config.phases):
        near = (np.abs(phase_of - k) <= 1) & ~held
        weight = np.where(phase_of[near] == k, 1.0, config.neighbour_weight)
        w = fit_phase(index[near], scalars[near], target[near], weight, n_pattern, config.ridge, config.iterations)
        table[k] = w
        train = (phase_of == k) & ~held
        check = (phase_of == k) & held
        err_train = _predict(w, index[train], scalars[train], n_pattern) - target[train]
        err_check = _predict(w, index[check], scalars[check], n_pattern) - target[check]
        err_today = today[check] - target[check]
        checked.append(err_check)
        hi = 60 - k * width
        say(f"{k:>5} {hi - width + 1:>3}-{hi:<4} {int(train.sum()):>9,} {int(check.sum()):>9,} "
            f"{_rms(err_train):>10.2f} {_rms(err_check):>13.2f} {_rms(err_today):>15.2f}")
    err_all = np.concatenate(checked)  # the whole held-out set, each position by its own phase's table
    say(f"held out, every phase: rms {_rms(err_all):.2f} discs, today's table {_rms(today[held] - target[held]):.2f}")
    save_table(table * kernel.SCALE, names, out)
    say(f"wrote {out} ({config.phases} phases x {n_pattern + N_SCALARS:,} weights)")
    return table


def save_table(weights: np.ndarray, names: list[tuple[str, int]], path: Path) -> None:
    """The table in 1/SCALE disc units as int16, with the layout it was made for."""
    q = np.clip(np.rint(weights), -32768, 32767).astype(np.int16)
    layout = ",".join(f"{name}:{offset}" for name, offset in names)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez_compressed(tmp, weights=q, n_features=np.int64(weights.shape[1]), layout=np.array(layout))
    tmp.replace(path)
