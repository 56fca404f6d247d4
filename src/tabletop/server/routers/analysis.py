"""A room's game record and the engine's view of games: ``GET /api/rooms/{id}/record``,
``GET /api/rooms/{id}/openings`` (the named openings its moves pass through),
``GET /api/rooms/{id}/evaluation``, ``POST /api/analyse`` (one position) and the analysis
of a whole game, ``/api/rooms/{id}/analysis`` (POST starts it, GET reads its progress or
result, ``POST .../analysis/cancel`` cancels it; :mod:`tabletop.server.analyses` runs and stores it).

Searching runs in the server's process pool (:mod:`tabletop.server.workers`),
never on the event loop; an engine that fails is a 503 with a code, never a
500.  Records are written by :mod:`tabletop.server.records`.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from tabletop.games.opening_names import longest_opening, opening_names
from tabletop.server.analyses import Analyses
from tabletop.server.models import AnalyseRequest, Analysis, ErrorBody, Evaluation, RecordFormat
from tabletop.server.records import MEDIA, record_text
from tabletop.server.rooms import Room, RoomError, RoomHub
from tabletop.server.routers.deps import Hub, KnownRoom
from tabletop.server.routers.responses import errors
from tabletop.server.workers import AnalysisUnavailable, analyse_job, evaluate_job

__all__ = ["Evaluations", "GameAnalysisView", "router"]

log = logging.getLogger("tabletop.server")

router = APIRouter(prefix="/api", tags=["records and analysis"])


class Evaluations:
    """Scores per ply, by room and moves: a game's graph is asked for again and again
    while nobody moves.  Bounded by dropping everything past ``limit`` games
    (an evaluation is cheap to redo)."""

    def __init__(self, limit: int = 1000) -> None:
        self.limit = limit
        self.scores: dict[tuple[str, tuple[str, ...]], list[float | None]] = {}

    async def of(self, room: Room, hub: RoomHub) -> list[float | None]:
        moves = tuple(str(m) for m in room.match.board.move_stack)
        key = (room.id, moves)
        if key not in self.scores:
            if len(self.scores) >= self.limit:
                self.scores.clear()
            record = room.record
            seconds = 0.01 if record.game == "tictactoe" else 0.05
            self.scores[key] = await hub.pool.run(
                evaluate_job,
                record.game,
                record.options,
                record.position,
                list(moves),
                seconds,
                label=f"room {room.id}: the evaluation graph",
            )
        return self.scores[key]


def get_evaluations(request: Request) -> Evaluations:
    evaluations: Evaluations = request.app.state.evaluations
    return evaluations


TEXT = {"schema": {"type": "string"}}
RECORD_ANSWER = {
    "description": "The record as text (SGF as application/x-go-sgf)",
    "content": {"text/plain": TEXT, **{media: TEXT for media in MEDIA.values()}},
    "headers": {
        "content-disposition": {"description": "attachment; filename=ROOM.FORMAT", "schema": TEXT["schema"]}
    },
}


@router.get(
    "/rooms/{room_id}/record",
    operation_id="room_record",
    response_class=PlainTextResponse,
    responses={200: RECORD_ANSWER, **errors(400, 404, 422, json_route=False)},
)
async def room_record(room: KnownRoom, format: RecordFormat = "transcript") -> PlainTextResponse:
    """The game record as SGF, GGF, OBF, PSQ or a transcript; 400 ``bad_format`` for a
    format that does not fit the room's game."""
    await room.ensure_players()  # their names and ratings go in the record
    try:
        text, media = record_text(room, format)
    except ValueError as exc:
        raise RoomError("bad_format", str(exc), 400) from None
    disposition = f'attachment; filename="{room.id}.{format}"'
    return PlainTextResponse(text, media_type=media, headers={"content-disposition": disposition})


class NamedOpeningView(BaseModel):
    """A named opening a game reached: its name, the number of moves of its line (the name holds
    from there on), the line itself, its family and, for renju, its number and kanji."""

    name: str
    ply: int
    line: list[str]
    family: Literal["othello", "renju"]
    code: str | None = None
    kanji: str | None = None


class RoomOpenings(BaseModel):
    """The named openings of a room's game, shortest first, for the moves looked at (the room's
    moves up to ``longest``, the length of the longest named line: later moves change no name)."""

    openings: list[NamedOpeningView]
    moves: list[str]
    longest: int


@router.get(
    "/rooms/{room_id}/openings",
    operation_id="room_openings",
    response_model=RoomOpenings,
    responses=errors(404, 422),
)
async def room_openings(room: KnownRoom) -> RoomOpenings:
    """The standard Othello openings and renju openings the room's moves pass through
    (:mod:`tabletop.games.opening_names`); empty for a game or variant without named openings."""
    record = room.record
    longest = longest_opening(record.game, record.options, record.position)
    moves = [str(m) for m in room.match.board.move_stack][:longest]
    named = opening_names(record.game, moves, record.options, record.position)
    return RoomOpenings(
        openings=[NamedOpeningView.model_validate(o.to_dict()) for o in named], moves=moves, longest=longest
    )


@router.get(
    "/rooms/{room_id}/evaluation",
    operation_id="room_evaluation",
    response_model=Evaluation,
    responses=errors(404, 422, 503),
)
async def room_evaluation(
    room: KnownRoom, hub: Hub, evaluations: Annotated[Evaluations, Depends(get_evaluations)]
) -> Evaluation:
    """A score per ply from Black's side (computed in the pool, cached)."""
    try:
        return Evaluation(scores=await evaluations.of(room, hub))
    except Exception as exc:  # noqa: BLE001 - a failing engine is a clear error, never a 500
        log.warning("room %s: evaluation failed: %s", room.id, exc)
        raise RoomError("engine_failed", f"the evaluation failed: {exc}", 503) from None


@router.post("/analyse", operation_id="analyse", response_model=Analysis, responses=errors(400, 422, 503))
async def analyse(body: AnalyseRequest, hub: Hub) -> dict[str, Any]:
    """The engine's analysis of a position (in the pool): 400 ``bad_position`` for a
    position or move that is not the game's, 422 ``no_analysis`` for a board no
    engine plays, 503 ``engine_failed``."""
    try:
        result: dict[str, Any] = await hub.pool.run(
            analyse_job,
            body.game,
            body.options,
            body.position,
            body.moves,
            body.seconds,
            label="a position's analysis (POST /api/analyse)",
        )
    except AnalysisUnavailable as exc:
        raise RoomError("no_analysis", str(exc), 422) from None
    except ValueError as exc:
        raise RoomError("bad_position", str(exc), 400) from None
    except Exception as exc:  # noqa: BLE001 - a failing engine is a clear error, never a 500
        log.warning("analysis failed: %s", exc)
        raise RoomError("engine_failed", f"the analysis failed: {exc}", 503) from None
    return result


# -- the analysis of a whole game ------------------------------------------------------------------
class PositionView(BaseModel):
    ply: int = Field(description="the position after this many moves (0: the start)")
    eval: float | None = Field(
        description="from Black's side: Reversi in discs, the line games as Black's chance to win in percent; "
        "null where the engine gave none"
    )
    best: str | None = Field(description="the engine's best move here (null once the game is over)")
    line: list[str] = Field(description="the engine's principal variation, the best move first")
    depth: int


class MoveView(BaseModel):
    ply: int
    move: str
    color: Literal["black", "white"]
    loss: float | None = Field(
        description="what the move gave away against the best move, in the game's unit"
    )
    mark: Literal["inaccuracy", "mistake", "blunder"] | None


class GameAnalysisView(BaseModel):
    """A room's whole-game analysis: its progress while it runs, its result once done."""

    status: Literal["none", "running", "done", "cancelled", "failed"]
    done: int = Field(description="positions analysed so far")
    total: int = Field(description="positions to analyse (the moves and the start)")
    analysed_moves: list[str]
    thresholds: dict[str, dict[str, float]] = Field(
        description="per unit, the least loss that makes a move each mark (docs/analysis.md)"
    )
    unit: Literal["discs", "win chance"] | None = None
    positions: list[PositionView] = Field(default_factory=list)
    moves: list[MoveView] = Field(default_factory=list)
    error: str | None = None


def get_analyses(request: Request) -> Analyses:
    analyses: Analyses = request.app.state.analyses
    return analyses


GameAnalyses = Annotated[Analyses, Depends(get_analyses)]


def _refusals(**why: str) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries with :class:`ErrorBody`, described for these routes."""
    return {int(status[1:]): {"model": ErrorBody, "description": text} for status, text in why.items()}


NOT_FOUND = "There is no such room"
BAD_SHAPE = "A parameter does not have the documented shape"


@router.get(
    "/rooms/{room_id}/analysis",
    operation_id="room_analysis",
    response_model=GameAnalysisView,
    responses=_refusals(_404=NOT_FOUND, _422=BAD_SHAPE),
)
async def room_analysis(room: KnownRoom, hub: Hub, analyses: GameAnalyses) -> dict[str, Any]:
    """The analysis of the room's game as it stands: ``none``, ``running`` (with its
    progress), ``done`` (stored with the game), ``cancelled`` or ``failed``."""
    return (await analyses.get(hub, room)).view()


@router.post(
    "/rooms/{room_id}/analysis",
    operation_id="start_room_analysis",
    status_code=202,
    response_model=GameAnalysisView,
    responses=_refusals(
        _400="The game has no move yet (no_moves)",
        _404=NOT_FOUND,
        _409="The game is an online game still being played (game_in_progress)",
        _422=BAD_SHAPE,
        _429="This server already analyses as many games as it may; try again later (busy)",
    ),
)
async def start_room_analysis(room: KnownRoom, hub: Hub, analyses: GameAnalyses) -> dict[str, Any]:
    """Start the engine on every position of the room's game, in the worker pool; the
    answer is the analysis (running, or already done for these moves).  A finished game
    and a game at one screen can be analysed; an online game once it is over."""
    return (await analyses.start(hub, room)).view()


@router.post(
    "/rooms/{room_id}/analysis/cancel",
    operation_id="cancel_room_analysis",
    response_model=GameAnalysisView,
    responses=_refusals(_404=NOT_FOUND, _422=BAD_SHAPE),
)
async def cancel_room_analysis(room: KnownRoom, hub: Hub, analyses: GameAnalyses) -> dict[str, Any]:
    """Stop the room's running analysis (once the position being searched is done);
    nothing stored changes."""
    return (await analyses.cancel(hub, room)).view()
