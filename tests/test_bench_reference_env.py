"""``tabletop.bench.reference_python``: the one way a benchmark installs an outside program.

``subprocess.run`` is replaced by a recorder that makes the venv's python file, so
no venv is built and nothing is downloaded.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tabletop.bench import reference_python


class Recorder:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.fail_install = False

    def __call__(self, argv: list[str], check: bool = False, **kwargs: Any) -> None:
        self.calls.append([str(a) for a in argv])
        if argv[1:3] == ["-m", "venv"]:
            python = Path(argv[3]) / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text("")
        elif self.fail_install:
            raise subprocess.CalledProcessError(1, argv)

    def installs(self) -> list[list[str]]:
        return [c[4:] for c in self.calls if c[1:4] == ["-m", "pip", "install"]]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    monkeypatch.setattr(subprocess, "run", recorder)
    return recorder


def test_first_use_creates_the_env_and_installs_the_pins_once(tmp_path: Path, recorder: Recorder) -> None:
    python = reference_python(tmp_path, "judge", "renju==0.1.0")
    assert python == tmp_path / ".bench-envs" / "judge" / "bin" / "python"
    assert reference_python(tmp_path, "judge", "renju==0.1.0") == python
    assert sum(c[1:3] == ["-m", "venv"] for c in recorder.calls) == 1
    assert recorder.installs() == [["-q", "renju==0.1.0"]]


def test_a_new_pin_or_a_failed_install_is_installed_again(tmp_path: Path, recorder: Recorder) -> None:
    recorder.fail_install = True
    with pytest.raises(subprocess.CalledProcessError):
        reference_python(tmp_path, "pgx", "pgx==2.6.0")
    recorder.fail_install = False
    reference_python(tmp_path, "pgx", "pgx==2.6.0")
    reference_python(tmp_path, "pgx", "pgx==2.7.0", "jax==0.10.2")
    assert recorder.installs() == [
        ["-q", "pgx==2.6.0"],
        ["-q", "pgx==2.6.0"],
        ["-q", "pgx==2.7.0", "jax==0.10.2"],
    ]
