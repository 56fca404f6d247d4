"""Opening a record: ``POST /api/records/import`` reads a pasted or uploaded record.

The answer holds every game of the record (game, variant, start position,
moves, tags, result) for the page to review; going on from one of its
positions is a new room (``POST /api/rooms`` with the start position and the
moves up to that point).  Reading is :func:`tabletop.server.records.import_records`;
a malformed record is a 400 ``bad_record`` whose message names the line and the
column.  This module reads text only: it creates no room and stores nothing.
"""

from __future__ import annotations

from fastapi import APIRouter

from tabletop.server.models import ImportedGame, ImportedRecords, ImportRecord
from tabletop.server.records import guess_format, import_records
from tabletop.server.rooms import RoomError
from tabletop.server.routers.responses import errors

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["records and analysis"])

NAMES = {
    "sgf": "SGF record",
    "ggf": "GGF record",
    "psq": "PSQ record",
    "obf": "OBF file",
    "transcript": "transcript",
}


@router.post(
    "/records/import",
    operation_id="import_record",
    response_model=ImportedRecords,
    responses=errors(400, 422),
)
async def import_record(body: ImportRecord) -> ImportedRecords:
    """The games of an SGF, GGF, PSQ, OBF or transcript record; 400 ``bad_record`` (with the
    line and column) for text the format's reader refuses."""
    fmt = body.format or guess_format(body.text, body.filename)
    try:
        games = import_records(body.text, fmt, body.game, dict(body.options))
    except ValueError as exc:
        raise RoomError("bad_record", f"cannot read this {NAMES[fmt]}: {exc}", 400) from None
    answer = []
    for record in games:
        answer.append(
            ImportedGame(
                game=record.game,
                options=record.options,
                start_position=record.position,
                position=record.board().to_text(),
                moves=record.moves,
                tags=record.tags,
                result=record.result,
            )
        )
    return ImportedRecords(format=fmt, games=answer)  # type: ignore[arg-type]  # one of RecordFormat's names
