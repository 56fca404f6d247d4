"""The Reversi training pipeline: self-play shards (labels, determinism, resuming, corrupt files) and the fit
(symmetric duplicates merged, held-out error, the table's layout)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.fit import FitConfig, canonical
from tabletop.ai.reversi.patterns import build_patterns
from tabletop.ai.reversi.search import Searcher
from tabletop.ai.reversi.train import GenConfig, play_shard
from tabletop.games.reversi import Board
from tabletop.train.reversi import (
    SelfPlay,
    encode,
    fit_directory,
    generate,
    load_dataset,
    load_shard,
    shard_path,
)
from tabletop.train.runner import LocalBackend, ShardError, run, write_shard

TABLETOP = str(Path(sys.executable).with_name("tabletop"))
TINY = GenConfig(seed=7, games=2, depth=1, exact=8, random_min=0, random_max=6, tt_mb=1.0)


def _board(player: int, opponent: int, black_to_move: bool) -> Board:
    rows = []
    for r in range(8):
        row = ""
        for c in range(8):
            bit = 1 << (r * 8 + c)
            mine, theirs = ("X", "O") if black_to_move else ("O", "X")
            row += mine if player & bit else theirs if opponent & bit else "-"
        rows.append(row)
    return Board("/".join(rows) + (" X" if black_to_move else " O"))


def test_a_shard_holds_legal_positions_with_their_labels(tmp_path: Path) -> None:
    searcher = Searcher(1.0)
    data = play_shard(TINY, 0, searcher)
    assert len(data["outcome"]) > 40
    assert set(np.unique(data["game"])) == {0, 1}
    for p, o, outcome, score, exact in zip(data["player"], data["opponent"], data["outcome"], data["score"],
                                           data["exact"], strict=True):
        p, o = int(p), int(o)
        assert p & o == 0 and -64 <= outcome <= 64
        assert int(kernel.get_moves(np.uint64(p), np.uint64(o))) != 0  # only positions with a move
        empties = 64 - (p | o).bit_count()
        assert bool(exact) == (empties <= TINY.exact)
        if exact:
            # from the first solved position the game is played perfectly: its outcome is the solved value
            assert score == outcome == Searcher(1.0).solve(p, o).score
    # the first position of each game is the start or a position reached from it by legal moves
    first = _board(int(data["player"][0]), int(data["opponent"][0]), True)
    assert first.legal_moves


def test_shards_are_deterministic_and_a_stopped_run_resumes(tmp_path: Path) -> None:
    made: list[tuple[int, bool]] = []
    generate(tmp_path / "a", TINY, 3, LocalBackend(1), lambda index, n, new: made.append((index, new)))
    assert sorted(made) == [(0, True), (1, True), (2, True)]
    first = {i: shard_path(tmp_path / "a", TINY, i).read_bytes() for i in range(3)}
    shard_path(tmp_path / "a", TINY, 1).unlink()  # as if the run had been stopped before shard 1 was whole
    made.clear()
    generate(tmp_path / "a", TINY, 3, LocalBackend(2), lambda index, n, new: made.append((index, new)))
    assert sorted(made) == [(0, False), (1, True), (2, False)]
    again = load_shard(shard_path(tmp_path / "a", TINY, 1))
    assert shard_path(tmp_path / "a", TINY, 1).read_bytes() == first[1]  # byte for byte, on two workers
    old = tmp_path / "old.shard"
    old.write_bytes(first[1])
    before = load_shard(old)
    for name in before:
        assert np.array_equal(before[name], again[name])
    assert not list((tmp_path / "a").glob(".*tmp"))  # no temporary file left behind


def test_a_corrupt_shard_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "reversi-00000000-000000.shard"
    write_shard(bad, b"PK\x03\x04 not a zip")  # whole as a file, but no archive inside
    with pytest.raises(ShardError, match="reversi-00000000-000000.shard"):
        load_shard(bad)
    done = subprocess.run([TABLETOP, "train", "reversi", "fit", "--dir", str(tmp_path), "--out",
                          str(tmp_path / "w.npz")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "reversi-00000000-000000.shard" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "w.npz").exists()


@pytest.mark.parametrize("argv, message", [
    (["gen", "--depth", "0"], "search depth"),
    (["gen", "--random-min", "30", "--random-max", "10"], "random plies"),
    (["gen", "--positions", "0"], "--positions"),
    (["fit", "--holdout", "0.9"], "--holdout"),
    (["fit", "--phases", "7"], "--phases"),
])
def test_bad_arguments_get_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    extra = ["--out", str(tmp_path / "w.npz")] if argv[0] == "fit" else []
    done = subprocess.run([TABLETOP, "train", "reversi", *argv, "--dir", str(tmp_path), *extra],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


boards = st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)).map(lambda t: (t[0] & ~t[1], t[1]))


@settings(max_examples=60, deadline=None)
@given(boards)
def test_every_symmetric_image_has_the_same_canonical_form(position: tuple[int, int]) -> None:
    p, o = position
    squares = [(sq, bool(p >> sq & 1), bool(o >> sq & 1)) for sq in range(64)]
    images = []
    for k in range(8):
        ip = io = 0
        for sq, is_p, is_o in squares:
            r, c = divmod(sq, 8)
            image = [(r, c), (c, r), (r, 7 - c), (7 - c, r), (7 - r, c), (c, 7 - r), (7 - r, 7 - c), (7 - c, 7 - r)][k]
            target = image[0] * 8 + image[1]
            ip |= is_p << target
            io |= is_o << target
        images.append((ip, io))
    cp, co = canonical(np.array([i[0] for i in images], dtype=np.uint64),
                       np.array([i[1] for i in images], dtype=np.uint64))
    assert len(set(zip(cp.tolist(), co.tolist(), strict=True))) == 1
    assert (int(cp[0]), int(co[0])) in images


def test_symmetric_duplicates_merge_with_the_mean_label(tmp_path: Path) -> None:
    p, o = (1 << 28) | (1 << 35) | (1 << 27), 1 << 36  # after f5... any position and its mirror image
    mirror = int(np.uint64(p).byteswap()), int(np.uint64(o).byteswap())  # rows reversed
    data = {"player": np.array([p, mirror[0], p ^ (1 << 0)], dtype=np.uint64),
            "opponent": np.array([o, mirror[1], o], dtype=np.uint64),
            "outcome": np.array([2, 4, -6], dtype=np.int8), "score": np.array([1.0, 3.0, -5.0], dtype=np.float32),
            "exact": np.zeros(3, dtype=bool), "game": np.array([0, 1, 2], dtype=np.int64)}
    write_shard(tmp_path / "reversi-test-000000.shard", encode(data))
    merged = load_dataset(tmp_path)
    assert merged.raw == 3 and len(merged) == 2
    assert sorted(merged.outcome.tolist()) == [-6.0, 3.0] and sorted(merged.score.tolist()) == [-5.0, 2.0]


def test_the_fit_writes_a_table_of_the_pattern_layout_and_prints_each_phase(tmp_path: Path) -> None:
    config = GenConfig(seed=3, games=6, depth=1, exact=6, random_min=0, random_max=40, tt_mb=1.0)
    run(SelfPlay(config), range(2), tmp_path / "data")
    lines: list[str] = []
    table = fit_directory(tmp_path / "data", tmp_path / "w.npz", FitConfig(phases=6, iterations=20, holdout=0.2),
                          lines.append)
    names = build_patterns()[2]
    with np.load(tmp_path / "w.npz") as saved:
        assert saved["weights"].shape == (6, int(names[-1][1]) + 4) == table.shape
        assert int(saved["n_features"]) == table.shape[1]
    rows = [line for line in lines if re.match(r"\s*\d+\s+\d+-\d+\s", line)]
    assert len(rows) == 6
    train_rms = [float(row.split()[4]) for row in rows]
    assert all(r >= 0 for r in train_rms)
    assert "distinct" in lines[0]
    overall = [line for line in lines if line.startswith("held out, every phase")]
    assert len(overall) == 1 and re.search(r"rms \d+\.\d\d discs, today's table \d+\.\d\d", overall[0])
