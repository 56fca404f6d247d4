"""A room's game record and the engine's view of games: ``GET /api/rooms/{id}/record``,
``GET /api/rooms/{id}/evaluation`` and ``POST /api/analyse``.

Searching runs in the server's process pool (:mod:`tabletop.server.workers`),
never on the event loop; an engine that fails is a 503 with a code, never a
500.  Records are written by :mod:`tabletop.server.records`.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse

from tabletop.server.models import AnalyseRequest, Analysis, Evaluation, RecordFormat
from tabletop.server.records import MEDIA, record_text
from tabletop.server.rooms import Room, RoomError, RoomHub
from tabletop.server.routers.deps import Hub, KnownRoom
from tabletop.server.routers.responses import errors
from tabletop.server.workers import AnalysisUnavailable, analyse_job, evaluate_job

__all__ = ["Evaluations", "router"]

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
                evaluate_job, record.game, record.options, record.position, list(moves), seconds
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
    try:
        text, media = record_text(room, format)
    except ValueError as exc:
        raise RoomError("bad_format", str(exc), 400) from None
    disposition = f'attachment; filename="{room.id}.{format}"'
    return PlainTextResponse(text, media_type=media, headers={"content-disposition": disposition})


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
            analyse_job, body.game, body.options, body.position, body.moves, body.seconds
        )
    except AnalysisUnavailable as exc:
        raise RoomError("no_analysis", str(exc), 422) from None
    except ValueError as exc:
        raise RoomError("bad_position", str(exc), 400) from None
    except Exception as exc:  # noqa: BLE001 - a failing engine is a clear error, never a 500
        log.warning("analysis failed: %s", exc)
        raise RoomError("engine_failed", f"the analysis failed: {exc}", 503) from None
    return result
