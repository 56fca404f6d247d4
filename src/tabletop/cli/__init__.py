"""The ``tabletop`` command: one module per sub-command, each small.

Every sub-command module defines ``register(subparsers)``, which adds its
parser and sets ``func`` to a callable ``(args) -> int``.  Errors the user can
fix (a bad SPEC, an unreadable position, an unknown game) are reported as one
line on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tabletop.errors import UsageError

__all__ = ["CliError", "main"]

COMMANDS = ("serve", "play", "match", "perft", "solve", "engine", "convert", "bench", "train", "db", "bot")


class CliError(UsageError):
    """A problem with what the user asked for; printed as one line, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Reversi/Othello, Gomoku/Renju and Tic-tac-toe: play, analyse, convert, serve.",
    )
    from tabletop import __version__

    parser.add_argument("--version", action="version", version=f"tabletop {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"tabletop.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tabletop.cli.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        code = args.func(args)
    except CliError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:  # IllegalMoveError, bad positions, unreadable files
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
