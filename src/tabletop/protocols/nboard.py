"""The NBoard protocol (version 2), both sides.

Engine side, :func:`run_engine`: the commands an NBoard-compatible GUI sends on
stdin (``nboard 2``, ``set depth N``, ``set game GGF``, ``set contempt N``,
``move MOVE[/EVAL/TIME]``, ``hint N``, ``go``, ``ping N``, ``learn``,
``analyze``) answered on stdout (``=== MOVE/EVAL/TIME``, ``search``,
``nodestats``, ``status``, ``pong``, ``learned``, ``analysis``), one flushed
line each.  A bad command or game gets one ``nboard: error: ...`` line on
stderr and the engine keeps running.

Controller side, :class:`NBoardPlayer`: drives any NBoard engine in a
subprocess as a tabletop player (the ``nboard:COMMAND`` spec).  A time-out, an
early exit or a malformed reply raises :class:`NBoardError`.

Moves are written as NBoard writes them: ``F5`` (column letter, row from the
top, a1 the top-left corner as in tabletop) and ``PA`` for a pass.  This module
must not search; it uses :mod:`tabletop.ai.reversi` for that.
"""

from __future__ import annotations

import re
import sys
import time
from typing import TYPE_CHECKING, TextIO

from tabletop.ai.base import Limit
from tabletop.games.core import PASS, BaseBoard, Color, Move
from tabletop.games.reversi import Board
from tabletop.protocols.loading import Preload, waiting_input
from tabletop.protocols.process import EngineProcess

if TYPE_CHECKING:
    from tabletop.ai.reversi.levels import EnginePlayer

__all__ = ["NBoardEngine", "NBoardError", "NBoardPlayer", "game_to_ggf", "parse_ggf", "run_engine"]


class NBoardError(ValueError):
    """An NBoard engine or game that cannot be used; the message says why."""


# --------------------------------------------------------------------------- GGF
_TAG = re.compile(r"([A-Z]+)\[([^\]]*)\]")


def parse_ggf(text: str) -> tuple[Board, list[str]]:
    """A GGF game: (the Reversi board at its start, the moves played) as tabletop objects.

    Only the tags that decide the position are read: ``BO`` (size, squares and
    side to move) and ``B``/``W`` moves; the others are ignored.
    """
    body = text.strip()
    if not (body.startswith("(;") and body.endswith(";)")):
        raise NBoardError("a GGF game must start with '(;' and end with ';)'")
    tags = _TAG.findall(body[2:-2])
    if not tags:
        raise NBoardError("the GGF game has no tags")
    board: Board | None = None
    moves: list[str] = []
    for tag, value in tags:
        if tag == "BO":
            parts = value.split()
            if len(parts) < 3 or parts[0] != "8":
                raise NBoardError(f"BO[{value}] is not an 8x8 board: expected 'BO[8 SQUARES SIDE]'")
            squares = "".join(parts[1:-1])
            side = parts[-1]
            if len(squares) != 64 or any(c not in "-*O" for c in squares):
                raise NBoardError(f"BO[{value}] must hold 64 squares of '-', '*' and 'O'")
            if side not in ("*", "O"):
                raise NBoardError(f"BO[{value}] must end with the side to move, '*' or 'O'")
            black = sum(1 << i for i, c in enumerate(squares) if c == "*")
            white = sum(1 << i for i, c in enumerate(squares) if c == "O")
            board = Board.from_bitboards(black, white, Color.BLACK if side == "*" else Color.WHITE)
        elif tag in ("B", "W"):
            if board is None:
                raise NBoardError(f"the move {tag}[{value}] comes before the board (BO)")
            moves.append(value.split("/")[0].strip())
    if board is None:
        raise NBoardError("the GGF game has no board (BO tag)")
    return board, moves


def game_to_ggf(board: BaseBoard) -> str:
    """The position of ``board`` as a GGF game with no moves (the engine needs nothing else)."""
    squares = ""
    for row in range(8):
        for col in range(8):
            piece = board.piece_at(col, row)
            squares += "-" if piece is None else ("*" if piece is Color.BLACK else "O")
    side = "*" if board.turn is Color.BLACK else "O"
    return f"(;GM[Othello]PC[tabletop]TY[8]BO[8 {squares} {side}];)"


def move_text(move: Move) -> str:
    """``F5`` or ``PA``."""
    return "PA" if move.is_pass else str(move).upper()


def _parse_move(board: BaseBoard, text: str) -> Move:
    t = text.strip().split("/")[0].strip().lower()
    if t in ("pa", "pass"):
        return PASS
    return board.parse_move(t)


# --------------------------------------------------------------------------- engine side
def _load_player(level: int) -> EnginePlayer:
    """The level player with every kernel a move uses loaded (numba's cache, the book)."""
    from tabletop.ai.reversi import level_player
    from tabletop.ai.warmup import warm_up_reversi

    warm_up_reversi()
    return level_player(level)


class NBoardEngine:
    """The engine's state between commands: the game, the depth, the level player.

    ``seconds``: think that long on each ``go`` (an iterative-deepening search
    stopped by the clock) instead of searching to the level's depth; a ``set
    depth`` from the GUI still overrides it.  NBoard sends engines no clock, so
    this is how a match gives an engine a time per move."""

    def __init__(self, level: int, out: TextIO, err: TextIO, seconds: float | None = None) -> None:
        self._engine: Preload[EnginePlayer] = Preload(lambda: _load_player(level))
        self.board: BaseBoard = Board()
        self.depth: int | None = None
        self.seconds = seconds
        self.contempt = 0
        self.out = out
        self.err = err

    @property
    def player(self) -> EnginePlayer:
        """The level player, its kernels loaded (waits for :meth:`preload`'s thread)."""
        return self._engine.get()

    def preload(self) -> None:
        """Load the engine in the background: ``nboard``, ``set``, ``move`` and ``ping`` are
        answered meanwhile, the first command that searches waits for it."""
        self._engine.start()

    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def error(self, message: str) -> None:
        self.err.write(f"nboard: error: {message}\n")
        self.err.flush()

    def handle(self, line: str) -> bool:
        """Answer one command; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0].lower(), words[1:]
        try:
            if command == "quit":
                return False
            handler = getattr(self, f"_cmd_{command}", None)
            if handler is None:
                raise NBoardError(f"unknown command {words[0]!r}")
            handler(args, line)
        except ValueError as exc:  # NBoardError, IllegalMoveError and bad numbers alike
            self.error(str(exc))
        return True

    def _cmd_nboard(self, args: list[str], line: str) -> None:
        if args and args[0] != "2":
            self.error(f"protocol version {args[0]} asked; this engine speaks version 2")
        self.send("set myname tabletop")

    def _cmd_set(self, args: list[str], line: str) -> None:
        if not args:
            raise NBoardError("'set' needs a property: depth, game or contempt")
        prop = args[0].lower()
        if prop == "depth":
            depth = _int_arg(args[1:], "set depth")
            if not 1 <= depth <= 60:
                raise NBoardError(f"set depth {depth}: the depth must be 1..60")
            self.depth = depth
        elif prop == "game":
            ggf = line.split(None, 2)[2] if len(line.split(None, 2)) == 3 else ""
            board, moves = parse_ggf(ggf)
            for text in moves:
                board.push(_parse_move(board, text))
            self.board = board
        elif prop == "contempt":
            self.contempt = _int_arg(args[1:], "set contempt")
        else:
            raise NBoardError(f"unknown property {args[0]!r} (expected depth, game or contempt)")

    def _cmd_move(self, args: list[str], line: str) -> None:
        if not args:
            raise NBoardError("'move' needs a move, like 'move F5' or 'move PA'")
        self.board.push(_parse_move(self.board, args[0]))

    def _cmd_ping(self, args: list[str], line: str) -> None:
        self.send("pong" + (f" {args[0]}" if args else ""))

    def _cmd_learn(self, args: list[str], line: str) -> None:
        self.send("learned")

    def _limit(self) -> Limit | None:
        if self.depth is not None:
            return Limit(depth=self.depth)
        return Limit(seconds=self.seconds) if self.seconds is not None else None

    def _cmd_go(self, args: list[str], line: str) -> None:
        if self.board.is_game_over():
            raise NBoardError("'go' in a finished game")
        self.send("status thinking")
        started = time.perf_counter()
        legal = self.board.legal_moves
        if legal == [PASS]:
            self.send(f"=== PA/0.00/{time.perf_counter() - started:.3f}")
            self.send("status")
            return
        result = self.player.search(self.board, self._limit())
        elapsed = time.perf_counter() - started
        move = _square_move(self.board, result.best)
        chosen = next((s.score for s in result.scores if s.square == result.best), result.score)
        self.send(f"nodestats {result.nodes} {elapsed:.3f}")
        self.send(f"=== {move_text(move)}/{chosen:.2f}/{elapsed:.3f}")
        self.send("status")

    def _cmd_hint(self, args: list[str], line: str) -> None:
        count = _int_arg(args, "hint")
        if count < 1:
            raise NBoardError(f"hint {count}: ask for at least one move")
        if self.board.is_game_over():
            raise NBoardError("'hint' in a finished game")
        self.send("status analysing")
        started = time.perf_counter()
        analysis = self.player.analyse(self.board, self._limit() or Limit(depth=self.player.level.depth))
        for score in analysis.scores[:count]:
            depth = "100%" if score.exact else str(analysis.depth)
            self.send(f"search {move_text(score.move)} {score.score:.2f} 0 {depth}")
        self.send(f"nodestats {analysis.nodes} {time.perf_counter() - started:.3f}")
        self.send("status")

    def _cmd_analyze(self, args: list[str], line: str) -> None:
        # One evaluation per position of the game, from the last back to the first.
        board = self.board.copy()
        self.send("status analysing")
        while True:
            n = len(board.move_stack)
            if not board.is_game_over():
                analysis = self.player.analyse(board, Limit(depth=min(self.depth or 4, 6)))
                self.send(f"analysis {n} {analysis.scores[0].score:.2f}")
            if not board.move_stack:
                break
            board.pop()
        self.send("status")


def _square_move(board: BaseBoard, sq: int) -> Move:
    return PASS if sq < 0 else board.move_at(sq % 8, sq // 8)


def _int_arg(args: list[str], what: str) -> int:
    if not args:
        raise NBoardError(f"'{what}' needs a whole number")
    try:
        return int(args[0])
    except ValueError:
        raise NBoardError(f"'{what} {args[0]}': not a whole number") from None


def run_engine(
    level: int = 10, stdin: TextIO | None = None, stdout: TextIO | None = None, seconds: float | None = None
) -> int:
    """Speak NBoard on stdin/stdout until ``quit`` or end of input (``seconds``: a time per move)."""
    engine = NBoardEngine(level, stdout or sys.stdout, sys.stderr, seconds=seconds)
    inp = stdin or sys.stdin
    for line in inp:
        if not engine.handle(line.strip()):
            break
        if not waiting_input(inp):
            engine.preload()  # the GUI's burst of commands is answered: load while it waits
    return 0


# --------------------------------------------------------------------------- controller side
class NBoardPlayer:
    """A tabletop player backed by an external NBoard engine (``nboard:COMMAND``)."""

    def __init__(self, command: str, timeout: float = 30.0) -> None:
        self.command = command
        self.name = f"nboard:{command}"
        self.timeout = timeout
        self._process: EngineProcess | None = None
        self._ping = 0

    def _start(self) -> EngineProcess:
        """The engine process, started (and greeted with ``nboard 2``) if it is not running."""
        if self._process is not None and self._process.running:
            return self._process
        self._process = EngineProcess(self.command, NBoardError, quit_line="quit", quit_seconds=2.0)
        self._send("nboard 2")
        return self._process

    def _send(self, line: str) -> None:
        assert self._process is not None
        self._process.send(line)

    def _expect(self, prefix: str, deadline: float) -> str:
        assert self._process is not None
        while True:
            line = self._process.read_line(deadline, f"'{prefix}'")
            if line.startswith(prefix):
                return line

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        legal = board.legal_moves
        if not legal:
            raise NBoardError("the game is over: there is no move to ask for")
        self._start()
        wait = self.timeout + (limit.seconds * 3 if limit and limit.seconds else 0.0)
        deadline = time.monotonic() + wait
        if limit is not None and limit.depth is not None:
            self._send(f"set depth {max(1, min(60, limit.depth))}")
        self._send(f"set game {game_to_ggf(board)}")
        # ping/pong drains replies to earlier commands before the move is asked for.
        self._ping += 1
        self._send(f"ping {self._ping}")
        while self._expect("pong", deadline).split()[1:] != [str(self._ping)]:
            pass
        self._send("go")
        reply = self._expect("===", deadline)
        text = reply[3:].strip().split("/")[0].strip()
        try:
            move = _parse_move(board, text)
        except ValueError:
            raise NBoardError(f"the engine {self.command!r} sent a malformed move: {reply!r}") from None
        if move not in legal:
            raise NBoardError(f"the engine {self.command!r} sent an illegal move: {reply!r}")
        return move

    def close(self) -> None:
        """End the engine process (``quit``, killed if it has not exited within 2 s)."""
        if self._process is not None:
            self._process.close()
        self._process = None
