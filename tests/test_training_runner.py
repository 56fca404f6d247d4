"""The training runner (tabletop.train.runner): shards written whole and checked when read, a stopped run
resumed, the same bytes on local processes and on a real Ray cluster, and a Ray worker killed mid-shard.

The cluster is started here (a head node and a second worker node, one CPU each, no dashboard, a small
object store), each node a ``ray start --block`` process in its own session with its own temporary
folder, and ended by signalling those sessions only: ``ray stop`` would end every Ray process of the
machine, other people's clusters included.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tabletop.train.runner import (
    LocalBackend,
    RayBackend,
    RunnerError,
    ShardError,
    read_shard,
    run,
    write_shard,
)

HERE = Path(__file__).resolve().parent
RAY = str(Path(sys.executable).with_name("ray"))


# ------------------------------------------------------------------------------ jobs of these tests
@dataclass(frozen=True)
class Noise:
    """Shard ``index``: a few hundred bytes drawn from (seed, index); each make leaves a line in
    ``log`` (when given: the index and the worker's process id), so a test can count which shards
    were made, and by how many processes."""

    seed: int
    log: str = ""

    def shard_name(self, index: int) -> str:
        return f"noise-{self.seed}-{index:03d}.shard"

    def make(self, index: int) -> bytes:
        if self.log:
            with open(self.log, "a") as out:
                out.write(f"{index} {os.getpid()}\n")
        return random.Random(f"{self.seed}:{index}").randbytes(300 + index)


@dataclass(frozen=True)
class StallOne:
    """Every shard is made at once but ``victim``, whose worker writes its process id to
    ``folder/pid-VICTIM-PID`` and then waits for ``folder/go``."""

    folder: str
    victim: int

    def shard_name(self, index: int) -> str:
        return f"stall-{index:03d}.shard"

    def make(self, index: int) -> bytes:
        if index == self.victim:
            Path(self.folder, f"pid-{index}-{os.getpid()}").touch()
            deadline = time.monotonic() + 60
            while not Path(self.folder, "go").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return f"shard {index}".encode()


@dataclass(frozen=True)
class InProcess:
    """A backend that makes every shard in this process (for the runner's own bookkeeping)."""

    def map(self, job: Any, indices: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        for index in indices:
            yield index, job.make(index)


# ------------------------------------------------------------------------------ shard files
def test_a_shard_cut_short_or_altered_is_named_and_made_again(tmp_path: Path) -> None:
    job = Noise(seed=5)
    first = run(job, range(4), tmp_path, InProcess())
    assert sorted(first.made) == [0, 1, 2, 3] and not first.kept
    whole = {i: (tmp_path / job.shard_name(i)).read_bytes() for i in range(4)}
    assert read_shard(tmp_path / job.shard_name(2)) == job.make(2)
    cut, altered = tmp_path / job.shard_name(1), tmp_path / job.shard_name(3)
    cut.write_bytes(whole[1][:-7])  # as a copy cut short would leave it
    altered.write_bytes(whole[3][:10] + bytes([whole[3][10] ^ 1]) + whole[3][11:])
    with pytest.raises(ShardError, match=f"{cut.name}: not a whole shard"):
        read_shard(cut)
    with pytest.raises(ShardError, match=f"{altered.name}: not a whole shard .*checksum"):
        read_shard(altered)
    seen: list[tuple[int, bool]] = []
    second = run(job, range(4), tmp_path, InProcess(), lambda index, payload, new: seen.append((index, new)))
    assert sorted(second.made) == [1, 3] and sorted(second.kept) == [0, 2]
    assert len(second.broken) == 2 and all("not a whole shard" in message for message in second.broken)
    assert sorted(seen) == [(0, False), (1, True), (2, False), (3, True)]
    assert {i: (tmp_path / job.shard_name(i)).read_bytes() for i in range(4)} == whole
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_file_without_the_footer_is_not_a_shard(tmp_path: Path) -> None:
    path = tmp_path / "noise-1-000.shard"
    path.write_bytes(b"x" * 100)
    with pytest.raises(ShardError, match="no footer"):
        read_shard(path)
    write_shard(path, b"")
    assert read_shard(path) == b""


def test_a_stopped_run_resumes_without_making_its_finished_shards_again(tmp_path: Path) -> None:
    log = tmp_path / "made.log"
    job = Noise(seed=9, log=str(log))
    folder = tmp_path / "shards"

    def stop_after_two(index: int, payload: bytes, new: bool) -> None:
        if len(list(folder.glob("*.shard"))) == 2:
            raise KeyboardInterrupt  # as Ctrl-C (or the SIGTERM the command line maps to it) would

    with pytest.raises(KeyboardInterrupt):
        run(job, range(6), folder, LocalBackend(jobs=1), stop_after_two)
    finished = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.shard")}
    assert len(finished) == 2
    made_before = log.read_text().splitlines()
    report = run(job, range(6), folder, LocalBackend(jobs=1))
    assert len(report.kept) == 2 and len(report.made) == 4
    for name, mtime in finished.items():
        assert (folder / name).stat().st_mtime_ns == mtime  # kept as they were, not written again
    made_after = [line.split() for line in log.read_text().splitlines()[len(made_before):]]
    assert sorted(int(index) for index, _ in made_after) == sorted(report.made)
    assert len({pid for _, pid in made_after}) == 1  # one worker made them all: none was started again
    assert all(read_shard(folder / job.shard_name(i)) == job.make(i) for i in range(6))


def test_a_failing_shard_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="must differ"):
        run(Noise(1), [0, 0], tmp_path)
    with pytest.raises(RunnerError, match="jobs must be at least 1"):
        LocalBackend(jobs=0)


def test_a_ray_address_with_nothing_there_is_one_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # a port of ours that no one listens on
        port = s.getsockname()[1]
        with pytest.raises(RunnerError, match=f"no Ray cluster at 127.0.0.1:{port}"):
            run(Noise(1), [0], tmp_path, RayBackend(address=f"127.0.0.1:{port}"))
    with pytest.raises(RunnerError, match="host:port"):
        run(Noise(1), [0], tmp_path, RayBackend(address="nonsense"))
    assert not list(tmp_path.glob("*.shard"))


# ------------------------------------------------------------------------------ a real Ray cluster
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_node(args: list[str], temp: Path, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, RAY_DISABLE_USAGE_STATS="1", PYTHONPATH=os.pathsep.join(filter(None, [
        str(HERE), os.environ.get("PYTHONPATH", "")])))  # the workers import this module's jobs
    return subprocess.Popen(
        [RAY, "start", "--block", "--num-cpus", "1", "--object-store-memory", "100000000",
         "--disable-usage-stats", "--include-log-monitor=false", *args],
        env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True, cwd=temp,
    )


def _end_node(node: subprocess.Popen[bytes]) -> None:
    """End the node's whole session (its raylet and workers, the head's GCS), never another's: a
    moment to stop in order, then killed (a graceful stop of Ray takes tens of seconds)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(node.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            node.wait(2)
    node.wait(10)


def _wait_for_port(port: int, deadline: float, log: Path) -> None:
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A head node and a worker node of Ray on this machine; the driver (this process) joined to it.

    Token authentication is off for this cluster, explicitly (``RAY_AUTH_MODE=disabled`` for the
    nodes and this process): Ray 2.60 turns it on for a node that finds ``~/.ray/auth_token``, which a
    cluster started by ``ray.init()`` leaves behind, while this process may have read its mode when
    ``ray`` was first imported, before any setting of the fixture's; with the mode set on both sides
    the test does not depend on that file nor on the order the tests run in."""
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray = pytest.importorskip("ray")  # in requirements.lock: missing only where the extra was left out
    # Ray's node sockets live under its temp folder, and a Unix socket's path has at most 107 bytes:
    # pytest's folders (``/tmp/pytest-of-USER/pytest-NNN/popen-gwN/...``) are too deep for them
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    port = _free_port()
    address = f"127.0.0.1:{port}"
    nodes = [_start_node(["--head", "--port", str(port), "--include-dashboard=false", "--temp-dir",
                          str(temp / "head")], temp, temp / "head.log")]
    try:
        deadline = time.monotonic() + 90
        _wait_for_port(port, deadline, temp / "head.log")  # the GCS is up: the worker node can join
        nodes.append(_start_node(["--address", address], temp, temp / "worker.log"))
        ray.init(address=address, log_to_driver=False, logging_level="WARNING")
        while sum(n["Alive"] for n in ray.nodes()) < 2:
            assert time.monotonic() < deadline, (temp / "worker.log").read_text()[-2000:]
            time.sleep(0.2)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for node in reversed(nodes):
            _end_node(node)
        shutil.rmtree(temp, ignore_errors=True)
        if saved is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved


def test_the_same_seed_gives_the_same_shards_on_local_processes_and_on_ray(cluster: str, tmp_path: Path) -> None:
    # imported here, not at the top: the workers of the other tests import this module without numba's kernels
    from tabletop.ai.reversi.train import GenConfig
    from tabletop.train.reversi import SelfPlay, load_shard

    job = SelfPlay(GenConfig(seed=11, games=2, depth=1, exact=6, random_min=0, random_max=8, tt_mb=1.0))
    local = run(job, range(3), tmp_path / "local", LocalBackend(jobs=1))  # two workers: test_reversi_train
    ray = run(job, range(3), tmp_path / "ray", RayBackend(address=cluster))
    assert sorted(local.made) == sorted(ray.made) == [0, 1, 2]
    for index in range(3):
        name = job.shard_name(index)
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes()
        assert len(load_shard(tmp_path / "ray" / name)["outcome"]) > 20


def _run_killing_the_victim(job: StallOne, folder: Path, backend: Any) -> tuple[Any, int, dict[str, tuple[int, int]]]:
    """Run ``job``'s shards 0-4, killing the worker of shard 3 with SIGKILL once shards 0-2 are
    written; the run's report, the killed process id and shards 0-2's (inode, mtime) before the kill."""
    before: dict[str, tuple[int, int]] = {}
    victims: list[int] = []
    marks = Path(job.folder)

    def kill_the_victim() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pids = list(marks.glob("pid-3-*"))
            finished = [folder / job.shard_name(i) for i in range(3)]
            if pids and all(p.exists() for p in finished):
                before.update({p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in finished})
                victims.append(int(pids[0].name.rsplit("-", 1)[1]))
                os.kill(victims[0], signal.SIGKILL)
                (marks / "go").touch()  # the shard's second try goes through
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_victim)
    killer.start()
    try:
        report = run(job, range(5), folder, backend)
    finally:
        (marks / "go").touch()
        killer.join()
    assert victims, "the victim's worker never started"
    return report, victims[0], before


def _check_the_run_after_the_kill(job: StallOne, folder: Path, report: Any, victim: int,
                                  before: dict[str, tuple[int, int]]) -> None:
    assert sorted(report.made) == [0, 1, 2, 3, 4]
    tries = sorted(int(p.name.rsplit("-", 1)[1]) for p in Path(job.folder).glob("pid-3-*"))
    assert len(tries) == 2 and victim in tries  # made again by another worker process
    after = {name: ((folder / name).stat().st_ino, (folder / name).stat().st_mtime_ns) for name in before}
    assert after == before  # the shards finished before the kill were not touched
    assert [read_shard(folder / job.shard_name(i)) for i in range(5)] == [f"shard {i}".encode() for i in range(5)]


def test_a_local_worker_killed_mid_shard_loses_no_finished_shard_and_its_shard_is_made_again(tmp_path: Path) -> None:
    job = StallOne(folder=str(tmp_path), victim=3)
    report, victim, before = _run_killing_the_victim(job, tmp_path / "shards", LocalBackend(jobs=2))
    _check_the_run_after_the_kill(job, tmp_path / "shards", report, victim, before)


def test_a_ray_worker_killed_mid_shard_loses_no_finished_shard_and_its_shard_is_made_again(
    cluster: str, tmp_path: Path
) -> None:
    job = StallOne(folder=str(tmp_path), victim=3)
    report, victim, before = _run_killing_the_victim(job, tmp_path / "shards", RayBackend(address=cluster, retries=3))
    _check_the_run_after_the_kill(job, tmp_path / "shards", report, victim, before)
