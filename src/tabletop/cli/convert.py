"""``tabletop convert IN OUT [--from F] [--to F]``: convert game records between formats.

The formats come from the file extensions (``.sgf``, ``.ggf``, ``.obf``,
``.txt``, ``.psq`` once registered) or from ``--from``/``--to``.  Every move is
replayed on the rules library while reading, so a malformed or illegal record
stops the conversion with one line naming the line, column and reason, and
nothing is written: the output goes to a temporary file in the same folder
and is renamed over OUT only when complete.  ``-`` reads standard input or
writes standard output.  This module only moves text between files and the
record registry; it knows no format itself.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any

from tabletop.cli import CliError


def register(sub: Any) -> None:
    p = sub.add_parser("convert", help="convert game records (sgf, ggf, obf, transcript, ...)")
    p.add_argument("input", metavar="IN", help="the file to read ('-' for standard input, then give --from)")
    p.add_argument("output", metavar="OUT", help="the file to write ('-' for standard output, then give --to)")
    p.add_argument("--from", dest="from_format", default=None, help="the input format (default: by extension)")
    p.add_argument("--to", dest="to_format", default=None, help="the output format (default: by extension)")
    p.add_argument(
        "--game",
        default=None,
        choices=("reversi", "gomoku", "tictactoe"),
        help="the game, for formats that do not say it (transcripts; default reversi)",
    )
    p.add_argument("--size", type=int, default=None, help="board size, for formats that do not say it")
    p.add_argument("--rule", default=None, help="gomoku rule the moves are replayed under (PSQ and transcripts do not say it)")
    p.set_defaults(func=run)


def _format(path: str, given: str | None, flag: str) -> str:
    from tabletop import records

    if given:
        if given.lower() not in records.formats():
            raise CliError(f"unknown format {given!r} for {flag} (known: {', '.join(records.formats())})")
        return given.lower()
    if path == "-":
        raise CliError(f"give {flag} when using '-'")
    try:
        return records.detect(path)
    except ValueError as exc:
        raise CliError(f"{exc}; give {flag}") from None


def run(args: argparse.Namespace) -> int:
    from tabletop import records

    source = _format(args.input, args.from_format, "--from")
    target = _format(args.output, args.to_format, "--to")
    try:
        if args.input == "-":
            text = sys.stdin.read()
        else:
            with open(args.input, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {args.input}: {exc}") from None
    opts: dict[str, Any] = {}
    if args.size is not None:
        opts["size"] = args.size
    if args.rule is not None:
        opts["rule"] = args.rule
    options = opts or None
    try:
        games = records.read(text, source, game=args.game, options=options)
        if not games:
            raise CliError(f"{args.input}: no game found")
        result = records.write(games, target)
    except records.RecordError as exc:
        raise CliError(f"{args.input}: {exc}") from None
    if args.output == "-":
        sys.stdout.write(result)
    else:
        _write_atomically(args.output, result)
        print(f"{len(games)} record(s) {source} -> {target}: {args.output}", file=sys.stderr)
    return 0


def _write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed into place,
    so a failure leaves no half-written file."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".tabletop-convert-", dir=folder)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except OSError as exc:
        os.unlink(temp)
        raise CliError(f"cannot write {path}: {exc}") from None
    except BaseException:
        os.unlink(temp)
        raise
