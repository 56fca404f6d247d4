"""The evaluation-fit script on a tiny run: deterministic, and phases it does not refit stay byte-identical."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import WEIGHTS_FILE


def test_search_labelled_fit_is_deterministic_and_keeps_other_phases(
    tmp_path: Path, load_script: Callable[[str], ModuleType]
) -> None:
    fit = load_script("fit_reversi_eval")
    outs = []
    for name in ("a.npz", "b.npz"):
        out = tmp_path / name
        argv = ["--games", "30", "--start", "shipped", "--phases", "0", "--label-depth", "1"]
        assert fit.main([*argv, "--seed", "3", "--out", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    new = np.load(tmp_path / "a.npz")["weights"]
    shipped = np.load(WEIGHTS_FILE)["weights"]
    assert new.shape == shipped.shape == (kernel.N_PHASES, kernel.N_FEATURES)
    for ph in range(1, kernel.N_PHASES):
        assert np.array_equal(new[ph], shipped[ph])


def test_bad_phases_give_a_clear_error(load_script: Callable[[str], ModuleType]) -> None:
    with pytest.raises(SystemExit, match="phases run from 0"):
        load_script("fit_reversi_eval").main(["--phases", "9"])
