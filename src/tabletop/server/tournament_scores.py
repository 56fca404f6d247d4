"""How a tournament scores a game, and the write of a tournament game's end.

The rules are pure functions at the top: :func:`arena_points` (Lichess's arena: 2 a win, 1 a draw,
0 a loss, doubled while on a streak of two wins or more) and :func:`swiss_points` (1, ½, 0).
:func:`score_game` runs inside the transaction that stores a game's last action
(:func:`~.results.record_result` calls it), so a game's end and its tournament points are committed
together or not at all, whichever server process holds the room: it writes the result on the
game's row, adds the points to both players' standings, frees both players for the next pairing and
raises the tournament's version.  The tick of :mod:`.tournaments` then announces the end (the row's
``announced`` flag, claimed once) and pairs the players again.

This module knows no room, socket or HTTP: only the tables of :mod:`.store`.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.server.store import tournament_games_table, tournament_players_table, tournaments_table

__all__ = ["STREAK", "arena_points", "on_fire", "score_game", "swiss_points"]

STREAK = 2  # wins in a row after which an arena player is on a streak ("fire")


def on_fire(streak: int) -> bool:
    """Whether a player with ``streak`` wins in a row scores double in their next game.

    >>> on_fire(1), on_fire(2)
    (False, True)
    """
    return streak >= STREAK


def arena_points(score: float, streak: int) -> tuple[int, int]:
    """The arena points of a game scored ``score`` (1, 0.5, 0) by a player who came to it with
    ``streak`` wins in a row, and their streak after it.

    >>> arena_points(1, 0), arena_points(1, 1), arena_points(1, 2)  # the third win in a row counts 4
    ((2, 1), (2, 2), (4, 3))
    >>> arena_points(0.5, 2), arena_points(0, 5)  # a draw on a streak counts 2 and ends it
    ((2, 0), (0, 0))
    """
    base = {1.0: 2, 0.5: 1}.get(float(score), 0)
    points = base * 2 if on_fire(streak) else base
    return points, streak + 1 if score == 1 else 0


def swiss_points(score: float) -> float:
    """A swiss game's points: the game's score itself (1, ½, 0)."""
    return float(score)


def _lock(conn: Connection, tournament_id: str) -> sa.engine.RowMapping | None:
    """The tournament's row, locked for the transaction on PostgreSQL (SQLite's writer is one at a time)."""
    query = tournaments_table.select().where(tournaments_table.c.id == tournament_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).mappings().first()


def score_game(conn: Connection, room_id: str, black_score: float | None, at: float) -> None:
    """Write the end of ``room_id`` to its tournament, when it is a tournament game that has not
    ended yet (inside the caller's transaction).  ``black_score``: the stored Black row's score, or
    None for a game with no result (aborted, or ended before both sides moved), which gives no
    points, counts as no game and leaves the streaks alone (swiss: 0 to both, the round goes on)."""
    g = tournament_games_table.c
    game = conn.execute(tournament_games_table.select().where(g.room_id == room_id)).mappings().first()
    if game is None or game["ended"] is not None:
        return  # not a tournament game, or its end already written (a replayed write)
    tournament = _lock(conn, game["tournament_id"])
    if tournament is None:
        return
    p = tournament_players_table.c
    rows = {
        r["player_id"]: r
        for r in conn.execute(tournament_players_table.select().where(
            p.tournament_id == game["tournament_id"], p.player_id.in_([game["black"], game["white"]]))).mappings()
    }
    points: dict[str, float | None] = {}
    for player_id, score in ((game["black"], black_score), (game["white"], None if black_score is None
                                                                            else 1 - black_score)):
        row = rows.get(player_id)
        if row is None:
            continue
        values: dict[str, object] = {"free_since": at}
        if row["room_id"] == room_id:
            values["room_id"] = None  # free for the next pairing
        sheet = json.loads(row["sheet"])
        if tournament["kind"] == "arena":
            if score is None:
                points[player_id] = None
            else:
                gained, streak = arena_points(score, row["streak"])
                points[player_id] = gained
                sheet.append(gained)
                values.update(score=row["score"] + gained, streak=streak, games=row["games"] + 1,
                              wins=row["wins"] + (score == 1), draws=row["draws"] + (score == 0.5),
                              losses=row["losses"] + (score == 0))
        else:
            gained_swiss = 0.0 if score is None else swiss_points(score)
            points[player_id] = gained_swiss
            sheet.append({1.0: "1", 0.5: "½"}.get(gained_swiss, "0"))
            values.update(score=row["score"] + gained_swiss, games=row["games"] + (score is not None),
                          wins=row["wins"] + (score == 1), draws=row["draws"] + (score == 0.5),
                          losses=row["losses"] + (score == 0),
                          streak=row["streak"] + 1 if score == 1 else 0)
        values["sheet"] = json.dumps(sheet)
        conn.execute(tournament_players_table.update().where(
            p.tournament_id == game["tournament_id"], p.player_id == player_id).values(**values))
    conn.execute(tournament_games_table.update().where(g.id == game["id"]).values(
        black_score=black_score, ended=at, black_points=points.get(game["black"]),
        white_points=points.get(game["white"])))
    conn.execute(tournaments_table.update().where(tournaments_table.c.id == game["tournament_id"]).values(
        version=tournaments_table.c.version + 1))
