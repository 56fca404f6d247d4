"""The one error a room request can end in: :class:`RoomError`, with a code for
error frames and a status for HTTP answers.  Nothing else lives here."""

from __future__ import annotations

__all__ = ["RoomError"]


class RoomError(ValueError):
    """A refused request: ``code`` for error frames, ``status`` for HTTP."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
