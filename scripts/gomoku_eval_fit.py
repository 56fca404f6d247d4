"""Self-play data and a fitted point-pattern table for the Gomoku evaluation (issue 22 point 3, first step).

Two commands:

    .venv/bin/python scripts/gomoku_eval_fit.py play --rule freestyle --games 400 --jobs 2 --dir DATA [--ray auto|ADDRESS]
    .venv/bin/python scripts/gomoku_eval_fit.py fit --rule freestyle --dir DATA [--dir MORE] [--out table.npz]

``play`` has the engine play itself from random four-stone openings near the centre, a chunk of
games a shard, through the training runner (:class:`tabletop.train.gomoku.EvalGames`) in ``--jobs``
local processes or on a Ray cluster (``--ray``); each chunk is a checked shard of JSON lines of
``{"rule", "moves", "result"}``, written whole, so a run stopped part way goes on where it was when
started again.  ``fit`` replays every game, and for each position after the opening counts, for the side to
move and for the other side, the empty points by the combination of their four line patterns (the
engine's own patterns, :mod:`tabletop.ai.gomoku.patterns`: nine kinds, so 495 combinations a colour),
and fits a logistic model of the game's result on those counts: one weight a combination and a
colour (to move or not), one model per rule family and, under renju, per colour to move.  Games are
split for the held-out check by game, never by position (positions of one game are alike), and the
script prints the held-out accuracy beside that of the engine's shipped evaluation
(``Position.evaluate``) on the same positions.

The engine plays with these models: ``--out`` names the file to write, and
``src/tabletop/ai/gomoku/eval-freestyle.npz`` / ``eval-renju.npz`` are what the engine loads
(:mod:`tabletop.ai.gomoku.evaluation`; freestyle's model serves standard and caro too).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from tabletop.ai.gomoku.evaluation import COMBOS  # the engine's own index of the pattern combinations
from tabletop.train.gomoku import OPENING_STONES, EvalGames
from tabletop.train.runner import backend_from, read_shard, run

CHUNK = 20  # games per shard


def play(args: argparse.Namespace) -> None:
    folder = Path(args.dir)
    job = EvalGames(args.rule, args.level, args.seconds, args.seed, CHUNK)
    chunks = range((args.games + CHUNK - 1) // CHUNK)
    print(f"{len(chunks)} chunks of {CHUNK} games ({args.rule}, level {args.level}, {args.seconds} s a move)")
    started = time.time()

    def done(index: int, payload: bytes, new: bool) -> None:
        if new:
            games = len(payload.splitlines())
            print(f"chunk {index}: {games} games, {time.time() - started:.0f} s", flush=True)

    report = run(job, chunks, folder, backend_from(args.ray, args.jobs), done)
    for message in report.broken:
        print(f"made again: {message}")
    print(f"{len(report.kept)} chunks were there, {len(report.made)} played now")


def _games(folder: Path, rule: str) -> list[dict[str, object]]:
    """The games of ``folder``'s shards for ``rule`` (each checked), and of the JSON-lines files of
    earlier runs."""
    texts = [read_shard(path).decode() for path in sorted(folder.glob(f"{rule}-*.shard"))]
    texts += [path.read_text() for path in sorted(folder.glob(f"{rule}-*.jsonl"))]
    return [json.loads(line) for text in texts for line in text.splitlines() if line]


def _features(rule: str, moves: list[str]) -> tuple[list[np.ndarray], list[int], list[float]]:
    """For each position after the opening: the 2 x 495 counts (side to move first), the colour to
    move (1 Black, 2 White) and the engine's shipped evaluation from the mover's side."""
    from tabletop.ai.gomoku import patterns as P
    from tabletop.ai.gomoku.position import Position
    from tabletop.games import new_board

    board = new_board("gomoku", {"rule": rule})
    rows, movers, hand = [], [], []
    for ply, text in enumerate(moves):
        if ply >= OPENING_STONES and board.outcome() is None:
            pos = Position.from_board(board)
            me = pos.turn - 1
            empty = np.flatnonzero(pos.cells == P.EMPTY)
            counts = np.zeros((2, len(COMBOS)), dtype=np.float32)
            for side, c in ((0, me), (1, 1 - me)):
                kinds = np.sort(pos.pat[c, empty, :].astype(np.int64), axis=1)
                for k in kinds:
                    counts[side, COMBOS[tuple(int(x) for x in k)]] += 1
            rows.append(counts.ravel())
            movers.append(pos.turn)
            hand.append(float(pos.evaluate()))
        board.push(board.parse_move(text))
    return rows, movers, hand


def _fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float, steps: int) -> np.ndarray:
    """Weights (the last one the bias) of P(win) = sigmoid(x . w), by Newton steps with an L2 penalty."""
    xb = np.hstack([x, np.ones((len(x), 1), dtype=x.dtype)]).astype(np.float64)
    w = np.zeros(xb.shape[1])
    penalty = ridge * np.eye(xb.shape[1])
    penalty[-1, -1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + penalty @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + penalty
        w -= np.linalg.solve(hess, grad)
    return w


def fit(args: argparse.Namespace) -> None:
    games = []
    for folder in args.dir:
        games += _games(Path(folder), args.rule)
    if len(games) < 10:
        sys.exit(f"only {len(games)} games in {', '.join(args.dir)}: play more first")
    rng = random.Random(args.seed)
    rng.shuffle(games)
    held = set(range(0, len(games), 5))  # every fifth game is held out
    groups = [(None, "all")] if args.rule != "renju" else [(1, "black to move"), (2, "white to move")]
    # each decided game replayed once: (held out, counts, colour to move, shipped value, mover's result)
    positions = []
    for g_index, game in enumerate(games):
        if game["result"] == 0.5:
            continue
        rows, movers, hand = _features(args.rule, game["moves"])
        for row, m, h in zip(rows, movers, hand, strict=True):
            positions.append((g_index in held, row, m, h, game["result"] if m == 1 else 1.0 - game["result"]))
    tables = {}
    for mover, label in groups:
        data: dict[bool, tuple[list[np.ndarray], list[float], list[float]]] = {True: ([], [], []), False: ([], [], [])}
        for is_held, row, m, h, won in positions:
            if mover is None or m == mover:
                part = data[is_held]
                part[0].append(row)
                part[1].append(won)
                part[2].append(h)
        x_train, y_train = np.array(data[False][0]), np.array(data[False][1])
        x_held, y_held, hand_held = np.array(data[True][0]), np.array(data[True][1]), np.array(data[True][2])
        w = _fit_logistic(x_train, y_train, args.ridge, args.steps)
        predicted = np.hstack([x_held, np.ones((len(x_held), 1))]) @ w > 0
        accuracy = float(np.mean(predicted == (y_held > 0.5)))
        hand_accuracy = float(np.mean((hand_held > 0) == (y_held > 0.5)))
        print(f"{args.rule}, {label}: {len(x_train)} positions fitted, {len(x_held)} held out; held-out accuracy "
              f"{accuracy:.3f} (the shipped evaluation: {hand_accuracy:.3f})")
        tables[label.replace(" ", "_")] = w.astype(np.float32)
    if args.out:
        np.savez_compressed(args.out, **tables)
        print(f"wrote {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="self-play games into --dir (resumable)")
    p.add_argument("--rule", default="freestyle")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="local worker processes (not with --ray)")
    p.add_argument("--ray", metavar="auto|ADDRESS", default=None, help="play on a Ray cluster (the extra tabletop[ray])")
    p.add_argument("--level", type=int, default=7)
    p.add_argument("--seconds", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dir", required=True)
    f = sub.add_parser("fit", help="fit the table from --dir and print held-out accuracy")
    f.add_argument("--rule", default="freestyle")
    f.add_argument("--dir", action="append", required=True, help="a folder of games (repeat for more)")
    f.add_argument("--ridge", type=float, default=10.0)
    f.add_argument("--steps", type=int, default=8)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", default=None)
    args = parser.parse_args()
    play(args) if args.command == "play" else fit(args)


if __name__ == "__main__":
    main()
