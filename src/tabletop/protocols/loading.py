"""An engine built in a background thread, so that a protocol answers its handshake at once.

Loading an engine costs seconds (numba and the compiled kernels, the books, the tables) while a
manager's handshake (NBoard's ``ping``, Gomocup's ``START``) expects an answer within one:
:class:`Preload` builds the engine beside the command loop, and the first command that needs it
waits for it.  Answers stay in order: a command that needs the engine still waits for it before
anything after it is read.  The command loops start the build once no input is waiting
(:func:`waiting_input`): loading holds Python's interpreter lock most of the time, so a handshake
that arrives in one burst is answered first.

This module must not know which engine it builds.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Callable
from typing import IO, Generic, TypeVar

__all__ = ["Preload", "waiting_input"]

T = TypeVar("T")


class Preload(Generic[T]):
    """``build()`` run once, in a daemon thread from :meth:`start` (or at the first :meth:`get`)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._value: T | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Begin building, if not begun."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="engine-load", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._build()
        except BaseException as exc:  # handed to every get(), in the thread that asks
            self._error = exc

    def get(self) -> T:
        """The built value, waiting for the build (and raising what it raised)."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


def waiting_input(stream: IO[str]) -> bool:
    """Whether more input is ready to read on ``stream`` now (False when it cannot be asked, as
    for an in-memory stream: the caller then goes on as if none were)."""
    try:
        ready, _, _ = select.select([stream], [], [], 0)
    except (ValueError, OSError, TypeError):  # no file descriptor (StringIO) or a closed one
        return False
    return bool(ready)
