"""Train a small policy for 6x6 Reversi against a random player, in numpy alone.

The games run in :class:`tabletop.envs.VectorEnv` (hundreds at once, one numba call a step); the
learner plays one colour in each game and the VectorEnv's own ``random_actions()`` the other.  The
policy is a one-hidden-layer network over the two observation planes (own discs, opponent's) with
a softmax over the legal actions only (``info["action_mask"]``) and a value head as a baseline;
it learns by the policy gradient (REINFORCE with that baseline and an entropy bonus) on the
results of finished games, with Adam.

The score at the end is played through the rules library, not the VectorEnv: 200 games of
``tabletop.games.reversi.Board(size=6)`` against the project's ``random`` player, half with each
colour, the policy taking its most likely legal move.

    python examples/reversi_policy.py                 # 2 minutes, then 200 games against random
    python examples/reversi_policy.py --seconds 30    # shorter
    python examples/reversi_policy.py --save policy.npz

Needs numpy and tabletop only (``pip install tabletop``: VectorEnv is in the base package).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field

# One BLAS thread: the matrices are small, and BLAS threads waiting for work make every product
# many times slower on a busy two-core machine.  (Set before numpy loads its BLAS.)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from tabletop.envs import VectorEnv  # noqa: E402

SIZE = 6
N_INPUTS = SIZE * SIZE * 2
N_ACTIONS = SIZE * SIZE + 1  # the squares, then the pass


@dataclass
class Policy:
    """A tanh hidden layer, a policy head (logits per action) and a value head."""

    w1: np.ndarray
    b1: np.ndarray
    wp: np.ndarray
    bp: np.ndarray
    wv: np.ndarray
    bv: np.ndarray

    @classmethod
    def new(cls, hidden: int, rng: np.random.Generator) -> Policy:
        return cls(
            w1=rng.normal(0.0, 1.0 / np.sqrt(N_INPUTS), (N_INPUTS, hidden)),
            b1=np.zeros(hidden),
            wp=rng.normal(0.0, 0.01, (hidden, N_ACTIONS)),
            bp=np.zeros(N_ACTIONS),
            wv=rng.normal(0.0, 0.01, (hidden, 1)),
            bv=np.zeros(1),
        )

    def names(self) -> list[str]:
        return ["w1", "b1", "wp", "bp", "wv", "bv"]

    def forward(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(hidden, action probabilities with illegal actions at 0, value) for inputs ``x``."""
        h = np.tanh(x @ self.w1 + self.b1)
        logits = h @ self.wp + self.bp
        logits = np.where(mask, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs = e / e.sum(axis=1, keepdims=True)
        value = (h @ self.wv + self.bv)[:, 0]
        return h, probs, value

    def best_action(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        _, probs, _ = self.forward(x, mask)
        return np.asarray(probs.argmax(axis=1))


@dataclass
class Adam:
    lr: float
    beta1: float = 0.9
    beta2: float = 0.999
    steps: int = 0
    m: dict[str, np.ndarray] = field(default_factory=dict)
    v: dict[str, np.ndarray] = field(default_factory=dict)

    def update(self, policy: Policy, grads: dict[str, np.ndarray]) -> None:
        self.steps += 1
        for name, g in grads.items():
            m = self.m.setdefault(name, np.zeros_like(g))
            v = self.v.setdefault(name, np.zeros_like(g))
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            m_hat = m / (1 - self.beta1**self.steps)
            v_hat = v / (1 - self.beta2**self.steps)
            param = getattr(policy, name)
            param -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def gradients(
    policy: Policy, x: np.ndarray, mask: np.ndarray, actions: np.ndarray, returns: np.ndarray, entropy_weight: float
) -> dict[str, np.ndarray]:
    """Gradients of the mean loss: -advantage * log p(action) + (value - return)^2 / 2 - entropy bonus."""
    n = len(x)
    h, probs, value = policy.forward(x, mask)
    advantage = returns - value
    dlogits = probs.copy()
    dlogits[np.arange(n), actions] -= 1.0
    dlogits *= advantage[:, None]
    # the entropy's gradient: d(-H)/dlogit_j = p_j (log p_j + H), zero on illegal actions (p_j = 0)
    logp = np.log(np.where(probs > 0, probs, 1.0))
    entropy = -(probs * logp).sum(axis=1)
    dlogits += entropy_weight * probs * (logp + entropy[:, None])
    dlogits /= n
    dvalue = ((value - returns) / n)[:, None]
    dh = dlogits @ policy.wp.T + dvalue @ policy.wv.T
    dpre = dh * (1.0 - h * h)
    return {
        "w1": x.T @ dpre,
        "b1": dpre.sum(axis=0),
        "wp": h.T @ dlogits,
        "bp": dlogits.sum(axis=0),
        "wv": h.T @ dvalue,
        "bv": dvalue.sum(axis=0),
    }


def train(
    seconds: float,
    seed: int = 0,
    num_envs: int = 256,
    rollout: int = 64,
    hidden: int = 128,
    lr: float = 3e-3,
    entropy_weight: float = 0.01,
    max_updates: int | None = None,
    log: bool = False,
) -> Policy:
    """Train against random for ``seconds`` (or ``max_updates`` updates, whichever comes first)."""
    rng = np.random.default_rng(seed)
    policy = Policy.new(hidden, rng)
    adam = Adam(lr)
    venv = VectorEnv("reversi", num_envs=num_envs, seed=seed, size=SIZE)
    obs, info = venv.reset()
    learner_color = np.arange(num_envs) % 2  # half the games as Black, half as White
    start = time.perf_counter()
    updates = 0
    wins = games = 0
    while time.perf_counter() - start < seconds and (max_updates is None or updates < max_updates):
        xs = np.zeros((rollout, num_envs, N_INPUTS))
        masks = np.zeros((rollout, num_envs, N_ACTIONS), dtype=bool)
        acts = np.zeros((rollout, num_envs), dtype=np.int64)
        learner_turn = np.zeros((rollout, num_envs), dtype=bool)
        done = np.zeros((rollout, num_envs), dtype=bool)
        result = np.zeros((rollout, num_envs))  # the finished game's result for the learner
        for t in range(rollout):
            mine = info["to_play"] == learner_color
            x = obs.reshape(num_envs, -1).astype(np.float64)
            mask = info["action_mask"].copy()
            _, probs, _ = policy.forward(x, mask)
            cumulative = probs.cumsum(axis=1)
            sampled = (cumulative < rng.random((num_envs, 1)) * cumulative[:, -1:]).sum(axis=1)
            sampled = np.minimum(sampled, N_ACTIONS - 1)
            actions = np.where(mine, sampled, venv.random_actions())
            xs[t], masks[t], acts[t], learner_turn[t] = x, mask, actions, mine
            obs, reward, terminated, _, info = venv.step(actions)
            done[t] = terminated
            result[t] = np.where(mine, reward, -reward)
        # each decision's return is its game's result; decisions of games still going are left out
        returns = np.zeros((rollout, num_envs))
        known = np.zeros((rollout, num_envs), dtype=bool)
        following = np.zeros(num_envs)
        following_known = np.zeros(num_envs, dtype=bool)
        for t in range(rollout - 1, -1, -1):
            following = np.where(done[t], result[t], following)
            following_known = following_known | done[t]
            returns[t], known[t] = following, following_known
        use = learner_turn & known
        grads = gradients(policy, xs[use], masks[use], acts[use], returns[use], entropy_weight)
        adam.update(policy, grads)
        updates += 1
        wins += int((result[done] > 0).sum())
        games += int(done.sum())
        if log and updates % 50 == 0:
            elapsed = time.perf_counter() - start
            print(f"{elapsed:6.0f} s  update {updates:5d}  win rate against random (training) {wins / games:.3f}",
                  flush=True)
            wins = games = 0
    return policy


def play_against_random(policy: Policy, games: int = 200, seed: int = 1) -> tuple[int, int, int]:
    """(wins, draws, losses) of the policy's most likely moves against tabletop's ``random`` player,
    on the rules library's 6x6 board, the policy Black in the first half of the games."""
    from tabletop.games.core import PASS, Color
    from tabletop.games.reversi import Board
    from tabletop.players import player

    opponent = player("random")
    opponent.rng.seed(seed)  # type: ignore[attr-defined]
    wins = draws = losses = 0
    for game in range(games):
        mine = Color.BLACK if game < games // 2 else Color.WHITE
        board = Board(size=SIZE)
        while not board.is_game_over():
            if board.turn is mine:
                x = np.zeros((SIZE, SIZE, 2))
                for col, row, color in board.stones():
                    x[row, col, 0 if color is mine else 1] = 1.0
                mask = np.zeros(N_ACTIONS, dtype=bool)
                for m in board.legal_moves:
                    mask[SIZE * SIZE if m.is_pass else m.row * SIZE + m.col] = True
                a = int(policy.best_action(x.reshape(1, -1), mask[None])[0])
                board.push(PASS if a == SIZE * SIZE else board.move_at(a % SIZE, a // SIZE))
            else:
                board.push(opponent.choose(board))
        outcome = board.outcome()
        assert outcome is not None
        if outcome.winner is mine:
            wins += 1
        elif outcome.winner is None:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="training time (default 120)")
    parser.add_argument("--updates", type=int, default=None, help="stop after this many updates instead")
    parser.add_argument("--envs", type=int, default=256, help="games played at once (default 256)")
    parser.add_argument("--games", type=int, default=200, help="games against random at the end (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--save", metavar="FILE", help="save the trained weights (numpy .npz)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.games < 2 or args.envs < 2 or (args.updates is not None and args.updates < 0):
        parser.error("--seconds must be positive, --games and --envs at least 2, --updates at least 0")
    policy = train(args.seconds, seed=args.seed, num_envs=args.envs, max_updates=args.updates, log=True)
    if args.save:
        np.savez(args.save, **{name: getattr(policy, name) for name in policy.names()})
    wins, draws, losses = play_against_random(policy, args.games, seed=args.seed + 1)
    print(f"against random, {args.games} games: {wins} wins, {draws} draws, {losses} losses "
          f"({wins / args.games:.1%} won)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
