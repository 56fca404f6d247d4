"""``tabletop bench TARGET``: speed figures, each beside a reference run in the same process.

Each target lives in ``tabletop.bench.<target>`` and defines
``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import importlib
from typing import Any

TARGETS = ("reversi", "gomoku", "server", "tictactoe", "envs", "train")


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="run a benchmark and print figures with their reference ratios")
    targets = p.add_subparsers(dest="target", metavar="TARGET", required=True)
    for name in TARGETS:
        try:
            module = importlib.import_module(f"tabletop.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tabletop.bench.{name}":
                continue
            raise
        tp = targets.add_parser(name, help=(module.__doc__ or name).strip().splitlines()[0])
        module.add_arguments(tp)
        tp.set_defaults(func=module.run)
        if name == "reversi":  # tabletop bench reversi --vs-reversi42 N: strength against PyPI's reversi42
            from tabletop.bench import reversi42

            reversi42.add_cli_arguments(tp)
            tp.set_defaults(func=reversi42.with_match(module.run))
