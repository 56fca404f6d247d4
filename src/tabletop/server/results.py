"""A finished game's result for its players, written in the transaction that stores its last action.

A room made from a seek has a ``room_players`` row (who sits in each stored seat row, the rating
pool, rated or not).  When its game ends, :func:`result_call` gives the room a
:class:`~tabletop.server.store.Call` for :meth:`Store.append`: inside the same transaction as the
game's last action it records the score and, for a rated game that both sides moved in, reads both
players' ratings in the pool, applies Glicko-2 (:func:`tabletop.ratings.rate_game`) and writes the
new ratings and their history.  A crash therefore never leaves a result without its rating change or
the reverse; on PostgreSQL the rating rows are read ``FOR UPDATE``, so two games of one player
ending at once on two server processes are rated one after the other.

A tournament's game also gets its tournament points in that transaction
(:func:`~.tournament_scores.score_game`).

A room without players (every game before accounts, every guest game) gets nothing written.
:func:`read_players` reads the players' names and ratings back for the room's state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.games.core import BLACK, WHITE
from tabletop.ratings import MAX_DEVIATION, Rating, rate_game
from tabletop.server.store import (
    Call,
    bots_table,
    players_table,
    rating_history_table,
    ratings_table,
    room_players_table,
    tournament_games_table,
    tournaments_table,
)
from tabletop.server.tournament_scores import score_game

if TYPE_CHECKING:
    from tabletop.match import Match
    from tabletop.server.seats import Seats

__all__ = ["Standing", "read_players", "read_rating", "record_result", "result_call"]


# Built once: every game's end runs the first (a guest game's too, which finds no row), and a
# statement built per call costs the writer more than the row it reads.
_ROOM_PLAYERS = room_players_table.select().where(room_players_table.c.room_id == sa.bindparam("room_id_"))
_END_ROOM_PLAYERS = room_players_table.update().where(room_players_table.c.room_id == sa.bindparam("room_id_"))


def result_call(room_id: str, match: Match, seats: Seats) -> Call | None:
    """What to write with the last action of ``match`` (None while it goes on)."""
    outcome = match.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        black_row_score = 0.5
    else:
        winner_row = seats.row_label("black" if outcome.winner is BLACK else "white")
        black_row_score = 1.0 if winner_row == "black" else 0.0
    # a game ended before both sides moved (an opening's stones and choice are moves) has no
    # result, nor has one called off (aborted, also when a player left it): never rated
    scored = match.has_moved(BLACK) and match.has_moved(WHITE) and outcome.reason != "aborted"
    return Call(record_result, (room_id, black_row_score, scored, time.time()))


@dataclass(frozen=True)
class Standing:
    """A player's rating in one pool and the rated games behind it (``stored``: a row exists)."""

    rating: Rating
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    stored: bool = False


def read_rating(conn: Connection, player_id: str, pool: str, *, lock: bool = False) -> Standing:
    """``player_id``'s standing in ``pool`` (a new rating when there is none)."""
    query = ratings_table.select().where(ratings_table.c.player_id == player_id, ratings_table.c.pool == pool)
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    if row is None:
        return Standing(Rating())
    rating = Rating(row["rating"], row["deviation"], row["volatility"])
    return Standing(rating, row["games"], row["wins"], row["draws"], row["losses"], stored=True)


def record_result(conn: Connection, room_id: str, black_score: float, both_moved: bool, at: float) -> None:
    """Store the result of ``room_id`` for its players and, if rated and both sides moved, the
    ratings' change (inside the caller's transaction).  ``both_moved`` False: the game has no
    result (ended before both sides moved, or aborted), stored as none and never rated."""
    row = conn.execute(_ROOM_PLAYERS, {"room_id_": room_id}).mappings().first()
    if row is None or row["ended"] is not None:
        return  # a guest game, or a result already stored (a replayed write)
    conn.execute(_END_ROOM_PLAYERS, {"room_id_": room_id, "black_score": black_score if both_moved else None, "ended": at})
    score_game(conn, room_id, black_score if both_moved else None, at)  # a tournament game's points, if it is one
    if not row["rated"] or not both_moved:
        return  # casual, or aborted before each side had moved: never rated
    pool = row["pool"]
    black, white = (read_rating(conn, row[label], pool, lock=True) for label in ("black", "white"))
    new_black, new_white = rate_game(black.rating, white.rating, black_score)
    for player_id, old, new, score in (
        (row["black"], black, new_black, black_score), (row["white"], white, new_white, 1 - black_score)
    ):
        values = {
            "rating": new.rating, "deviation": new.deviation, "volatility": new.volatility,
            "games": old.games + 1, "wins": old.wins + (score == 1), "draws": old.draws + (score == 0.5),
            "losses": old.losses + (score == 0),
        }
        if old.stored:
            conn.execute(ratings_table.update().where(
                ratings_table.c.player_id == player_id, ratings_table.c.pool == pool).values(**values))
        else:
            conn.execute(ratings_table.insert().values(player_id=player_id, pool=pool, **values))
        conn.execute(rating_history_table.insert().values(
            room_id=room_id, player_id=player_id, pool=pool, at=at, rating=new.rating,
            deviation=new.deviation, change=new.rating - old.rating.rating))


def seat_rematch_players(conn: Connection, old_id: str, new_id: str, black_row: str, white_row: str) -> bool:
    """Give the rematch ``new_id`` of a room with players the same players, colours swapped: its
    Black is who sat in ``old_id``'s seat row ``black_row`` (the one that played White), with the
    same pool and rated flag, so the rematch shows their names and counts as the first game did.
    False when ``old_id`` had no players (a guest game)."""
    row = conn.execute(_ROOM_PLAYERS, {"room_id_": old_id}).mappings().first()
    if row is None:
        return False
    conn.execute(room_players_table.insert().values(
        room_id=new_id, black=row[black_row], white=row[white_row], pool=row["pool"], rated=row["rated"]))
    return True


def read_players(conn: Connection, room_id: str) -> dict[str, Any] | None:
    """The players of ``room_id`` as its game screen shows them (None for a room without players):
    ``{"pool", "rated", "tournament", "black": ..., "white": ...}`` by stored seat row (``tournament``:
    ``{"id", "name"}`` of a tournament's game, else None), each ``{"name", "rating",
    "display", "after", "change"}``.  ``rating`` and ``display`` are the rating the player brought to
    the game (their rating in the pool now, until the game's rating change is stored); ``after`` (the
    new rating's display) and ``change`` (the rounded ratings' difference, so that the three numbers
    agree on screen) stay None until then.  The rating before a rated game is the stored one less its
    change, with the deviation of the player's previous rated game in the pool (a first game: 350),
    since each rated game is the only change to a rating."""
    row = conn.execute(_ROOM_PLAYERS, {"room_id_": room_id}).mappings().first()
    if row is None:
        return None
    found: dict[str, Any] = {"pool": row["pool"], "rated": bool(row["rated"]), "tournament": None}
    tournament = conn.execute(
        sa.select(tournaments_table.c.id, tournaments_table.c.name)
        .join(tournament_games_table, tournament_games_table.c.tournament_id == tournaments_table.c.id)
        .where(tournament_games_table.c.room_id == room_id)).first()
    if tournament is not None:
        found["tournament"] = {"id": tournament[0], "name": tournament[1]}
    for label in ("black", "white"):
        player_id = row[label]
        name = conn.execute(sa.select(players_table.c.name).where(players_table.c.id == player_id)).scalar_one()
        bot = conn.execute(sa.select(bots_table.c.player_id).where(bots_table.c.player_id == player_id)).first()
        history = rating_history_table.c
        changed = conn.execute(rating_history_table.select().where(
            history.room_id == room_id, history.player_id == player_id)).mappings().first()
        after: Rating | None = None
        if changed is None:
            before = read_rating(conn, player_id, row["pool"]).rating
        else:
            after = Rating(changed["rating"], changed["deviation"])
            previous = conn.execute(
                sa.select(history.deviation)
                .where(history.player_id == player_id, history.pool == row["pool"], history.at < changed["at"])
                .order_by(history.at.desc()).limit(1)
            ).scalar()
            before = Rating(changed["rating"] - changed["change"], MAX_DEVIATION if previous is None else previous)
        found[label] = {
            "name": name, "bot": bot is not None, "rating": round(before.rating), "display": before.display(),
            "after": None if after is None else after.display(),
            "change": None if after is None else round(after.rating) - round(before.rating),
        }
    return found
