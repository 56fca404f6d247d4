"""The evaluation-fit script on a tiny run: deterministic, and phases it does not refit stay byte-identical."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import WEIGHTS_FILE

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fit_reversi_eval.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_reversi_eval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_search_labelled_fit_is_deterministic_and_keeps_other_phases(tmp_path: Path) -> None:
    fit = _script()
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


def test_bad_phases_give_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="phases run from 0"):
        _script().main(["--phases", "9"])
