"""One runner for every training job: numbered shards made on a backend, each written whole, a run resumed.

A job (:class:`Job`) is a small picklable value: its fields are its parameters (a seed among them),
``shard_name(index)`` names the file of shard ``index`` and ``make(index)`` computes that shard's
bytes.  ``make`` draws every random choice from (seed, index) alone, so a shard's bytes do not
depend on the process or the machine that made it, nor on the order shards are made in: the same
seed gives the same data on any backend, and a run can be stopped and resumed at any point.

:func:`run` makes the shards of the indices asked for that are not already in the directory.  The
workers only compute; this process writes each shard as it comes back: the bytes and a footer (a
magic word, the length and the SHA-256 of the bytes) to a temporary name, flushed to disk, then
renamed, so a shard file is whole or absent.  :func:`read_shard` checks the footer: a shard that
fails the check (cut short, overwritten) is made again, never read.

Backends: :class:`LocalBackend` (spawned worker processes on this machine, the default, with
nothing beyond the standard library) and :class:`RayBackend` (Ray tasks on a cluster; ``ray`` is
imported only when that backend runs, from the optional extra ``ray``).  A worker that dies in the
middle of a shard (killed, out of memory) costs only that shard's work: the task runs again on
another worker (Ray's ``max_retries``; the local pool is started again with what is left), and
every shard already written stays.

This module never looks inside a shard: what one holds is its job's business.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import socket
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tabletop.errors import UsageError

__all__ = [
    "Backend",
    "Job",
    "LocalBackend",
    "RayBackend",
    "RunReport",
    "RunnerError",
    "ShardError",
    "backend_from",
    "read_shard",
    "run",
    "write_shard",
]

MAGIC = b"TTSHARD1"
FOOTER = len(MAGIC) + 8 + 32  # magic, payload length (little-endian), SHA-256 of the payload


class ShardError(UsageError):
    """A shard file that is not whole (cut short, altered, not written by the runner); the message names it."""


class RunnerError(UsageError):
    """A run that cannot go on: no cluster at the address, a job that fails, workers lost too often."""


class Job(Protocol):
    """What :func:`run` needs of a job; a frozen dataclass defined at a module's top level fits
    (it travels to the workers by pickling)."""

    def shard_name(self, index: int) -> str:
        """The file name of shard ``index`` (the same for every run of the same job and settings)."""
        ...

    def make(self, index: int) -> bytes:
        """Shard ``index``'s bytes, from the job's parameters and ``index`` alone."""
        ...


# ------------------------------------------------------------------------------ shard files
def write_shard(path: Path, payload: bytes) -> None:
    """Write ``payload`` with its footer to ``path``: whole, or not at all."""
    footer = MAGIC + len(payload).to_bytes(8, "little") + hashlib.sha256(payload).digest()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as out:
        out.write(payload)
        out.write(footer)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def read_shard(path: Path) -> bytes:
    """The payload of the shard at ``path``, checked against its footer; :class:`ShardError` when it
    is not whole."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ShardError(f"{path}: cannot read the shard ({exc.strerror})") from None
    if len(data) < FOOTER or data[-FOOTER : -FOOTER + len(MAGIC)] != MAGIC:
        raise ShardError(f"{path}: not a whole shard (no footer: cut short, or not written by the runner)")
    payload, length, digest = data[:-FOOTER], data[-40:-32], data[-32:]
    if int.from_bytes(length, "little") != len(payload):
        raise ShardError(f"{path}: not a whole shard ({len(payload)} bytes where the footer says "
                         f"{int.from_bytes(length, 'little')})")
    if hashlib.sha256(payload).digest() != digest:
        raise ShardError(f"{path}: not a whole shard (its bytes do not match the footer's checksum)")
    return payload


# ------------------------------------------------------------------------------ backends
def make_shard(job: Job, index: int) -> tuple[int, bytes]:
    """What a worker runs: shard ``index`` of ``job`` (top level, so that it pickles by name)."""
    return index, job.make(index)


class Backend(Protocol):
    """Where shards are made."""

    def map(self, job: Job, indices: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        """(index, bytes) of every shard in ``indices``, each as soon as it is made, in any order.
        Closing the iterator early stops the workers."""
        ...


@dataclass(frozen=True)
class LocalBackend:
    """``jobs`` spawned worker processes on this machine (a fresh interpreter each: no inherited
    numba or thread state).  A worker that dies takes its shard with it; the pool is started again
    for the shards not made yet, at most ``retries`` times in a run."""

    jobs: int = 1
    retries: int = 3

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise RunnerError(f"jobs must be at least 1, not {self.jobs}")
        if self.retries < 0:
            raise RunnerError(f"retries must be 0 or more, not {self.retries}")

    def map(self, job: Job, indices: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        pending = list(indices)
        lost = 0
        while pending:
            try:
                # the pool walks a copy: ``pending`` shrinks as shards come back
                with contextlib.closing(self._pool(job, list(pending))) as shards:
                    for index, payload in shards:
                        pending.remove(index)
                        yield index, payload
            except BrokenProcessPool:
                lost += 1
                if lost > self.retries:
                    raise RunnerError(f"a worker process died {lost} times; {len(pending)} shards not made "
                                      "(run again to resume)") from None

    def _pool(self, job: Job, indices: list[int]) -> Generator[tuple[int, bytes], None, None]:
        context = multiprocessing.get_context("spawn")
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(max_workers=min(self.jobs, len(indices)), mp_context=context)
        # at most two shards queued per worker, so that a dead pool loses little and the queue stays small
        queue = iter(indices)
        running: set[Future[tuple[int, bytes]]] = set()
        workers: set[Any] = set()
        finished = False
        try:
            for index in queue:
                running.add(pool.submit(make_shard, job, index))
                if len(running) >= 2 * self.jobs:
                    break
            workers = set(multiprocessing.active_children()) - before
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        raise
                    except Exception as exc:
                        raise RunnerError(f"a shard failed in its worker: {exc.__class__.__name__}: {exc}") from exc
                    yield result
                    nxt = next(queue, None)
                    if nxt is not None:
                        running.add(pool.submit(make_shard, job, nxt))
            finished = True
        finally:
            if not finished:
                # stopped early (an interrupt, an error, a dead worker): the shards under way are
                # dropped, the workers ended now rather than after their current shard
                for process in workers:
                    process.terminate()
                pool.shutdown(wait=True, cancel_futures=True)
            else:
                pool.shutdown(wait=True)


@dataclass
class RayBackend:
    """Ray tasks, one CPU each, on the cluster at ``address`` (``"auto"``: the one already running on
    this machine, as ``ray start`` left it).  A task whose worker dies runs again elsewhere, up to
    ``retries`` times.  ``ray`` is imported here only, when a run starts."""

    address: str = "auto"
    retries: int = 3
    _connected_here: bool = field(default=False, init=False, repr=False)

    def map(self, job: Job, indices: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        ray = _import_ray()
        self._connect(ray)
        remote = ray.remote(num_cpus=1, max_retries=self.retries, retry_exceptions=False)(make_shard)
        refs = {remote.remote(job, index): index for index in indices}
        try:
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for ref in done:
                    del refs[ref]
                    try:
                        result: tuple[int, bytes] = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        raise RunnerError(f"a shard failed in its worker: {exc.cause!r}") from None
                    except ray.exceptions.RayError as exc:
                        raise RunnerError(f"a shard was lost after {self.retries} retries: "
                                          f"{exc.__class__.__name__} (run again to resume)") from None
                    yield result
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)
            self.close()

    def _connect(self, ray: Any) -> None:
        if self.address != "auto" and "://" not in self.address:
            _check_listening(self.address)  # Ray itself retries an address with nothing there for minutes
        if ray.is_initialized():
            return
        try:
            ray.init(address=self.address, log_to_driver=False, logging_level="WARNING")
        except ConnectionError as exc:
            where = "on this machine" if self.address == "auto" else f"at {self.address}"
            raise RunnerError(f"no Ray cluster {where} ({exc}); start one with `ray start --head` "
                              "(README: Training at scale)") from None
        self._connected_here = True

    def close(self) -> None:
        """Leave the cluster if this backend joined it (the cluster goes on)."""
        if self._connected_here:
            _import_ray().shutdown()
            self._connected_here = False


def _check_listening(address: str) -> None:
    """:class:`RunnerError` unless something accepts connections at ``address`` (host:port)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise RunnerError(f"--ray takes auto or a cluster's address as host:port, not {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as exc:
        raise RunnerError(f"no Ray cluster at {address} ({exc.strerror or exc}); start one with "
                          "`ray start --head` (README: Training at scale)") from None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RunnerError("the Ray backend needs ray: install the extra, `pip install 'tabletop[ray]'`") from None
    return ray


def backend_from(ray: str | None, jobs: int) -> Backend:
    """The backend a command line asks for: Ray at ``ray`` (``auto`` or an address) when given,
    else ``jobs`` local processes."""
    if ray is not None:
        if not ray.strip():
            raise RunnerError("--ray needs auto or a cluster address (host:port)")
        return RayBackend(address=ray)
    return LocalBackend(jobs=jobs)


# ------------------------------------------------------------------------------ the run
@dataclass
class RunReport:
    """What one :func:`run` did: shards made now, found whole from an earlier run, and found
    broken (each made again)."""

    made: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # the check's message for each


def run(
    job: Job,
    indices: Sequence[int],
    directory: Path,
    backend: Backend | None = None,
    on_shard: Callable[[int, bytes, bool], None] | None = None,
) -> RunReport:
    """Make the shards ``indices`` of ``job`` in ``directory`` that are not there whole yet, on
    ``backend`` (one local process by default).  ``on_shard(index, payload, new)`` is called in
    this process for every shard, found (``new`` False) or made now, as it is there."""
    if len(set(indices)) != len(indices):
        raise RunnerError("the shard indices of a run must differ")
    directory.mkdir(parents=True, exist_ok=True)
    report = RunReport()
    todo = []
    for index in indices:
        path = directory / job.shard_name(index)
        for stale in directory.glob(f".{path.name}.*.tmp"):
            stale.unlink(missing_ok=True)  # a write cut short by a stopped run
        if not path.exists():
            todo.append(index)
            continue
        try:
            payload = read_shard(path)
        except ShardError as exc:
            report.broken.append(str(exc))
            path.unlink()
            todo.append(index)
            continue
        report.kept.append(index)
        if on_shard:
            on_shard(index, payload, False)
    if not todo:
        return report
    shards = (backend or LocalBackend()).map(job, todo)
    try:
        for index, payload in shards:
            write_shard(directory / job.shard_name(index), payload)
            report.made.append(index)
            if on_shard:
                on_shard(index, payload, True)
    finally:
        close = getattr(shards, "close", None)
        if close is not None:
            close()  # an interrupt or an error stops the workers too
    return report
