"""Errors shared by every layer; this module imports nothing from tabletop.

:class:`UsageError` is a request that cannot be done as asked (a bad option, an unreachable server,
a malformed file): the command line prints its message as one line and exits with status 2, never
a traceback.  Benchmark targets and library code below ``cli/`` raise it; ``cli.CliError`` is the
command line's own kind of it.
"""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(ValueError):
    """What the user asked for cannot be done; the message says why, in one line."""
