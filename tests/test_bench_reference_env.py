"""``tabletop.bench.reference_python``: the one way a benchmark installs an outside program.

``subprocess.run`` is replaced by a recorder that makes the venv's python file, so
no venv is built and nothing is downloaded.  Each test runs twice: with uv (found
beside the project's python, as ``make setup`` puts it) and with venv and pip alone.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tabletop.bench import reference_python

UV = "/opt/uv-for-the-test/uv"


class Recorder:
    def __init__(self, uv: bool) -> None:
        self.uv = uv  # whether uv is found: then it, and never venv or pip, makes and installs
        self.calls: list[list[str]] = []
        self.fail_install = False

    def __call__(self, argv: list[str], check: bool = False, **kwargs: Any) -> None:
        argv = [str(a) for a in argv]
        self.calls.append(argv)
        made = argv[3] if argv[1:3] == ["-m", "venv"] else argv[-1] if argv[:2] == [UV, "venv"] else None
        if made is not None:
            python = Path(made) / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text("")
        elif argv[1:3] == ["-m", "ensurepip"]:
            (Path(argv[0]).parent / "pip").write_text("")
        elif self.fail_install:
            raise subprocess.CalledProcessError(1, argv)

    def venvs(self) -> int:
        by_venv = sum(c[1:3] == ["-m", "venv"] for c in self.calls)
        by_uv = sum(c[:2] == [UV, "venv"] for c in self.calls)
        assert not (by_uv if not self.uv else by_venv), self.calls
        return by_uv + by_venv

    def installs(self) -> list[list[str]]:
        """The requirements of each install, by pip or by uv (into the environment's python)."""
        by_pip = [c[4:] for c in self.calls if c[1:4] == ["-m", "pip", "install"]]
        by_uv = [c[6:] for c in self.calls if c[:3] == [UV, "pip", "install"]]
        assert not (by_pip if self.uv else by_uv), self.calls
        for c in self.calls:
            if c[:3] == [UV, "pip", "install"]:
                assert c[3:5] == ["-q", "--python"] and c[5].endswith("/bin/python"), c
        return [["-q", *r] for r in by_uv] if self.uv else by_pip


@pytest.fixture(params=["uv", "pip"])
def recorder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder(uv=request.param == "uv")
    monkeypatch.setattr(subprocess, "run", recorder)
    monkeypatch.setattr(shutil, "which", lambda name, path=None: UV if recorder.uv else None)
    return recorder


def test_first_use_creates_the_env_and_installs_the_pins_once(tmp_path: Path, recorder: Recorder) -> None:
    python = reference_python(tmp_path, "judge", "renju==0.1.0")
    assert python == tmp_path / ".bench-envs" / "judge" / "bin" / "python"
    assert reference_python(tmp_path, "judge", "renju==0.1.0") == python
    assert recorder.venvs() == 1
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


def test_without_uv_an_environment_uv_made_gets_pip_before_pip_installs(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(uv=True)
    monkeypatch.setattr(subprocess, "run", recorder)
    monkeypatch.setattr(shutil, "which", lambda name, path=None: UV)
    python = reference_python(tmp_path, "judge", "renju==0.1.0")
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    reference_python(tmp_path, "judge", "renju==0.2.0")
    reference_python(tmp_path, "judge", "renju==0.3.0")
    assert [c[1:] for c in recorder.calls if c[0] == str(python)] == [
        ["-m", "ensurepip", "-q"], ["-m", "pip", "install", "-q", "renju==0.2.0"],
        ["-m", "pip", "install", "-q", "renju==0.3.0"],  # pip is there now: no second ensurepip
    ]
