"""``tabletop bench gomoku`` runs end to end and reports every figure with its reference."""

from __future__ import annotations

import json

import pytest

from tabletop.cli import main


def test_bench_gomoku_reports_playouts_and_the_forbidden_scan(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "gomoku", "--seconds", "0.05", "--positions", "5", "--json", "--no-engine"])
    assert code == 0
    figures = json.loads(capsys.readouterr().out)
    for key in ("freestyle_playouts_per_s", "mnk_reference_playouts_per_s", "renju_playouts_per_s", "scan_mean_us", "naive_scan_mean_us"):
        assert figures[key] > 0
    assert figures["scan_positions"] == 5
