"""A batched environment: many games of one kind stepped together in one numba call.

:class:`VectorEnv` holds ``num_envs`` games of Reversi (4x4, 6x6 or 8x8), Tic-tac-toe or Gomoku
(freestyle, standard or caro; any square size 5..26) as flat numpy arrays, and steps the whole batch
in one compiled call: the move (with its flips or line check), the outcome, the automatic reset of
finished games, the observation and the legal-action mask.  Nothing in Python loops over the games.

Reversi runs on the engine's 8x8 bitboard kernel (:mod:`tabletop.ai.reversi.kernel`: ``get_moves``
and ``flips``).  A 4x4 or 6x6 board sits in the top-left corner of the 8x8 bitboard: the squares
outside it stay empty, and an empty square ends every run of discs just as the edge does, so the
kernel's moves and flips are exact once the moves are masked to the board.

Conventions (the same in :mod:`tabletop.envs.aec` and :mod:`tabletop.envs.single`):

- action ids are the squares in the order of ``to_text()`` (rows from the top, left to right);
  Reversi has one more id, ``width * height``, for the pass, legal only when it is the only move;
- observations are ``int8`` arrays ``(num_envs, height, width, 2)`` from the side to move: plane 0
  its own stones, plane 1 the opponent's;
- ``reward[i]`` is for the side that played ``actions[i]``: +1 when that move won the game, -1 when
  it lost it, 0 otherwise (draws and moves that do not end the game);
- a finished game is replaced at once by a new one, in the same step: ``obs[i]`` is then the new
  game's first observation, ``terminated[i]`` is True, ``info["disc_difference"][i]`` the final disc
  difference from the mover's side (Reversi);
- an illegal action (an occupied square, a placement that flips nothing, a pass while a placement
  exists) loses that game for the side that played it: reward -1, ``terminated[i]`` and
  ``info["illegal"][i]`` True, and the game restarts.  An id outside ``0..n_actions-1`` raises
  ``ValueError`` before any game changes.

Renju is not offered here: its forbidden points (double-three with the recursive fake-three
judgement) exist only in the Python rules; :func:`tabletop.envs.aec_env` and
:func:`tabletop.envs.gym_env` play it.

This module must not import the optional extras (PettingZoo, Gymnasium): numpy and numba only.

>>> venv = VectorEnv("tictactoe", num_envs=2, seed=0)
>>> obs, info = venv.reset()
>>> obs.shape, info["action_mask"].shape
((2, 3, 3, 2), (2, 9))
>>> obs, reward, terminated, truncated, info = venv.step(np.array([4, 0]))
>>> venv.position_text(0)
'---/-X-/--- O'
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tabletop.ai.reversi.kernel import count, flips, get_moves

__all__ = ["VECTOR_GAMES", "VECTOR_GOMOKU_RULES", "VectorEnv"]

VECTOR_GAMES = ("reversi", "tictactoe", "gomoku")
VECTOR_GOMOKU_RULES = ("freestyle", "standard", "caro")
REVERSI_SIZES = (4, 6, 8)

_U64 = np.uint64
_ONE = np.uint64(1)
_ZERO = np.uint64(0)

# line rules of the m,n,k kernel
_FREESTYLE = 0  # k or more in a row wins
_STANDARD = 1  # exactly k wins
_CARO = 2  # five not closed at both ends by the opponent (the edge closes nothing), or six or more


# --------------------------------------------------------------------------- random numbers
@njit(cache=True, inline="always")
def _next_random(state: np.ndarray, i: int) -> np.uint64:
    # splitmix64: one independent, seeded stream per game, so results do not depend on the batch size
    z = state[i] + _U64(0x9E3779B97F4A7C15)
    state[i] = z
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    out: np.uint64 = z ^ (z >> _U64(31))
    return out


# --------------------------------------------------------------------------- Reversi
def _spread_tables() -> tuple[np.ndarray, np.ndarray]:
    # _SPREAD_BYTES[b]: the 8 bits of b as 8 bytes of 0/1 (bit j -> byte j, little-endian words);
    # _SPREAD_PAIRS[n]: the 4 bits of n at bytes 0, 2, 4, 6, so two planes interleave with a shift of 8
    spread_bytes = np.zeros(256, dtype=np.uint64)
    spread_pairs = np.zeros(16, dtype=np.uint64)
    for b in range(256):
        spread_bytes[b] = sum(((b >> j) & 1) << (8 * j) for j in range(8))
    for n in range(16):
        spread_pairs[n] = sum(((n >> j) & 1) << (16 * j) for j in range(4))
    return spread_bytes, spread_pairs


_SPREAD_BYTES, _SPREAD_PAIRS = _spread_tables()
_LITTLE_ENDIAN = np.little_endian  # the word writes below need bytes in little-endian order


@njit(cache=True, inline="always")
def _reversi_write(
    i: int,
    p: np.uint64,
    o: np.uint64,
    legal: np.uint64,
    size: int,
    obs: np.ndarray,
    mask: np.ndarray,
    obs_words: np.ndarray,
    mask_words: np.ndarray,
) -> None:
    # the observation (own, opponent) and the mask from the bitboards of one game; on 8x8 a row of
    # both planes is two 8-byte words and a row of the mask one word, looked up from a byte of a bitboard
    if size == 8 and _LITTLE_ENDIAN:
        for r in range(8):
            shift = _U64(8 * r)
            po = (p >> shift) & _U64(0xFF)
            oo = (o >> shift) & _U64(0xFF)
            obs_words[i, 2 * r] = _SPREAD_PAIRS[po & _U64(15)] | (_SPREAD_PAIRS[oo & _U64(15)] << _U64(8))
            obs_words[i, 2 * r + 1] = _SPREAD_PAIRS[po >> _U64(4)] | (_SPREAD_PAIRS[oo >> _U64(4)] << _U64(8))
            mask_words[i, r] = _SPREAD_BYTES[(legal >> shift) & _U64(0xFF)]
        mask_words[i, 8] = _U64(legal == _ZERO)
        return
    for r in range(size):
        for c in range(size):
            b = _U64(r * 8 + c)
            obs[i, r, c, 0] = np.int8((p >> b) & _ONE)
            obs[i, r, c, 1] = np.int8((o >> b) & _ONE)
            mask[i, r * size + c] = ((legal >> b) & _ONE) != _ZERO
    mask[i, size * size] = legal == _ZERO


@njit(cache=True)
def _reversi_reset(
    p: np.ndarray,
    o: np.ndarray,
    turn: np.ndarray,
    legal: np.ndarray,
    start_p: np.uint64,
    start_o: np.uint64,
    inside: np.uint64,
    size: int,
    obs: np.ndarray,
    mask: np.ndarray,
    obs_words: np.ndarray,
    mask_words: np.ndarray,
) -> None:
    start_legal = get_moves(start_p, start_o) & inside
    for i in range(p.shape[0]):
        p[i] = start_p
        o[i] = start_o
        turn[i] = 0
        legal[i] = start_legal
        _reversi_write(i, start_p, start_o, start_legal, size, obs, mask, obs_words, mask_words)


@njit(cache=True)
def _reversi_step(
    p: np.ndarray,
    o: np.ndarray,
    turn: np.ndarray,
    legal: np.ndarray,
    actions: np.ndarray,
    start_p: np.uint64,
    start_o: np.uint64,
    inside: np.uint64,
    size: int,
    obs: np.ndarray,
    mask: np.ndarray,
    reward: np.ndarray,
    terminated: np.ndarray,
    illegal: np.ndarray,
    disc_difference: np.ndarray,
    obs_words: np.ndarray,
    mask_words: np.ndarray,
) -> int:
    """Step every game; return the index of the first out-of-range action (nothing changed) or -1."""
    n = p.shape[0]
    pass_id = size * size
    for i in range(n):
        a = actions[i]
        if a < 0 or a > pass_id:
            return i
    start_legal = get_moves(start_p, start_o) & inside
    for i in range(n):
        a = actions[i]
        me = p[i]
        you = o[i]
        moves = legal[i]
        reward[i] = 0.0
        disc_difference[i] = 0
        illegal[i] = False
        over = False
        if a == pass_id:
            ok = moves == _ZERO
        else:
            bit = _ONE << _U64((a // size) * 8 + a % size)
            ok = (moves & bit) != _ZERO
            if ok:
                f = flips(me, you, (a // size) * 8 + a % size)
                me = me | f | bit
                you = you ^ f
        if not ok:
            illegal[i] = True
            reward[i] = -1.0
            over = True
        else:
            # the opponent is to move next; the game ends when neither side can place
            nxt = get_moves(you, me) & inside
            if nxt == _ZERO and (get_moves(me, you) & inside) == _ZERO:
                over = True
                diff = count(me) - count(you)
                disc_difference[i] = diff
                if diff > 0:
                    reward[i] = 1.0
                elif diff < 0:
                    reward[i] = -1.0
            else:
                p[i] = you
                o[i] = me
                legal[i] = nxt
                turn[i] ^= 1
        terminated[i] = over
        if over:
            p[i] = start_p
            o[i] = start_o
            legal[i] = start_legal
            turn[i] = 0
        _reversi_write(i, p[i], o[i], legal[i], size, obs, mask, obs_words, mask_words)
    return -1


@njit(cache=True)
def _reversi_random_actions(legal: np.ndarray, rng: np.ndarray, size: int, out: np.ndarray) -> None:
    for i in range(legal.shape[0]):
        moves = legal[i]
        if moves == _ZERO:
            out[i] = size * size
            continue
        k = _next_random(rng, i) % _U64(count(moves))
        for _ in range(k):
            moves &= moves - _ONE
        sq = count((moves & (_ZERO - moves)) - _ONE)
        out[i] = (sq // 8) * size + sq % 8


# --------------------------------------------------------------------------- m,n,k games
@njit(cache=True, inline="always")
def _mnk_write(i: int, cells: np.ndarray, mover: int, obs: np.ndarray, mask: np.ndarray, width: int) -> None:
    # obs is passed flat, (num_envs, height * width * 2): the two planes of a square are neighbours
    own = np.int8(mover + 1)
    other = np.int8(2 - mover)
    for q in range(cells.shape[1]):
        v = cells[i, q]
        obs[i, 2 * q] = np.int8(v == own)
        obs[i, 2 * q + 1] = np.int8(v == other)
        mask[i, q] = v == 0


@njit(cache=True, inline="always")
def _mnk_wins(cells: np.ndarray, i: int, q: int, width: int, height: int, k: int, rule: int) -> bool:
    """Does the stone just placed on ``q`` make a winning line for its colour?"""
    v = cells[i, q]
    r0 = q // width
    c0 = q % width
    for d in range(4):
        dr = 0 if d == 0 else 1
        dc = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
        length = 1
        blocked = 0
        for sign in (1, -1):
            r = r0 + sign * dr
            c = c0 + sign * dc
            while 0 <= r < height and 0 <= c < width and cells[i, r * width + c] == v:
                length += 1
                r += sign * dr
                c += sign * dc
            if 0 <= r < height and 0 <= c < width and cells[i, r * width + c] != 0:
                blocked += 1  # the opponent closes this end (the edge closes nothing in caro)
        if rule == _FREESTYLE:
            if length >= k:
                return True
        elif rule == _STANDARD:
            if length == k:
                return True
        elif length >= 6 or (length == 5 and blocked < 2):
            return True
    return False


@njit(cache=True)
def _mnk_reset(cells: np.ndarray, turn: np.ndarray, stones: np.ndarray, width: int, obs: np.ndarray,
               mask: np.ndarray) -> None:
    for i in range(cells.shape[0]):
        cells[i, :] = 0
        turn[i] = 0
        stones[i] = 0
        _mnk_write(i, cells, 0, obs, mask, width)


@njit(cache=True)
def _mnk_step(
    cells: np.ndarray,
    turn: np.ndarray,
    stones: np.ndarray,
    actions: np.ndarray,
    width: int,
    height: int,
    k: int,
    rule: int,
    obs: np.ndarray,
    mask: np.ndarray,
    reward: np.ndarray,
    terminated: np.ndarray,
    illegal: np.ndarray,
) -> int:
    """Step every game; return the index of the first out-of-range action (nothing changed) or -1."""
    n = cells.shape[0]
    squares = width * height
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= squares:
            return i
    for i in range(n):
        a = actions[i]
        reward[i] = 0.0
        illegal[i] = False
        over = False
        if cells[i, a] != 0:
            illegal[i] = True
            reward[i] = -1.0
            over = True
        else:
            cells[i, a] = np.int8(turn[i] + 1)
            stones[i] += 1
            if _mnk_wins(cells, i, a, width, height, k, rule):
                reward[i] = 1.0
                over = True
            elif stones[i] == squares:
                over = True
            else:
                turn[i] ^= 1
        terminated[i] = over
        if over:
            cells[i, :] = 0
            turn[i] = 0
            stones[i] = 0
        _mnk_write(i, cells, turn[i], obs, mask, width)
    return -1


@njit(cache=True)
def _mnk_random_actions(cells: np.ndarray, stones: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    # A few draws of any square until one is empty, then (on a crowded board) the k-th empty square:
    # each way picks every empty square with the same chance, so their mixture does too.
    squares = cells.shape[1]
    for i in range(cells.shape[0]):
        found = False
        for _ in range(8):
            q = int(_next_random(rng, i) % _U64(squares))
            if cells[i, q] == 0:
                out[i] = q
                found = True
                break
        if found:
            continue
        k = int(_next_random(rng, i) % _U64(squares - stones[i]))
        for q in range(squares):
            if cells[i, q] == 0:
                if k == 0:
                    out[i] = q
                    break
                k -= 1


# --------------------------------------------------------------------------- the environment
class VectorEnv:
    """``num_envs`` games of ``game`` stepped together (see the module docstring).

    ``game`` is ``"reversi"`` (``size`` 4, 6 or 8; default 8), ``"tictactoe"`` or ``"gomoku"``
    (``size`` 5..26, default 15; ``rule`` ``"freestyle"``, ``"standard"`` or ``"caro"``).
    Bad options raise ``ValueError`` naming them.

    The arrays that :meth:`reset` and :meth:`step` return are this object's buffers, written again
    by the next call: copy what you keep (``obs.copy()``).
    """

    def __init__(self, game: str, num_envs: int = 1024, seed: int | None = None, **options: Any) -> None:
        if game not in VECTOR_GAMES:
            raise ValueError(f"unknown game {game!r} for VectorEnv (known: {', '.join(VECTOR_GAMES)})")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number, not {num_envs!r}")
        self.game = game
        self.num_envs = int(num_envs)
        self.options = dict(options)
        if game == "reversi":
            _allow(game, options, {"size"})
            size = options.get("size", 8)
            if size not in REVERSI_SIZES or isinstance(size, bool):
                raise ValueError(
                    f"VectorEnv plays Reversi on {', '.join(f'{s}x{s}' for s in REVERSI_SIZES)} "
                    f"(the 8x8 bitboard kernel), not size {size!r}; aec_env and gym_env play 4..16"
                )
            self.width = self.height = int(size)
            self.n_actions = self.width * self.height + 1
        elif game == "tictactoe":
            _allow(game, options, set())
            self.width = self.height = 3
            self.k, self._rule = 3, _FREESTYLE
            self.n_actions = 9
        else:
            _allow(game, options, {"size", "rule"})
            size = options.get("size", 15)
            rule = options.get("rule", "freestyle")
            if rule == "renju":
                raise ValueError(
                    "VectorEnv does not play renju: its forbidden points exist only in the Python rules; "
                    "use aec_env or gym_env (or rule='standard', 'freestyle' or 'caro')"
                )
            if rule not in VECTOR_GOMOKU_RULES:
                raise ValueError(f"unknown gomoku rule {rule!r} for VectorEnv (known: {', '.join(VECTOR_GOMOKU_RULES)})")
            if isinstance(size, bool) or not isinstance(size, int | np.integer) or not 5 <= size <= 26:
                raise ValueError(f"gomoku size must be a whole number 5..26, not {size!r}")
            self.width = self.height = int(size)
            self.k = 5
            self._rule = {"freestyle": _FREESTYLE, "standard": _STANDARD, "caro": _CARO}[rule]
            self.n_actions = self.width * self.height
        n = self.num_envs
        self.observation_shape = (self.height, self.width, 2)
        self._obs = np.zeros((n, *self.observation_shape), dtype=np.int8)
        self._flat_obs = self._obs.reshape(n, -1)  # the same memory
        # each game's mask row is padded to whole 8-byte words, which the 8x8 Reversi kernel writes at once.
        # The kernels get the padded rows (C-contiguous whatever the size; they write only the first
        # n_actions columns), the caller the view of those columns: one compiled version of each kernel
        # for every game and size, which make setup compiles (a view's layout depends on the size)
        padded = -(-self.n_actions // 8) * 8
        self._mask_rows = np.zeros((n, padded), dtype=np.bool_)
        self._mask = self._mask_rows[:, : self.n_actions]
        self._mask_words = self._mask_rows.view(np.uint64)
        self._obs_words = self._flat_obs.view(np.uint64) if self._flat_obs.shape[1] % 8 == 0 else np.zeros((n, 1), np.uint64)
        self._reward = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)  # games end by the rules alone: never truncated
        self._illegal = np.zeros(n, dtype=np.bool_)
        self._disc_difference = np.zeros(n, dtype=np.int64)
        self._turn = np.zeros(n, dtype=np.int8)
        self._rng = np.zeros(n, dtype=np.uint64)
        self._actions = np.zeros(n, dtype=np.int64)
        if game == "reversi":
            size = self.width
            m = size // 2

            def bit(col: int, row: int) -> int:
                return 1 << (row * 8 + col)

            self._inside = _U64(sum(bit(c, r) for r in range(size) for c in range(size)))
            self._start_p = _U64(bit(m, m - 1) | bit(m - 1, m))  # Black, to move first
            self._start_o = _U64(bit(m - 1, m - 1) | bit(m, m))
            self._p = np.zeros(n, dtype=np.uint64)
            self._o = np.zeros(n, dtype=np.uint64)
            self._legal = np.zeros(n, dtype=np.uint64)
        else:
            self._cells = np.zeros((n, self.width * self.height), dtype=np.int8)
            self._stones = np.zeros(n, dtype=np.int64)
        self._seed(seed)
        self._started = False

    # -- the API -----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Start every game anew; ``seed`` reseeds :meth:`random_actions`.  Returns ``(obs, info)``."""
        if seed is not None:
            self._seed(seed)
        if self.game == "reversi":
            _reversi_reset(self._p, self._o, self._turn, self._legal, self._start_p, self._start_o, self._inside,
                           self.width, self._obs, self._mask_rows, self._obs_words, self._mask_words)
        else:
            _mnk_reset(self._cells, self._turn, self._stones, self.width, self._flat_obs, self._mask_rows)
        self._illegal[:] = False
        self._disc_difference[:] = 0
        self._started = True
        return self._obs, self._info()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Play ``actions[i]`` in game ``i`` for every game; returns
        ``(obs, reward, terminated, truncated, info)`` (see the module docstring)."""
        if not self._started:
            raise ValueError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), not {acts.dtype} {acts.shape}"
            )
        if acts.dtype != np.int64:
            acts = acts.astype(np.int64)
        if self.game == "reversi":
            bad = _reversi_step(self._p, self._o, self._turn, self._legal, acts, self._start_p, self._start_o,
                                self._inside, self.width, self._obs, self._mask_rows, self._reward, self._terminated,
                                self._illegal, self._disc_difference, self._obs_words, self._mask_words)
        else:
            bad = _mnk_step(self._cells, self._turn, self._stones, acts, self.width, self.height, self.k,
                            self._rule, self._flat_obs, self._mask_rows, self._reward, self._terminated, self._illegal)
        if bad >= 0:
            raise ValueError(f"action {int(acts[bad])} of game {bad} is not an action id (0..{self.n_actions - 1})")
        return self._obs, self._reward, self._terminated, self._truncated, self._info()

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (seeded by ``seed``; one stream per game)."""
        if not self._started:
            raise ValueError("call reset() before random_actions()")
        if self.game == "reversi":
            _reversi_random_actions(self._legal, self._rng, self.width, self._actions)
        else:
            _mnk_random_actions(self._cells, self._stones, self._rng, self._actions)
        return self._actions

    def position_text(self, i: int) -> str:
        """Game ``i``'s position in the rules library's text form (``to_text()``)."""
        if not 0 <= i < self.num_envs:
            raise ValueError(f"no game {i}: there are {self.num_envs}")
        rows = []
        for r in range(self.height):
            row = ""
            for c in range(self.width):
                if self.game == "reversi":
                    bit = 1 << (r * 8 + c)
                    black, white = (self._p[i], self._o[i]) if self._turn[i] == 0 else (self._o[i], self._p[i])
                    row += "X" if int(black) & bit else "O" if int(white) & bit else "-"
                else:
                    v = int(self._cells[i, r * self.width + c])
                    row += "-XO"[v]
            rows.append(row)
        return "/".join(rows) + " " + ("X" if self._turn[i] == 0 else "O")

    # -- helpers -----------------------------------------------------------------------------------
    def _info(self) -> dict[str, np.ndarray]:
        info = {"action_mask": self._mask, "to_play": self._turn, "illegal": self._illegal}
        if self.game == "reversi":
            info["disc_difference"] = self._disc_difference
        return info

    def _seed(self, seed: int | None) -> None:
        # game i's stream starts from the i-th word of the seed's sequence, whatever the batch size
        self._rng[:] = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)


def _allow(game: str, options: dict[str, Any], allowed: set[str]) -> None:
    extra = set(options) - allowed
    if extra:
        raise ValueError(f"unknown option(s) for {game} in VectorEnv: {', '.join(sorted(extra))}")
