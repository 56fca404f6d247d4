"""Environment speed: VectorEnv steps per second beside pgx's Othello and Tic-tac-toe on the CPU.

Figures, all from one run of ``tabletop bench envs``:

- VectorEnv steps per second for 8x8 Reversi, Tic-tac-toe and 15x15 Gomoku (freestyle) at a batch
  of ``--batch`` games (default 1,024): each step draws a random legal action for every game
  (``random_actions()``) and plays it (``step()``: moves, outcomes, automatic resets, the
  observation planes and the legal-action masks a learner reads);
- the reference inside this process: random Reversi steps per second with the rules library
  (``tabletop.games.reversi.Board``, one game at a time);
- pgx 2.6's ``othello`` and ``tic_tac_toe`` at the same batch, run in a subprocess with JAX on the
  CPU: ``jax.vmap`` of pgx's ``auto_reset(step, init)``, a random legal action drawn from each
  state's ``legal_action_mask`` and the ``observation`` returned, all in one ``jax.jit`` call per
  step (compiled before the clock starts).  pgx and JAX are installed on first use into their own
  virtual environment under ``.bench-envs/pgx`` (git-ignored) and never become dependencies of
  tabletop.

The ratios are VectorEnv over pgx for the same game; the target for Reversi is 10x or more.  Each
figure is also given per second of the process's CPU time (all its threads): VectorEnv runs on one
thread and pgx's XLA on several, so on a busy machine the wall-clock ratio moves with the load
while the CPU-time ratio stays put.
This module only measures and prints.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from tabletop.bench import reference_python
from tabletop.errors import UsageError
from tabletop.games.reversi import Board

PGX_VERSION = "2.6.0"
JAX_VERSION = "0.10.2"

GAMES: tuple[tuple[str, str, dict[str, Any], str | None], ...] = (
    # label, VectorEnv game, options, pgx env id
    ("reversi 8x8", "reversi", {}, "othello"),
    ("tictactoe", "tictactoe", {}, "tic_tac_toe"),
    ("gomoku 15x15", "gomoku", {"size": 15, "rule": "freestyle"}, None),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batch", type=int, default=1024, help="games stepped together (default 1024)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time for each figure (default 2)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="measure each figure this many times, ours and pgx's alternating, and keep the best "
                        "(default 2)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--no-pgx", action="store_true", help="skip pgx (no virtual environment is made)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def vector_steps_per_second(
    game: str, options: dict[str, Any], batch: int, seconds: float, seed: int
) -> tuple[float, float]:
    """Game steps a second of wall time and of this process's CPU time (``batch`` per call) of random
    legal play in VectorEnv, observation included."""
    from tabletop.envs.vector import VectorEnv  # here, not at import: `tabletop`'s parser imports this module

    venv = VectorEnv(game, num_envs=batch, seed=seed, **options)
    venv.reset()
    for _ in range(3):  # compiled (or loaded from numba's cache) before the clock starts
        venv.step(venv.random_actions())
    calls = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        for _ in range(20):
            venv.step(venv.random_actions())
        calls += 20
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            cpu = max(time.process_time() - cpu_start, 1e-9)
            return calls * batch / elapsed, calls * batch / cpu


def rules_library_steps_per_second(seconds: float, seed: int) -> float:
    """Random 8x8 Reversi moves a second with the Python rules library, one game at a time."""
    rng = random.Random(seed)
    steps = 0
    board = Board()
    start = time.perf_counter()
    while True:
        for _ in range(200):
            moves = board.legal_moves
            if not moves:
                board = Board()
                moves = board.legal_moves
            board.push(rng.choice(moves))
        steps += 200
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


# Runs inside the pgx virtual environment: argv is env id, batch, seconds, seed; prints one JSON line.
_PGX_SCRIPT = """
import json, sys, time
import jax, jax.numpy as jnp, pgx
from pgx.experimental import auto_reset

env_id, batch, seconds, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
env = pgx.make(env_id)
init = jax.jit(jax.vmap(env.init))
step = jax.vmap(auto_reset(env.step, env.init))

@jax.jit
def random_step(state, key):
    pick, advance = jax.random.split(key)
    logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
    action = jax.random.categorical(pick, logits, axis=-1)
    state = step(state, action, jax.random.split(advance, batch))
    return state, state.observation

key = jax.random.PRNGKey(seed)
key, sub = jax.random.split(key)
state = init(jax.random.split(sub, batch))
for _ in range(3):
    key, sub = jax.random.split(key)
    state, obs = random_step(state, sub)
jax.block_until_ready(obs)
calls = 0
start, cpu_start = time.perf_counter(), time.process_time()
while True:
    for _ in range(10):
        key, sub = jax.random.split(key)
        state, obs = random_step(state, sub)
    jax.block_until_ready(obs)
    calls += 10
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
        break
cpu = max(time.process_time() - cpu_start, 1e-9)  # every thread of the process
print(json.dumps({"env": env_id, "steps_per_s": calls * batch / elapsed, "steps_per_cpu_s": calls * batch / cpu,
                  "backend": jax.default_backend(), "pgx": pgx.__version__, "jax": jax.__version__}))
"""


def pgx_python(root: Path) -> Path:
    """The pgx virtual environment's python, created with pgx and JAX on first use."""
    return reference_python(root, "pgx", f"pgx=={PGX_VERSION}", f"jax=={JAX_VERSION}")


def pgx_steps_per_second(python: Path, env_id: str, batch: int, seconds: float, seed: int) -> dict[str, Any]:
    """pgx's random steps a second for ``env_id`` at ``batch``, measured in its own process on the CPU."""
    environ = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(
        [str(python), "-c", _PGX_SCRIPT, env_id, str(batch), str(seconds), str(seed)],
        capture_output=True, text=True, env=environ, timeout=900,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"pgx {env_id} failed in {python}: {last}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(args: argparse.Namespace) -> int:
    batch = int(args.batch)
    if batch < 1:
        raise UsageError(f"--batch must be 1 or more, not {batch}")
    seconds = float(args.seconds)
    if not seconds > 0:
        raise UsageError(f"--seconds must be positive, not {args.seconds}")
    repeat = int(args.repeat)
    if repeat < 1:
        raise UsageError(f"--repeat must be 1 or more, not {args.repeat}")
    results: dict[str, Any] = {"batch": batch, "seconds": seconds, "repeat": repeat, "games": {}}
    python = None if args.no_pgx else pgx_python(Path.cwd())
    # On a shared machine the best of a few runs, taken in turns, is the figure least disturbed by other work.
    for label, game, options, pgx_id in GAMES:
        row: dict[str, Any] = {"vector_steps_per_s": 0.0, "vector_steps_per_cpu_s": 0.0}
        for _ in range(repeat):
            ours, ours_cpu = vector_steps_per_second(game, options, batch, seconds, args.seed)
            row["vector_steps_per_s"] = max(row["vector_steps_per_s"], ours)
            row["vector_steps_per_cpu_s"] = max(row["vector_steps_per_cpu_s"], ours_cpu)
            if python is not None and pgx_id is not None:
                theirs = pgx_steps_per_second(python, pgx_id, batch, seconds, args.seed)
                row["pgx_env"] = pgx_id
                row["pgx_steps_per_s"] = max(row.get("pgx_steps_per_s", 0.0), theirs["steps_per_s"])
                row["pgx_steps_per_cpu_s"] = max(row.get("pgx_steps_per_cpu_s", 0.0), theirs["steps_per_cpu_s"])
                results["pgx"] = {"pgx": theirs["pgx"], "jax": theirs["jax"], "backend": theirs["backend"]}
        if "pgx_steps_per_s" in row:
            row["ratio_vs_pgx"] = row["vector_steps_per_s"] / row["pgx_steps_per_s"]
            row["cpu_ratio_vs_pgx"] = row["vector_steps_per_cpu_s"] / row["pgx_steps_per_cpu_s"]
        results["games"][label] = row
    reference = max(rules_library_steps_per_second(seconds, args.seed) for _ in range(repeat))
    results["rules_library_reversi_steps_per_s"] = reference
    results["games"]["reversi 8x8"]["ratio_vs_rules_library"] = (
        results["games"]["reversi 8x8"]["vector_steps_per_s"] / reference
    )
    if args.json:
        print(json.dumps(results))
    else:
        print_table(results)
    return 0


def print_table(results: dict[str, Any]) -> None:
    print(f"random legal steps per second, batch {results['batch']}, observation and mask included "
          f"(best of {results['repeat']}; per CPU second: divided by the process's CPU time, all threads)")
    print(f"{'game':<14} {'VectorEnv':>12} {'pgx (CPU)':>12} {'ratio':>7}   "
          f"{'VectorEnv/CPU s':>15} {'pgx/CPU s':>12} {'ratio':>7}")
    for label, row in results["games"].items():
        line = f"{label:<14} {row['vector_steps_per_s']:12,.0f} "
        if "pgx_steps_per_s" in row:
            line += f"{row['pgx_steps_per_s']:12,.0f} {row['ratio_vs_pgx']:6.1f}x   "
        else:
            line += f"{'-':>12} {'-':>7}   "
        line += f"{row['vector_steps_per_cpu_s']:15,.0f} "
        if "pgx_steps_per_cpu_s" in row:
            line += f"{row['pgx_steps_per_cpu_s']:12,.0f} {row['cpu_ratio_vs_pgx']:6.1f}x"
        else:
            line += f"{'-':>12} {'-':>7}"
        print(line)
    reversi = results["games"]["reversi 8x8"]
    print(f"reference: rules library, Reversi one game at a time: {results['rules_library_reversi_steps_per_s']:,.0f} "
          f"steps/s (VectorEnv {reversi['ratio_vs_rules_library']:.0f}x)")
    if "pgx" in results:
        p = results["pgx"]
        print(f"pgx {p['pgx']}, jax {p['jax']}, backend {p['backend']} (.bench-envs/pgx)")
