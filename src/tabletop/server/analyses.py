"""Whole-game analyses: the engine on every position of a room's game, stored with the game.

An analysis runs as a task of the hub that hands the positions to the worker pool
(:mod:`tabletop.server.workers`) one at a time, so the event loop never searches, a
computer seat elsewhere waits for at most one position, and a cancel takes effect
after the position being searched.  Progress lives in this process (the page polls
it); the finished analysis is written to the ``analyses`` table with the moves it
covers, so a second visit reads it at once and a game that moved on since is
analysed afresh.

Each position gets an evaluation from Black's side in the game's unit: Reversi in
discs (the engine's disc difference), Gomoku and Tic-tac-toe as Black's chance to
win in percent.  Each move is marked by how much it lost against the engine's best
move, read off those same evaluations (:data:`THRESHOLDS`, documented in
``docs/analysis.md``), so the marks and the graph never disagree.

This module decides no rule and reads no socket; its pool job gets plain values.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.server.errors import RoomError
from tabletop.server.rooms import Room, RoomHub
from tabletop.server.store import RoomRecord, SqlStore, analyses_table

__all__ = ["THRESHOLDS", "Analyses", "GameAnalysis", "classify", "position_job", "win_chance"]

log = logging.getLogger("tabletop.server")

# The loss that makes a move an inaccuracy, a mistake or a blunder, largest first:
# Reversi in discs given away, the line games in points of the mover's chance to win.
THRESHOLDS: dict[str, tuple[tuple[str, float], ...]] = {
    "discs": (("blunder", 12.0), ("mistake", 6.0), ("inaccuracy", 3.0)),
    "win chance": (("blunder", 30.0), ("mistake", 20.0), ("inaccuracy", 10.0)),
}
DECIDED = 10000.0  # engines report a proven win or loss as a score this large or larger
# Gomoku's engine scores a position as the log-odds of a win times its evaluation's SCALE
# (a logistic model fitted to self-play results); the logistic curve turns that back into a chance.
# It is tabletop.ai.gomoku.evaluation.SCALE (a test holds them equal), written out so that the
# server process does not import the engine and numba: its workers run the engines.
GOMOKU_SCALE = 1500.0
SECONDS = {"reversi": 0.1, "gomoku": 0.1, "tictactoe": 0.01}  # engine time per position
MAX_RUNNING = 4  # analyses at once on one server process; more wait for a free turn (429)
KEEP = 64  # ended analyses remembered in memory


def unit_of(game: str) -> str:
    return "discs" if game == "reversi" else "win chance"


def win_chance(game: str, score: float) -> float:
    """The mover's chance to win, in percent, from an engine score of the mover's side."""
    if abs(score) >= DECIDED or (game == "tictactoe" and score != 0):
        return 100.0 if score > 0 else 0.0
    if game == "tictactoe":
        return 50.0  # solved exactly: a draw with best play
    return 100.0 / (1.0 + math.exp(-score / GOMOKU_SCALE))


def mover_value(game: str, score: float) -> float:
    """An engine score of the mover's side in the game's unit (discs, or percent to win)."""
    return score if game == "reversi" else win_chance(game, score)


def classify(unit: str, loss: float | None) -> str | None:
    """The mark a move that lost ``loss`` earns (None: a good move or no score)."""
    if loss is None:
        return None
    for mark, least in THRESHOLDS[unit]:
        if loss >= least:
            return mark
    return None


def position_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], seconds: float
) -> dict[str, Any]:
    """The engine's view of the position after ``moves`` (run in the pool): the side to
    move, the result once the game is over, else the scores per move, best first, from
    the mover's side, the principal variation and the depth (``analysis`` is None where
    no engine plays the board)."""
    from tabletop.ai import Limit, analyse
    from tabletop.games import new_board

    board = new_board(game, {k: v for k, v in options.items() if k != "opening"}, position)
    for text in moves:
        board.push(board.parse_move(text))
    turn = "black" if board.turn.label == "black" else "white"
    if board.is_game_over():
        outcome = board.outcome()
        score = list(outcome.score) if outcome is not None else [0, 0]
        winner = None if outcome is None or outcome.winner is None else outcome.winner.label
        return {"turn": turn, "over": {"winner": winner, "score": score}, "analysis": None}
    try:
        found = analyse(board, Limit(seconds=seconds)).to_dict()
    except (ValueError, NotImplementedError):
        found = None
    return {"turn": turn, "over": None, "analysis": found}


def _black_value(game: str, turn: str, value: float) -> float:
    """A value of the mover's side seen from Black's."""
    if turn == "black":
        return value
    return -value if game == "reversi" else 100.0 - value


def _final_value(game: str, over: dict[str, Any]) -> float:
    """The finished game's value from Black's side: the disc difference, or 100/50/0."""
    if game == "reversi":
        black, white = over["score"]
        return float(black - white)
    return {"black": 100.0, "white": 0.0, None: 50.0}[over["winner"]]


def summarise(game: str, moves: list[str], views: list[dict[str, Any]]) -> dict[str, Any]:
    """The analysis of a game from the engine's view of each position (``views[i]``: after
    ``moves[:i]``): an evaluation per position from Black's side with the best move and
    line, and per move the loss against the best move and its mark.

    The evaluations are the numbers the graph plots, and a move's loss is read off them
    (:func:`_loss`): what the graph drops from the mover's side.  A position whose move
    played is the engine's own best takes the evaluation of the position after it (that
    search sees one move further down the same line), so the engine's choice loses nothing
    and the graph stays level on it."""
    unit = unit_of(game)
    positions: list[dict[str, Any]] = []
    for ply, view in enumerate(views):
        found = view["analysis"]
        entry: dict[str, Any] = {"ply": ply, "eval": None, "best": None, "line": [], "depth": 0}
        if view["over"] is not None:
            entry["eval"] = _final_value(game, view["over"])
        elif found and found.get("scores"):
            # the best move is the principal variation's first where the engine scored it
            # (among equal scores it is the one the engine would play), else the top score
            scored = {s["move"]: float(s["score"]) for s in found["scores"]}
            line = [str(m) for m in found.get("pv") or []]
            best = line[0] if line and line[0] in scored else found["scores"][0]["move"]
            entry["eval"] = _black_value(game, view["turn"], mover_value(game, scored[best]))
            entry["best"] = best
            entry["line"] = line if line and line[0] == best else [best]
            entry["depth"] = int(found.get("depth") or 0)
        positions.append(entry)
    # from the end back, so a run of the engine's choices carries one value
    for ply in range(len(moves), 0, -1):
        before, after = positions[ply - 1], positions[ply]
        if moves[ply - 1] == before["best"] and after["eval"] is not None:
            before["eval"] = after["eval"]
    played: list[dict[str, Any]] = []
    for ply, move in enumerate(moves, start=1):
        turn = views[ply - 1]["turn"]
        loss = _loss(game, turn, positions[ply - 1], positions[ply])
        played.append({"ply": ply, "move": move, "color": turn, "loss": loss, "mark": classify(unit, loss)})
    return {"unit": unit, "positions": positions, "moves": played}


def _loss(game: str, turn: str, before: dict[str, Any], after: dict[str, Any]) -> float | None:
    """What a move lost, in the game's unit from the mover's side: the evaluation before it
    (the value of the best move) less the evaluation after it, never below 0 (a move the
    later search finds better than the engine's choice gave nothing away)."""
    if before["eval"] is None or before["best"] is None or after["eval"] is None:
        return None
    best = _black_value(game, turn, before["eval"])  # back to the mover's side
    value = _black_value(game, turn, after["eval"])
    return round(max(0.0, best - value), 2)


@dataclass
class GameAnalysis:
    """One room's analysis: running, done, cancelled or failed."""

    room_id: str
    moves: list[str]
    status: str = "running"
    done: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def view(self) -> dict[str, Any]:
        """The answer of ``GET /api/rooms/{id}/analysis``."""
        body: dict[str, Any] = {
            "status": self.status,
            "done": self.done,
            "total": len(self.moves) + 1,
            "analysed_moves": self.moves,
            "thresholds": {unit: dict(marks) for unit, marks in THRESHOLDS.items()},
        }
        if self.result is not None:
            body.update(self.result)
        if self.error is not None:
            body["error"] = self.error
        return body


def _save(conn: Connection, room_id: str, moves: str, result: str, created: float) -> None:
    """Replace the room's stored analysis (run by the store's writer)."""
    conn.execute(analyses_table.delete().where(analyses_table.c.room_id == room_id))
    conn.execute(analyses_table.insert().values(room_id=room_id, moves=moves, result=result, created=created))


class Analyses:
    """The analyses this server process runs, and the stored ones it reads."""

    def __init__(self) -> None:
        self.running: dict[str, GameAnalysis] = {}
        self.last: dict[str, GameAnalysis] = {}  # the latest ended one per room, oldest first

    async def stored(self, store: object, room_id: str, moves: list[str]) -> GameAnalysis | None:
        """The stored analysis of ``moves`` (None if none, or it covers other moves)."""
        if not isinstance(store, SqlStore):
            return None

        def read() -> tuple[str, str] | None:
            query = sa.select(analyses_table.c.moves, analyses_table.c.result).where(
                analyses_table.c.room_id == room_id
            )
            with store.engine.connect() as conn:
                row = conn.execute(query).first()
            return None if row is None else (row[0], row[1])

        row = await store.read(read)
        if row is None or row[0] != " ".join(moves):
            return None
        return GameAnalysis(room_id, moves, "done", len(moves) + 1, json.loads(row[1]))

    async def get(self, hub: RoomHub, room: Room) -> GameAnalysis:
        """The room's analysis as it stands: running, stored, or ``none``."""
        moves = [str(m) for m in room.match.board.move_stack]
        running = self.running.get(room.id)
        if running is not None and running.moves == moves:
            return running
        stored = await self.stored(hub.store, room.id, moves)
        if stored is not None:
            return stored
        last = self.last.get(room.id)
        if last is not None and last.moves == moves:
            return last
        return GameAnalysis(room.id, moves, "none")

    async def start(self, hub: RoomHub, room: Room) -> GameAnalysis:
        """Start analysing the room's game (or give the one running or stored).

        409 ``game_in_progress`` for an online game still being played (no engine help
        between two people), 400 ``no_moves`` for a game without a move, 429 ``busy``
        when :data:`MAX_RUNNING` analyses already run here."""
        record = room.record
        if room.match.outcome() is None and record.mode != "local":
            raise RoomError("game_in_progress", "an online game can be analysed once it is over", 409)
        current = await self.get(hub, room)
        if current.status in ("running", "done"):
            return current
        if not current.moves:
            raise RoomError("no_moves", "the game has no move to analyse yet", 400)
        stale = self.running.pop(room.id, None)  # of moves the game has since taken back or added to
        if stale is not None and stale.task is not None:
            stale.task.cancel()  # else it could store its result over this one's
        if len(self.running) >= MAX_RUNNING:
            raise RoomError("busy", "the server is analysing other games; try again in a minute", 429)
        analysis = GameAnalysis(room.id, current.moves)
        self.running[room.id] = analysis
        analysis.task = hub.spawn(self._run(hub, record, analysis))
        return analysis

    async def cancel(self, hub: RoomHub, room: Room) -> GameAnalysis:
        """Stop the room's running analysis at once (the worker finishes the position it
        is searching; that answer is dropped)."""
        running = self.running.pop(room.id, None)
        if running is not None and running.task is not None:
            running.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running.task
            running.status = "cancelled"
        return await self.get(hub, room)

    def _keep(self, analysis: GameAnalysis) -> None:
        """Remember a room's latest analysis that ended (a done one serves a store that
        keeps none); only the newest :data:`KEEP` rooms, the store has the rest."""
        self.last.pop(analysis.room_id, None)
        self.last[analysis.room_id] = analysis
        while len(self.last) > KEEP:
            del self.last[next(iter(self.last))]

    async def _run(self, hub: RoomHub, record: RoomRecord, analysis: GameAnalysis) -> None:
        game = record.game
        seconds = SECONDS.get(game, 0.1)
        views: list[dict[str, Any]] = []
        try:
            for ply in range(len(analysis.moves) + 1):
                views.append(
                    await hub.pool.run(
                        position_job,
                        game,
                        record.options,
                        record.position,
                        analysis.moves[:ply],
                        seconds,
                        label=f"room {analysis.room_id}: the game's analysis at move {ply + 1}",
                    )
                )
                analysis.done = ply + 1
            result = summarise(game, analysis.moves, views)
            if isinstance(hub.store, SqlStore):
                await hub.store.call(
                    _save, analysis.room_id, " ".join(analysis.moves), json.dumps(result), time.time()
                )
            analysis.result = result
            analysis.status = "done"
        except asyncio.CancelledError:
            analysis.status = "cancelled"
            raise
        except Exception as exc:  # noqa: BLE001 - a failing engine or store ends this analysis, not the server
            log.warning("room %s: analysis failed: %s", analysis.room_id, exc)
            analysis.status = "failed"
            analysis.error = f"the analysis failed: {exc}"
        finally:
            self._keep(analysis)
            if self.running.get(analysis.room_id) is analysis:
                del self.running[analysis.room_id]
