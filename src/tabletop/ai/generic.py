"""Players that work on every game through the board protocol alone.

``random``, ``greedy`` (one ply), ``mcts`` (UCT with random playouts) and
``minimax`` (negamax alpha-beta, transposition table, iterative deepening under
a time limit).  They must not look inside any particular game: the only
game knowledge is :func:`heuristic`, which reads pieces through ``piece_at``
and asks the board for ``disc_difference`` when it has one.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from tabletop.ai.base import Analysis, Limit, MoveScore
from tabletop.games.core import BaseBoard, Color, Move

__all__ = ["GreedyPlayer", "MCTSPlayer", "MinimaxPlayer", "RandomPlayer", "heuristic"]

WIN = 1_000_000.0


def _line_windows(width: int, height: int, k: int) -> list[tuple[int, ...]]:
    """Every window of k squares in a row (square index = row*width+col)."""
    out: list[tuple[int, ...]] = []
    for row in range(height):
        for col in range(width):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ec, er = col + dc * (k - 1), row + dr * (k - 1)
                if 0 <= ec < width and 0 <= er < height:
                    out.append(tuple((row + dr * i) * width + col + dc * i for i in range(k)))
    return out


_WINDOWS: dict[tuple[int, int, int], list[tuple[int, ...]]] = {}


def heuristic(board: BaseBoard, color: Color) -> float:
    """A rough static value of ``board`` for ``color`` (positive is good).

    Decided games score +-WIN.  Boards that count discs (Reversi) give the disc
    difference plus corner weight; line games (``k`` attribute) sum 4**n over every
    window of k squares that holds n stones of one colour only.
    """
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return WIN if outcome.winner is color else -WIN
    k = getattr(board, "k", None)
    w, h = board.width, board.height
    cells = [board.piece_at(i % w, i // w) for i in range(w * h)]
    if isinstance(k, int):
        key = (w, h, k)
        windows = _WINDOWS.get(key)
        if windows is None:
            windows = _WINDOWS[key] = _line_windows(w, h, k)
        score = 0.0
        for win in windows:
            mine = theirs = 0
            for i in win:
                c = cells[i]
                if c is None:
                    continue
                if c is color:
                    mine += 1
                else:
                    theirs += 1
            if mine and not theirs:
                score += 4.0**mine
            elif theirs and not mine:
                score -= 4.0**theirs * 1.5  # a threat against us weighs more than our own
        return score
    # disc games: discs, plus corners which can never be taken back
    score = 0.0
    corners = {0, w - 1, (h - 1) * w, h * w - 1}
    for i, c in enumerate(cells):
        if c is None:
            continue
        v = 25.0 if i in corners else 1.0
        score += v if c is color else -v
    return score


class RandomPlayer:
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        moves = board.legal_moves
        if not moves:
            raise ValueError("no legal move: the game is over")
        return self.rng.choice(moves)


class GreedyPlayer:
    """Looks one ply ahead and takes the move with the best :func:`heuristic`."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        moves = board.legal_moves
        if not moves:
            raise ValueError("no legal move: the game is over")
        me = board.turn
        best: list[Move] = []
        best_score = -math.inf
        b = board.copy()
        for m in moves:
            b.push(m)
            s = heuristic(b, me)
            b.pop()
            if s > best_score:
                best, best_score = [m], s
            elif s == best_score:
                best.append(m)
        return self.rng.choice(best)


@dataclass
class _Node:
    move: Move | None
    parent: _Node | None
    to_play: Color
    untried: list[Move]
    children: list[_Node] = field(default_factory=list)
    visits: int = 0
    wins: float = 0.0  # from the point of view of the player who moved into this node


class MCTSPlayer:
    """UCT Monte Carlo tree search with uniformly random playouts.

    Give either ``playouts`` or ``seconds``; a ``Limit`` passed to ``choose``
    overrides them.
    """

    def __init__(self, playouts: int | None = None, seconds: float | None = None, seed: int | None = None,
                 exploration: float = 1.4) -> None:
        if playouts is None and seconds is None:
            playouts = 1000
        self.playouts = playouts
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.c = exploration
        self.name = f"mcts:{playouts}" if playouts is not None else f"mcts:{seconds}s"

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        return self._search(board, limit)[0]

    def analyse(self, board: BaseBoard, limit: Limit | None = None) -> Analysis:
        best, root, n = self._search(board, limit)
        scores = sorted(
            (MoveScore(ch.move, round(2 * ch.wins / ch.visits - 1, 3)) for ch in root.children if ch.move and ch.visits),
            key=lambda s: -s.score,
        )
        return Analysis(scores=scores, pv=[best], depth=1, nodes=n)

    def _search(self, board: BaseBoard, limit: Limit | None) -> tuple[Move, _Node, int]:
        moves = board.legal_moves
        if not moves:
            raise ValueError("no legal move: the game is over")
        if len(moves) == 1:
            return moves[0], _Node(None, None, board.turn, []), 0
        playouts = self.playouts
        seconds = self.seconds
        if limit is not None:
            playouts = limit.nodes if limit.nodes is not None else (None if limit.seconds else playouts)
            seconds = limit.seconds if limit.seconds is not None else (None if limit.nodes else seconds)
        deadline = time.perf_counter() + seconds if seconds is not None else math.inf
        root = _Node(None, None, board.turn, list(moves))
        self.rng.shuffle(root.untried)
        b = board.copy()
        n = 0
        while (playouts is None or n < playouts) and (n == 0 or time.perf_counter() < deadline):
            node = root
            depth = 0
            # selection
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                node = max(node.children, key=lambda ch: ch.wins / ch.visits + self.c * math.sqrt(log_n / ch.visits))
                assert node.move is not None
                b.push(node.move)
                depth += 1
            # expansion
            if node.untried:
                m = node.untried.pop()
                b.push(m)
                depth += 1
                child_moves = b.legal_moves
                self.rng.shuffle(child_moves)
                child = _Node(m, node, b.turn, child_moves)
                node.children.append(child)
                node = child
            # playout
            extra = 0
            while True:
                outcome = b.outcome()
                if outcome is not None:
                    break
                b.push(self.rng.choice(b.legal_moves))
                extra += 1
            winner = outcome.winner
            for _ in range(depth + extra):
                b.pop()
            # backpropagation: a node's wins count for the player who moved into it
            while node is not None:
                node.visits += 1
                if node.parent is not None:
                    mover = node.parent.to_play
                    node.wins += 0.5 if winner is None else (1.0 if winner is mover else 0.0)
                node = node.parent  # type: ignore[assignment]
            n += 1
        best = max(root.children, key=lambda ch: ch.visits)
        assert best.move is not None
        return best.move, root, n


class _Timeout(Exception):
    pass


class MinimaxPlayer:
    """Negamax with alpha-beta, a transposition table and iterative deepening
    under a time limit (``seconds``), or to a fixed ``depth``."""

    def __init__(self, seconds: float | None = 1.0, depth: int | None = None, seed: int | None = None) -> None:
        self.seconds = seconds
        self.depth = depth
        self.rng = random.Random(seed)
        self.name = f"minimax:{seconds:g}" if depth is None and seconds is not None else f"minimax:d{depth}"
        self.nodes = 0
        self._horizon_hit = False
        self._deadline = math.inf
        self._tt: dict[str, tuple[int, float, int, Move | None]] = {}

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        analysis = self.analyse(board, limit)
        assert analysis.best is not None
        return analysis.best

    def analyse(self, board: BaseBoard, limit: Limit | None = None) -> Analysis:
        moves = board.legal_moves
        if not moves:
            raise ValueError("no legal move: the game is over")
        seconds, max_depth = self.seconds, self.depth
        if limit is not None and (limit.seconds is not None or limit.depth is not None):
            seconds, max_depth = limit.seconds, limit.depth
        start = time.perf_counter()
        self._deadline = start + seconds if seconds is not None else math.inf
        self._tt = {}
        self.nodes = 0
        b = board.copy()
        order = list(moves)
        self.rng.shuffle(order)
        scores: list[MoveScore] = [MoveScore(m, 0.0) for m in order]
        depth_done = 0
        depth = 1
        limit_depth = max_depth if max_depth is not None else 64
        while depth <= limit_depth:
            self._horizon_hit = False
            try:
                results: list[MoveScore] = []
                alpha = -math.inf
                for m in order:
                    b.push(m)
                    v = -self._negamax(b, depth - 1, -math.inf, -alpha if alpha > -math.inf else math.inf, 1)
                    b.pop()
                    results.append(MoveScore(m, v, exact=abs(v) >= WIN - 1000))
                    alpha = max(alpha, v)
            except _Timeout:
                break
            results.sort(key=lambda s: -s.score)
            scores = results
            order = [s.move for s in results]
            depth_done = depth
            if abs(results[0].score) >= WIN - 1000 or not self._horizon_hit:
                break
            if time.perf_counter() > self._deadline:
                break
            depth += 1
        # only the best move's score is exact under alpha-beta; others are bounds
        pv = [scores[0].move]
        return Analysis(scores=scores, pv=pv, depth=depth_done, nodes=self.nodes,
                        seconds=time.perf_counter() - start)

    def _negamax(self, b: BaseBoard, depth: int, alpha: float, beta: float, ply: int) -> float:
        self.nodes += 1
        if self.nodes & 255 == 0 and time.perf_counter() > self._deadline:
            raise _Timeout
        outcome = b.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0.0
            return (WIN - ply) if outcome.winner is b.turn else -(WIN - ply)
        if depth <= 0:
            self._horizon_hit = True
            return heuristic(b, b.turn)
        key = b.to_text()
        entry = self._tt.get(key)
        best_move: Move | None = None
        if entry is not None:
            e_depth, e_value, e_flag, best_move = entry
            if e_depth >= depth:
                if e_flag == 0:
                    return e_value
                if e_flag == 1 and e_value >= beta:
                    return e_value
                if e_flag == -1 and e_value <= alpha:
                    return e_value
        moves = b.legal_moves
        if best_move is not None and best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        alpha0 = alpha
        best = -math.inf
        for m in moves:
            b.push(m)
            v = -self._negamax(b, depth - 1, -beta, -alpha, ply + 1)
            b.pop()
            if v > best:
                best, best_move = v, m
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        flag = 0 if alpha0 < best < beta else (1 if best >= beta else -1)
        self._tt[key] = (depth, best, flag, best_move)
        return best
