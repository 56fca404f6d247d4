"""The Gomocup (Piskvork "pbrain") protocol, both sides.

- Engine side, :func:`run_engine`: ``tabletop engine gomocup`` reads one
  command per line on stdin and answers on stdout, flushed per line, never
  reading while it owes a reply.  Every command of the protocol summary
  (START, RECTSTART, RESTART, BEGIN, TURN, BOARD..DONE, INFO, END, ABOUT,
  TAKEBACK, SWAP2BOARD..DONE, PLAY) is handled; bad input gets ``ERROR reason``,
  unknown commands ``UNKNOWN``, and the engine keeps running.
- Manager side, :class:`GomocupPlayer`: the ``gomocup:COMMAND`` player spec.
  It runs the engine as a subprocess, sends the position (TURN when it only
  grew by the opponent's move, otherwise RESTART and BOARD), and waits for
  each reply with a deadline.  A time-out, a crash or a malformed or illegal
  reply raises :class:`GomocupError` with the reason, which the match runner
  scores as a loss.  It tolerates Rapfi's known deviations (``ERROR`` for
  unknown commands or for an ``INFO`` it cannot honour, ``X,Y,colour`` lines
  in SWAP2BOARD, early answers).

Coordinates: ``X`` is the column and ``Y`` the row from the top, both from 0,
which is the rules board's ``Move(col, row)``.  This module must not search;
it asks :mod:`tabletop.ai.gomoku` for moves and decisions.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from tabletop.ai.base import Limit
from tabletop.games.core import BLACK, BaseBoard, IllegalMoveError, Move
from tabletop.games.mnk import GomokuBoard, gomoku
from tabletop.protocols.loading import Preload, waiting_input
from tabletop.protocols.process import EngineProcess

if TYPE_CHECKING:
    from tabletop.ai.gomoku.engine import GomokuEngine

__all__ = ["GomocupEngine", "GomocupError", "GomocupPlayer", "RULE_BITS", "rule_from_bits", "run_engine"]

RULE_BITS = {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}
CONTINUOUS = 2  # "continuous game": ignored, we always play one game at a time
UNLIMITED = 2_147_483_647


def rule_from_bits(value: int) -> str:
    """The rule name for Gomocup's ``INFO rule`` bitmask (the continuous-game bit ignored)."""
    bits = value & ~CONTINUOUS
    for name, b in RULE_BITS.items():
        if bits == b:
            return name
    raise ValueError(f"rule {value} is not supported (0 freestyle, 1 standard, 4 renju, 8 caro)")


def peak_resident_bytes() -> int:
    """This process's peak resident memory (``VmHWM`` on Linux; the current resident size elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import psutil

    return int(psutil.Process().memory_info().rss)


class GomocupError(RuntimeError):
    """An external engine broke the protocol, crashed or ran out of time."""


# ---------------------------------------------------------------------------------------------
# engine side
# ---------------------------------------------------------------------------------------------


# What a search adds to the process beside its table (Python objects, the numba kernels' scratch): the
# engine's peak grows by about 6 MB over its resident size after the warm-up across searching moves, so
# this leaves more than twice that
SEARCH_HEADROOM_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_MEMORY = 300 * 1024 * 1024
MIN_TT_ENTRIES = 10_000


@dataclass
class _Info:
    timeout_turn: int | None = None
    timeout_match: int | None = None
    time_left: int | None = None
    max_memory: int = 0
    game_type: int = 1
    rule: str = "freestyle"
    folder: str = ""
    pending_error: str | None = None
    pending_message: str | None = None  # a MESSAGE line sent before the next reply
    extra: dict[str, str] = field(default_factory=dict)


def _load_player(level: int) -> GomokuEngine:
    """The level player with every kernel a move uses loaded (numba's cache, the books)."""
    from tabletop.ai.gomoku import level_player
    from tabletop.ai.gomoku.engine import warm_up

    warm_up()
    return level_player(level)


class GomocupEngine:
    """The engine's state between commands; :meth:`handle` takes one line and
    returns the reply lines (possibly none).  Multi-line commands (BOARD,
    SWAP2BOARD) collect their lines until DONE."""

    def __init__(self, level: int = 10, base_bytes: int | None = None) -> None:
        """``base_bytes``: the process's memory without its table; measured after the warm-up when not given."""
        self._engine: Preload[GomokuEngine] = Preload(lambda: _load_player(level))
        self.level = level
        self.info = _Info()
        self.size: tuple[int, int] | None = None
        self.board: GomokuBoard | None = None
        self.collecting: str | None = None  # "BOARD" or "SWAP2BOARD" while reading lines
        self.collected: list[str] = []
        self.finished = False
        self.base_bytes = base_bytes
        # the table is sized once the engine is loaded (its memory measured), before it thinks
        self._memory_pending = True

    @property
    def player(self) -> GomokuEngine:
        """The level player, its kernels loaded (waits for :meth:`preload`'s thread), its table
        sized by the last ``INFO max_memory``."""
        player = self._engine.get()
        if self._memory_pending:
            self._memory_pending = False
            self._apply_memory_limit()
        return player

    def preload(self) -> None:
        """Load the engine in the background: START is answered at once, the first command that
        needs the engine waits for it."""
        self._engine.start()

    # -- helpers --------------------------------------------------------------------------
    def _new_board(self) -> GomokuBoard:
        assert self.size is not None
        return gomoku(self.size, self.info.rule)

    def _limit(self) -> Limit:
        from tabletop.ai.gomoku import turn_seconds

        stones = len(self.board.move_stack) if self.board is not None else 0
        default = self.player.settings.seconds
        seconds = turn_seconds(self.info.timeout_turn, self.info.timeout_match, self.info.time_left, stones, default)
        return Limit(seconds=seconds)

    def measured_base_bytes(self) -> int:
        """The process's memory without its table: its peak resident size once every kernel a move uses is
        loaded (the warm-up), plus what a search adds.  Measured once, on the machine the engine runs on:
        the interpreter, numpy and numba take different amounts on different machines."""
        if self.base_bytes is None:
            self._engine.get()  # the engine and its kernels loaded: the memory to measure
            self.base_bytes = peak_resident_bytes() + SEARCH_HEADROOM_BYTES
        return self.base_bytes

    def _apply_memory_limit(self) -> None:
        # the transposition table is the only thing that grows (TT_ENTRY_BYTES an entry); the rest of the
        # process is measured_base_bytes()
        budget = self.info.max_memory if self.info.max_memory > 0 else DEFAULT_MAX_MEMORY
        from tabletop.ai.gomoku import engine as engine_module
        from tabletop.ai.gomoku.search import TT_ENTRY_BYTES

        base = self.measured_base_bytes()
        entries = (budget - base) // TT_ENTRY_BYTES
        if entries < MIN_TT_ENTRIES and self.info.max_memory > 0:  # a limit the manager set, not our default
            self.info.pending_message = (f"MESSAGE max_memory {budget} is below what the engine needs without its "
                                         f"table (about {base >> 20} MB here): it plays with its smallest table")
        else:
            self.info.pending_message = None
        engine_module.TT_ENTRIES = max(MIN_TT_ENTRIES, min(1 << 22, entries))

    def _point(self, text: str) -> tuple[int, int]:
        parts = text.split(",")
        if len(parts) < 2:
            raise ValueError(f"expected X,Y, got {text!r}")
        try:
            x, y = int(parts[0]), int(parts[1])
        except ValueError:
            raise ValueError(f"expected whole numbers X,Y, got {text!r}") from None
        assert self.size is not None
        w, h = self.size
        if not (0 <= x < w and 0 <= y < h):
            raise ValueError(f"{x},{y} is off the {w}x{h} board")
        return x, y

    def _my_move(self) -> str:
        assert self.board is not None
        if self.board.is_game_over():
            raise ValueError("the game is over: no move to make")
        asked = time.perf_counter()
        player = self.player  # waits while the engine is still loading (the first move only)
        limit = self._limit()
        waited = time.perf_counter() - asked
        if limit.seconds is not None and waited > 0.01:
            # the wait is part of this turn's time: the manager's clock ran meanwhile
            limit = Limit(seconds=max(0.1 * limit.seconds, limit.seconds - waited))
        move = player.choose(self.board, limit)
        self.board.push(move)
        return f"{move.col},{move.row}"

    def _need_board(self) -> GomokuBoard:
        if self.size is None:
            raise ValueError("no board: send START first")
        if self.board is None:
            self.board = self._new_board()
        return self.board

    # -- commands ---------------------------------------------------------------------------
    def handle(self, line: str) -> list[str]:
        text = line.strip()
        if not text:
            return []
        if self.collecting is not None:
            if text.upper() == "DONE":
                kind, rows = self.collecting, self.collected
                self.collecting, self.collected = None, []
                try:
                    return self._finish_board(rows) if kind == "BOARD" else self._finish_swap2(rows)
                except ValueError as exc:
                    return [f"ERROR {exc}"]
            self.collected.append(text)
            return []
        word, _, arg = text.partition(" ")
        command = word.upper()
        arg = arg.strip()
        if command == "INFO":
            self._info(arg)
            return []
        handler = getattr(self, f"_cmd_{command.lower()}", None)
        if handler is None:
            return [f"UNKNOWN command {word}"]
        if self.info.pending_error is not None and command not in ("END", "ABOUT"):
            message, self.info.pending_error = self.info.pending_error, None
            return [f"ERROR {message}"]
        try:
            result: list[str] = handler(arg)
        except (ValueError, IllegalMoveError) as exc:
            result = [f"ERROR {exc}"]
        if self.info.pending_message is not None and result:
            result = [self.info.pending_message, *result]
            self.info.pending_message = None
        return result

    def _info(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        key = key.lower()
        value = value.strip()
        numeric = ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule")
        if key in numeric:
            try:
                number = int(value)
            except ValueError:
                self.info.pending_error = f"INFO {key} needs a whole number, got {value!r}"
                return
            if key == "rule":
                try:
                    rule = rule_from_bits(number)
                except ValueError as exc:
                    self.info.pending_error = str(exc)
                    return
                self.info.rule = rule
                if self.board is not None and not self.board.move_stack and self.size is not None:
                    self.board = self._new_board()
            elif key == "max_memory":
                self.info.max_memory = number
                if self.base_bytes is not None:
                    self._apply_memory_limit()  # the engine's size is known: no need to wait for it
                else:
                    self._memory_pending = True
            else:
                setattr(self.info, key, number)
        elif key == "folder":
            self.info.folder = value
        else:
            self.info.extra[key] = value  # evaluate and unknown keys: ignored, as the protocol asks

    def _cmd_start(self, arg: str) -> list[str]:
        try:
            n = int(arg)
        except ValueError:
            raise ValueError(f"START needs a board size, got {arg!r}") from None
        if not 5 <= n <= 26:
            raise ValueError(f"unsupported size {n} (5..26)")
        return self._start_board(n, n)

    def _cmd_rectstart(self, arg: str) -> list[str]:
        parts = arg.split(",")
        try:
            w, h = int(parts[0]), int(parts[1])
        except (ValueError, IndexError):
            raise ValueError(f"RECTSTART needs W,H, got {arg!r}") from None
        if not (5 <= w <= 26 and 5 <= h <= 26):
            raise ValueError(f"unsupported size {w}x{h} (5..26 each side)")
        return self._start_board(w, h)

    def _start_board(self, width: int, height: int) -> list[str]:
        """START and RECTSTART: a new empty board, the kernels loaded before the first move."""
        self.size = (width, height)
        self.board = self._new_board()
        return ["OK"]

    def _cmd_restart(self, arg: str) -> list[str]:
        if self.size is None:
            raise ValueError("no board: send START first")
        self.board = self._new_board()
        return ["OK"]

    def _cmd_begin(self, arg: str) -> list[str]:
        board = self._need_board()
        if board.move_stack:
            raise ValueError("BEGIN needs an empty board")
        return [self._my_move()]

    def _cmd_turn(self, arg: str) -> list[str]:
        board = self._need_board()
        x, y = self._point(arg)
        board.push(board.move_at(x, y))
        return [self._my_move()]

    def _cmd_play(self, arg: str) -> list[str]:
        board = self._need_board()
        x, y = self._point(arg)
        board.push(board.move_at(x, y))
        return [f"{x},{y}"]

    def _cmd_takeback(self, arg: str) -> list[str]:
        board = self._need_board()
        x, y = self._point(arg)
        stack = board.move_stack
        if stack and (stack[-1].col, stack[-1].row) == (x, y):
            board.pop()
            return ["OK"]
        if board.piece_at(x, y) is None:
            raise ValueError(f"no stone at {x},{y}")
        if board.rule == "renju":
            raise ValueError(f"{x},{y} is not the last move (renju keeps the move order)")
        # other rules do not care about order: take the stone out and replay the rest
        rest = [m for m in stack if (m.col, m.row) != (x, y)]
        fresh = self._new_board()
        pieces = {(m.col, m.row): board.piece_at(m.col, m.row) for m in rest}
        blacks = [m for m in rest if pieces[(m.col, m.row)] is BLACK]
        whites = [m for m in rest if pieces[(m.col, m.row)] is not BLACK]
        self.board = _board_from_stones(fresh, blacks, whites)
        return ["OK"]

    def _cmd_board(self, arg: str) -> list[str]:
        self._need_board()
        self.collecting, self.collected = "BOARD", []
        return []

    def _cmd_swap2board(self, arg: str) -> list[str]:
        self._need_board()
        self.collecting, self.collected = "SWAP2BOARD", []
        return []

    def _cmd_end(self, arg: str) -> list[str]:
        self.finished = True
        return []

    def _cmd_about(self, arg: str) -> list[str]:
        from tabletop import __version__

        return [
            f'name="tabletop", version="{__version__}", author="tabletop engineers", country="", '
            f'www="", email="", level="{self.level}"'
        ]

    def _finish_board(self, rows: list[str]) -> list[str]:
        stones: list[tuple[int, int, int]] = []
        for row in rows:
            parts = row.split(",")
            if len(parts) != 3:
                raise ValueError(f"BOARD line {row!r}: expected X,Y,F")
            x, y = self._point(row)
            try:
                f = int(parts[2])
            except ValueError:
                raise ValueError(f"BOARD line {row!r}: F must be 1, 2 or 3") from None
            if f not in (1, 2, 3):
                raise ValueError(f"BOARD line {row!r}: F must be 1, 2 or 3")
            stones.append((x, y, f))
        board = self._board_from_lines(stones)
        self.board = board
        return [self._my_move()]

    def _board_from_lines(self, stones: list[tuple[int, int, int]]) -> GomokuBoard:
        own = [(x, y) for x, y, f in stones if f == 1]
        opp = [(x, y) for x, y, f in stones if f == 2]
        if len(set(own + opp)) != len(own) + len(opp):
            raise ValueError("BOARD puts two stones on one point")
        if len(own) == len(opp):
            own_black = True
        elif len(opp) == len(own) + 1:
            own_black = False
        else:
            raise ValueError(f"BOARD has {len(own)} own and {len(opp)} opponent stones: it must be our turn")
        fresh = self._new_board()
        if fresh.rule == "renju":
            # renju needs the move order: the lines alternate Black, White, ...
            played = [(x, y, f) for x, y, f in stones if f in (1, 2)]
            black_f = 1 if own_black else 2
            for i, (x, y, f) in enumerate(played):
                if (f == black_f) != (i % 2 == 0):
                    raise ValueError(f"BOARD lines out of order under renju at line {i + 1} ({x},{y},{f})")
                fresh.push(fresh.move_at(x, y))
            return fresh
        blacks = [fresh.move_at(x, y) for x, y in (own if own_black else opp)]
        whites = [fresh.move_at(x, y) for x, y in (opp if own_black else own)]
        return _board_from_stones(fresh, blacks, whites)

    def _finish_swap2(self, rows: list[str]) -> list[str]:
        from tabletop.ai.gomoku import choose_swap2_action, choose_swap_opening

        fresh = self._new_board()
        for row in rows:  # bare X,Y lines as the spec says, or X,Y,colour as Rapfi wants
            x, y = self._point(row)
            fresh.push(fresh.move_at(x, y))
        count = len(fresh.move_stack)
        if count == 0:
            stones = choose_swap_opening(fresh)
            return [" ".join(f"{m.col},{m.row}" for m in stones)]
        if count not in (3, 5):
            raise ValueError(f"SWAP2BOARD needs 0, 3 or 5 stones, got {count}")
        self.board = fresh
        decision = choose_swap2_action(fresh)
        if decision.choice == "place" and count == 3:
            return [" ".join(f"{m.col},{m.row}" for m in decision.stones)]
        mover = "black" if fresh.turn is BLACK else "white"
        if decision.choice == mover:
            return [self._my_move()]
        self.board = fresh
        return ["SWAP"]


def _board_from_stones(board: GomokuBoard, blacks: list[Move], whites: list[Move]) -> GomokuBoard:
    """A board with these stones (any order), Black's turn when the counts are equal."""
    w, h = board.width, board.height
    grid = [["-"] * w for _ in range(h)]
    for m in blacks:
        grid[m.row][m.col] = "X"
    for m in whites:
        grid[m.row][m.col] = "O"
    turn = "X" if len(blacks) == len(whites) else "O"
    text = "/".join("".join(r) for r in grid) + " " + turn
    return gomoku((w, h), board.rule, position=text)


def run_engine(
    level: int = 10, stdin: IO[str] | None = None, stdout: IO[str] | None = None, base_bytes: int | None = None
) -> int:
    """Speak the protocol on stdin/stdout until END or end of input; 0 on a clean exit.  ``base_bytes``:
    see :class:`GomocupEngine` (measured when not given)."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    engine = GomocupEngine(level, base_bytes=base_bytes)
    for line in inp:
        replies = engine.handle(line)
        for reply in replies:
            out.write(reply + "\n")
        if replies:
            out.flush()
        if engine.finished:
            break
        if not waiting_input(inp):
            engine.preload()  # the manager's lines so far are answered: load while it waits
    return 0


# ---------------------------------------------------------------------------------------------
# manager side
# ---------------------------------------------------------------------------------------------


STARTUP_GRACE = 5.0  # seconds a fresh engine's first reply may take beyond the turn's (its loading)


class GomocupPlayer:
    """``gomocup:COMMAND``: an external pbrain engine as a player.

    ``reply_grace`` seconds are allowed beyond the turn time for process and
    pipe overheads; with no limit a reply may take ``default_seconds``.
    ``start_lines`` are sent to each fresh engine before the rule and START: an
    engine's own options (Rapfi's ``YXSHOWINFO`` makes it report every completed
    depth in MESSAGE lines, which land in :attr:`notes`).
    """

    def __init__(self, command: str, default_seconds: float = 30.0, reply_grace: float = 2.0,
                 start_seconds: float = 30.0, start_lines: tuple[str, ...] = ()) -> None:
        self.command = command
        self.start_lines = start_lines
        self.name = f"gomocup:{command}"
        self.default_seconds = default_seconds
        self.reply_grace = reply_grace
        self.start_seconds = start_seconds
        self._first_reply_grace = 0.0  # seconds more for the first reply after START
        self._process: EngineProcess | None = None
        self._known: list[Move] = []  # the moves the engine has, in order
        self._variant: tuple[int, int, str] | None = None
        self.about: str | None = None
        self.notes: list[str] = []  # MESSAGE/DEBUG lines and tolerated oddities

    # -- process ------------------------------------------------------------------------------
    def _start(self) -> EngineProcess:
        self._process = EngineProcess(self.command, GomocupError, newline="\r\n", quit_line="END")
        self._known = []
        self._variant = None
        return self._process

    def _running(self) -> EngineProcess:
        """The engine process, started again if it is not running."""
        if self._process is None or not self._process.running:
            return self._start()
        return self._process

    def close(self) -> None:
        """Send END and stop the engine (killed after a second)."""
        if self._process is not None:
            self._process.close()
        self._process = None

    def __enter__(self) -> GomocupPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, line: str) -> None:
        if self._process is None:
            raise GomocupError("the engine is not running")
        self._process.send(line)

    def _reply(self, deadline: float, what: str) -> str:
        """The next line that is a reply (MESSAGE/DEBUG/SUGGEST handled on the way)."""
        assert self._process is not None
        while True:
            text = self._process.read_line(deadline, what).strip()
            if not text:
                continue
            head = text.split(None, 1)[0].upper()
            if head in ("MESSAGE", "DEBUG"):
                self.notes.append(text)
                continue
            if head == "SUGGEST":
                # the manager answers PLAY with the suggestion, which the engine echoes
                self._send("PLAY " + text.split(None, 1)[1].strip() if " " in text else "PLAY")
                continue
            return text

    def _expect_ok(self, command: str, deadline: float) -> None:
        while True:
            reply = self._reply(deadline, command)
            if reply.upper() == "OK":
                return
            if reply.upper().startswith("ERROR") and "rule" not in reply.lower():
                # Rapfi answers an INFO it cannot honour at once with ERROR; the
                # protocol says the manager does not read replies to INFO, so go on
                self.notes.append(f"ignored after INFO: {reply}")
                continue
            raise GomocupError(f"{command} answered {reply!r}")

    # -- playing ------------------------------------------------------------------------------
    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        if not isinstance(board, GomokuBoard):
            raise GomocupError(f"the gomocup protocol plays gomoku boards, not {board.game}")
        seconds = self.default_seconds
        if limit is not None and limit.seconds is not None:
            seconds = limit.seconds
        self._running()
        variant = (board.width, board.height, board.rule)
        if self._variant != variant:
            if board.rule not in RULE_BITS:
                raise GomocupError(f"rule {board.rule!r} has no Gomocup number")
            if self._variant is not None:
                self.close()
                self._start()
            self._start_variant(variant)
        turn_ms = max(1, int(seconds * 1000))
        self._send(f"INFO timeout_turn {turn_ms}")
        self._send("INFO timeout_match 0")
        self._send(f"INFO time_left {UNLIMITED}")
        stack = [m for m in board.move_stack if not m.is_pass]
        stones = [(c, r) for c, r in board.squares() if board.piece_at(c, r) is not None]
        set_up = len(stones) != len(stack)
        if set_up:
            # a set-up position (no move history): send its stones, Black and White alternating
            blacks = [board.move_at(c, r) for c, r in stones if board.piece_at(c, r) is BLACK]
            whites = [board.move_at(c, r) for c, r in stones if board.piece_at(c, r) is not BLACK]
            stack = [m for pair in zip(blacks, whites) for m in pair] + blacks[len(whites):] + whites[len(blacks):]
        deadline = time.monotonic() + seconds + self.reply_grace + self._first_reply_grace
        self._first_reply_grace = 0.0
        if not stack:
            if self._known:
                self._restart(deadline)
            command = "BEGIN"
            self._send(command)
        elif not set_up and len(stack) == len(self._known) + 1 and stack[:-1] == self._known:
            last = stack[-1]
            command = "TURN"
            self._send(f"TURN {last.col},{last.row}")
        else:
            if self._known or set_up:
                self._restart(deadline)
            command = "BOARD"
            self._send("BOARD")
            for m in stack:  # 1 = the side to move's stone, 2 = the other side's
                self._send(f"{m.col},{m.row},{1 if board.piece_at(m.col, m.row) is board.turn else 2}")
            self._send("DONE")
        reply = self._reply(deadline, command)
        move = self._parse_move(board, reply, command)
        self._known = [*stack, move]
        return move

    def _start_variant(self, variant: tuple[int, int, str]) -> None:
        """Tell a fresh engine the rule and the board size (START or RECTSTART) and wait for OK."""
        width, height, rule = variant
        for line in self.start_lines:
            self._send(line)
        self._send(f"INFO rule {RULE_BITS[rule]}")
        start = f"START {width}" if width == height else f"RECTSTART {width},{height}"
        self._send(start)
        self._expect_ok(start.split()[0], time.monotonic() + self.start_seconds)
        self._variant = variant
        self._known = []
        # an engine may answer START before it has loaded (ours does): its first reply may take
        # STARTUP_GRACE more than the turn's time
        self._first_reply_grace = STARTUP_GRACE

    def _restart(self, deadline: float) -> None:
        self._send("RESTART")
        reply = self._reply(deadline, "RESTART")
        if reply.upper() == "OK":
            self._known = []
            return
        if reply.upper().startswith(("UNKNOWN", "ERROR")):
            # the protocol's answer to a brain without RESTART: start it again
            variant = self._variant
            self.close()
            self._start()
            if variant is not None:
                self._start_variant(variant)
            return
        raise GomocupError(f"RESTART answered {reply!r}")

    def _parse_move(self, board: BaseBoard, reply: str, command: str) -> Move:
        head = reply.split(None, 1)[0].upper()
        if head in ("ERROR", "UNKNOWN"):
            raise GomocupError(f"the engine answered {command} with {reply!r}")
        parts = reply.split(",")
        try:
            x, y = int(parts[0]), int(parts[1])
            if len(parts) != 2:
                raise ValueError
        except (ValueError, IndexError):
            raise GomocupError(f"malformed reply to {command}: {reply!r} (expected X,Y)") from None
        if not board.on_board(x, y):
            raise GomocupError(f"the engine played {x},{y}, off the {board.width}x{board.height} board")
        move = board.move_at(x, y)
        if not board.is_legal(move):
            raise GomocupError(f"the engine played an illegal move {x},{y} ({move})")
        return move

    def identify(self, seconds: float = 10.0) -> str:
        """The engine's ABOUT line."""
        self._running()
        self._send("ABOUT")
        self.about = self._reply(time.monotonic() + seconds, "ABOUT")
        return self.about

