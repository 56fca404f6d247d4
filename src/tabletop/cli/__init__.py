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
# options whose value is an opaque secret that may begin with "-" (a URL-safe token), which argparse
# would otherwise read as an option of its own: "--token -x" is passed on as "--token=-x"
OPAQUE_VALUES = {"bot": ("--token",)}


class CliError(UsageError):
    """A problem with what the user asked for; printed as one line, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    return _build()[0]


def _build(only: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``tabletop`` parser and its sub-commands' parsers by name: every command's, or only the
    command ``only``'s, so that running one command imports no other's module (an engine's answer to
    its first line waits on that start-up)."""
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Reversi/Othello, Gomoku/Renju and Tic-tac-toe: play, analyse, convert, serve.",
    )
    from tabletop import __version__

    parser.add_argument("--version", action="version", version=f"tabletop {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"tabletop.cli.{name}").register(sub)
    return parser, sub.choices


def _join_opaque_values(argv: Sequence[str], commands: dict[str, argparse.ArgumentParser]) -> list[str]:
    """``argv`` with each opaque option of its sub-command joined to its value (``--token=VALUE``),
    unless that value is another option of the command's own parser."""
    args = list(argv)
    options = OPAQUE_VALUES.get(args[0], ()) if args else ()
    if not options or args[0] not in commands:
        return args
    # argparse lists a parser's options only in its actions
    known = {text for action in commands[args[0]]._actions for text in action.option_strings}
    joined: list[str] = []
    i = 0
    while i < len(args):
        if args[i] in options and i + 1 < len(args) and args[i + 1] not in known:
            joined.append(f"{args[i]}={args[i + 1]}")
            i += 2
        else:
            joined.append(args[i])
            i += 1
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser, commands = _build(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(_join_opaque_values(argv, commands))
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
