"""``tabletop engine PROTOCOL``: speak an engine protocol on stdin/stdout.

``nboard`` (Reversi, for NBoard-compatible GUIs) and ``gomocup`` (Gomoku and
Renju, the Piskvork "pbrain" protocol).
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from tabletop.cli import CliError

PROTOCOLS = {"nboard": "tabletop.protocols.nboard", "gomocup": "tabletop.protocols.gomocup"}


def register(sub: Any) -> None:
    p = sub.add_parser("engine", help="run as an engine speaking NBoard or Gomocup on stdin/stdout")
    p.add_argument("protocol", choices=sorted(PROTOCOLS), help="the protocol to speak")
    p.add_argument("--level", type=int, default=10, help="strength 1..10 (default 10)")
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="nboard: think this long on each move instead of searching to the level's depth",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.level <= 10:
        raise CliError(f"--level must be 1..10, not {args.level}")
    if args.seconds is not None:
        if args.protocol != "nboard":
            raise CliError("--seconds is for nboard; a Gomocup manager sends its own time limits")
        if not 0.01 <= args.seconds <= 3600:
            raise CliError(f"--seconds must be 0.01..3600, not {args.seconds:g}")
    try:
        module = importlib.import_module(PROTOCOLS[args.protocol])
    except ModuleNotFoundError as exc:
        raise CliError(f"the {args.protocol} protocol is not available: {exc}") from None
    if args.protocol == "nboard":
        return int(module.run_engine(level=args.level, seconds=args.seconds))
    return int(module.run_engine(level=args.level))
