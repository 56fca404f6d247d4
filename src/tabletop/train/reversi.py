"""Reversi self-play data through the training runner: the job, its shard files and the fit's reading of them.

A shard of :class:`SelfPlay` is the positions of ``games`` self-play games
(:func:`tabletop.ai.reversi.train.play_shard`) as a compressed ``.npz`` archive inside the runner's
checked shard file ``reversi-TAG-INDEX.shard`` (TAG: the settings, :meth:`GenConfig.tag`).  The
archive is written with fixed member dates, so the same settings and index give the same bytes on
any backend.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.ai.reversi.fit import Dataset, FitConfig, fit_dataset, merge_positions
from tabletop.ai.reversi.search import Searcher
from tabletop.ai.reversi.train import SHARD_FIELDS, GenConfig, play_shard
from tabletop.train.runner import Backend, RunReport, ShardError, read_shard, run

__all__ = ["SelfPlay", "decode", "encode", "fit_directory", "generate", "load_dataset", "load_shard",
           "shard_files", "shard_path"]

_SEARCHERS: dict[float, Searcher] = {}  # one per worker process and table size, reused shard after shard


@dataclass(frozen=True)
class SelfPlay:
    """The job of ``tabletop train reversi gen``: shard ``index`` is ``config.games`` games."""

    config: GenConfig

    def shard_name(self, index: int) -> str:
        return f"reversi-{self.config.tag()}-{index:06d}.shard"

    def make(self, index: int) -> bytes:
        searcher = _SEARCHERS.get(self.config.tt_mb)
        if searcher is None:
            searcher = _SEARCHERS[self.config.tt_mb] = Searcher(self.config.tt_mb)
        return encode(play_shard(self.config, index, searcher))


def encode(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` as a compressed ``.npz`` archive, byte for byte the same for the same arrays."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in SHARD_FIELDS:
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def decode(payload: bytes, where: Path | str) -> dict[str, np.ndarray]:
    """The arrays of a shard's payload; :class:`ShardError` naming ``where`` when they are not a shard's."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as data:
            arrays = {name: data[name] for name in SHARD_FIELDS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ShardError(f"{where}: not a Reversi training shard ({exc.__class__.__name__}: {exc})") from None
    n = len(arrays["outcome"])
    if any(len(a) != n for a in arrays.values()):
        raise ShardError(f"{where}: its arrays have different lengths")
    return arrays


def shard_path(directory: Path, config: GenConfig, index: int) -> Path:
    return directory / SelfPlay(config).shard_name(index)


def load_shard(path: Path) -> dict[str, np.ndarray]:
    """A shard's arrays, checked; :class:`ShardError` naming the file when it is not whole."""
    return decode(read_shard(path), path)


def shard_files(directory: Path) -> list[Path]:
    """Every finished shard in ``directory`` (any settings), in name order."""
    if not directory.is_dir():
        raise ShardError(f"{directory}: no such directory of training shards")
    return sorted(directory.glob("reversi-*.shard"))


def generate(
    directory: Path,
    config: GenConfig,
    shards: int,
    backend: Backend | None,
    on_shard: Callable[[int, int, bool], None],
) -> RunReport:
    """Make shards ``0..shards-1`` on ``backend``; ``on_shard(index, positions, new)`` is called in
    this process as each one is there (``new``: made now, not found from an earlier run)."""
    if shards < 1:
        raise ValueError(f"the number of shards must be at least 1, not {shards}")
    job = SelfPlay(config)

    def count(index: int, payload: bytes, new: bool) -> None:
        on_shard(index, len(decode(payload, directory / job.shard_name(index))["outcome"]), new)

    return run(job, range(shards), directory, backend, count)


def load_dataset(directory: Path) -> Dataset:
    """Every shard in ``directory``, identical positions merged; :class:`ShardError` names a bad shard."""
    files = shard_files(directory)
    if not files:
        raise ShardError(f"{directory}: no training shards (reversi-*.shard) here")
    return merge_positions([load_shard(path) for path in files])


def fit_directory(directory: Path, out: Path, config: FitConfig, say: Callable[[str], None]) -> np.ndarray:
    """Fit from the shards in ``directory``, print the errors through ``say``, write the table to ``out``."""
    data = load_dataset(directory)
    return fit_dataset(data, out, config, say)
