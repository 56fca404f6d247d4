"""Tournaments: arenas (pair whoever is free, until the end time) and swiss (FIDE Dutch rounds).

The pairing rules are pure functions at the top: :func:`pair_arena` (the free players by score,
each with the nearest free score, never the last opponent again unless those two are all that is
left), :func:`colours` (who has had Black, the first mover, more often takes White) and
:func:`pair_swiss`, which hands the standings to the FIDE Dutch engine of the PyPI package
``caissify-pairings`` (its White, who moves first in chess, is our Black).  The scoring is
:mod:`.tournament_scores`'s, written in the transaction of each game's last action.

Every change happens in one database transaction that takes the tournament's row ``FOR UPDATE``
on PostgreSQL (SQLite has one writer at a time): joining, leaving, and :func:`_tick`, which starts
the tournament at its time, claims the game ends nobody has announced yet, pairs the free players
or the next round, stops pairing at the end and finishes the tournament when its last game is over.
A player is made busy by an ``UPDATE ... WHERE room_id IS NULL`` whose row count is checked, so a
free player or a round is paired exactly once however many server processes tick at once.  The
rooms of a pairing are inserted in that same transaction: a process killed after the commit loses
no game (the rooms are in the database and any process loads them), one killed before it paired
nobody.  Each process runs :meth:`Tournaments.run`, a tick every :attr:`Tournaments.period`
seconds over the tournaments that have work due, so the clock of a tournament runs from whichever
process is alive; the time comes from the hub's ``now`` (a test hands in its own).

What a tick or a join changed is published after the commit, by the process that made it, on the
bus channel :func:`tournament_channel` (``tournament_event`` frames, then a ``tournament``
snapshot), and each new game on both players' channels (:func:`~.bots.player_channel`) so a bot's
event stream starts it as it starts a challenge's game.

This module knows no HTTP: :mod:`.routers.tournaments` reads the requests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE
from tabletop.ratings import Rating, pool_for
from tabletop.server.accounts import AccountError, Player
from tabletop.server.bots import Bots, bot_ids, player_channel
from tabletop.server.bus import Broadcast, frame
from tabletop.server.errors import RoomError
from tabletop.server.results import read_rating
from tabletop.server.rooms import RoomHub, new_room_id
from tabletop.server.seats import hash_secret, new_secret
from tabletop.server.store import (
    ActionRecord,
    RoomRecord,
    SeatRecord,
    SqlStore,
    actions_table,
    insert_room,
    players_table,
    room_players_table,
    tournament_games_table,
    tournament_players_table,
    tournaments_table,
)
from tabletop.server.tournament_scores import on_fire

__all__ = [
    "Candidate",
    "TournamentError",
    "Tournaments",
    "colours",
    "pair_arena",
    "pair_swiss",
    "tournament_channel",
]

log = logging.getLogger("tabletop.server")

KINDS = ("arena", "swiss")
MIN_MINUTES, MAX_MINUTES = 0.25, 1440.0  # an arena's length
MAX_ROUNDS = 15
EARLIEST_START = 60.0  # seconds before now a start may be given (a form filled in a minute ago)
LATEST_START = 30 * 86400.0
TICK = 0.5  # seconds between a process's ticks
FIRST_MOVE = 30.0  # seconds a paired player has for their first move (else the game is called off)
FINISHED_LISTED = 20
GAMES_SHOWN = 300
LIVE = ("upcoming", "running", "finishing")


class TournamentError(AccountError):
    """A refused tournament request (the server's one error body)."""


def tournament_channel(tournament_id: str) -> str:
    """The bus channel of one tournament's live frames ('~' is in no room id)."""
    return f"~tournament:{tournament_id}"


# -- pure pairing rules ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """A player as a pairing sees them."""

    player_id: str
    score: float = 0.0
    free_since: float = 0.0
    last_opponent: str | None = None
    blacks: int = 0
    whites: int = 0
    last_color: str | None = None


def colours(a: Candidate, b: Candidate, coin: Callable[[], bool] = lambda: secrets.randbelow(2) == 0,
            ) -> tuple[str, str]:
    """``(black, white)`` for a game of ``a`` and ``b``: the one who has had Black (the first mover)
    more often than White takes White; when even, the one who had Black last time takes White;
    else ``coin`` decides.

    >>> colours(Candidate("a", blacks=2, whites=1), Candidate("b", blacks=1, whites=1))
    ('b', 'a')
    >>> colours(Candidate("a", blacks=1, last_color="white"), Candidate("b", blacks=1, last_color="black"))
    ('a', 'b')
    """
    lean_a, lean_b = a.blacks - a.whites, b.blacks - b.whites
    if lean_a != lean_b:
        return (b.player_id, a.player_id) if lean_a > lean_b else (a.player_id, b.player_id)
    if a.last_color != b.last_color:
        if a.last_color == "black" or b.last_color == "white":
            return b.player_id, a.player_id
        return a.player_id, b.player_id
    return (a.player_id, b.player_id) if coin() else (b.player_id, a.player_id)


def pair_arena(free: Sequence[Candidate], active: int,
               coin: Callable[[], bool] = lambda: secrets.randbelow(2) == 0) -> list[tuple[str, str]]:
    """The games to start now among the ``free`` players of an arena with ``active`` players in all:
    ``(black, white)`` pairs.  The best score first (the longer-waiting among equals), each takes the
    free player nearest in score (again the longer-waiting first), never the opponent of either's
    last game, unless those two are the only active players; a player with nobody allowed waits.

    >>> pair_arena([Candidate("a", 4), Candidate("b", 0), Candidate("c", 3)], 3, coin=lambda: True)
    [('a', 'c')]
    >>> pair_arena([Candidate("a", last_opponent="b"), Candidate("b", last_opponent="a")], 3)
    []
    """
    waiting = sorted(free, key=lambda c: (-c.score, c.free_since, c.player_id))
    pairs: list[tuple[str, str]] = []
    while len(waiting) >= 2:
        first = waiting.pop(0)
        allowed = [c for c in waiting
                   if active <= 2 or (c.player_id != first.last_opponent and c.last_opponent != first.player_id)]
        if not allowed:
            continue
        second = min(allowed, key=lambda c: (abs(c.score - first.score), c.free_since, c.player_id))
        waiting.remove(second)
        pairs.append(colours(first, second, coin))
    return pairs


@dataclass
class SwissPlayer:
    """A swiss player's history, as the FIDE Dutch engine takes it."""

    player_id: str
    seed: float
    score: float = 0.0
    colors: list[str] = field(default_factory=list)  # the engine's "white"/"black"/"none" per round
    floats: list[str] = field(default_factory=list)  # "up"/"down"/"none" per round
    byes: int = 0


def pair_swiss(players: Sequence[SwissPlayer], met: set[tuple[str, str]], round_number: int,
               rounds: int) -> tuple[list[tuple[str, str]], str | None]:
    """Round ``round_number`` of ``rounds`` by the FIDE Dutch system (``caissify-pairings``): the
    ``(black, white)`` games (the engine's White moves first: our Black) and the player who gets the
    bye (None with an even field).  ``met``: the pairs of players who have played already.
    ``ValueError`` when the engine finds no pairing (every remaining pairing a rematch)."""
    from caissify_pairings import generate_pairings

    order = sorted(players, key=lambda p: (-p.seed, p.player_id))
    number = {p.player_id: n for n, p in enumerate(order, 1)}
    by_number = {n: pid for pid, n in number.items()}
    entries = [
        {"id": number[p.player_id], "name": p.player_id, "score": p.score, "rating": round(p.seed),
         "starting_number": number[p.player_id], "color_hist": p.colors, "float_history": p.floats,
         "bye_count": p.byes}
        for p in order
    ]
    previous = {(number[a], number[b]) for a, b in met if a in number and b in number}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the float history is given; the first rounds have none
        try:
            found = generate_pairings("dutch", entries, previous, round_number, rounds)
        except Exception as exc:  # noqa: BLE001 - the engine's own errors, all meaning "no pairing"
            raise ValueError(f"the FIDE Dutch engine found no pairing for round {round_number}: {exc}") from None
    games: list[tuple[str, str]] = []
    bye: str | None = None
    for pairing in found:
        if pairing.get("black_id") is None:
            bye = by_number[pairing["white_id"]]
        else:
            games.append((by_number[pairing["white_id"]], by_number[pairing["black_id"]]))
    if not games:  # the engine's answer when every game left would be a rematch: byes alone
        raise ValueError(f"round {round_number} has no pairing without a rematch")
    return games, bye


# -- transactions (run by the store's writer; module-level so they cross to it by name) ----------------------------
def _lock(conn: Connection, tournament_id: str) -> Any:
    query = tournaments_table.select().where(tournaments_table.c.id == tournament_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).mappings().first()


def _bump(conn: Connection, tournament_id: str, **values: Any) -> int:
    """Raise the tournament's version (and set ``values``); the new version."""
    conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
        version=tournaments_table.c.version + 1, **values))
    version: int = conn.execute(sa.select(tournaments_table.c.version).where(
        tournaments_table.c.id == tournament_id)).scalar_one()
    return version


def _insert_tournament(conn: Connection, values: dict[str, Any]) -> None:
    conn.execute(tournaments_table.insert().values(**values))


def _join(conn: Connection, tournament_id: str, player_id: str, pool: str, now: float) -> tuple[str | None, int]:
    """Join (or come back): None and the new version (0: no change), or the refusal's code."""
    row = _lock(conn, tournament_id)
    if row is None:
        return "unknown_tournament", 0
    if row["kind"] == "swiss" and row["status"] in ("running", "finishing"):
        return "tournament_started", 0
    if row["status"] not in ("upcoming", "running"):
        return "tournament_over", 0
    p = tournament_players_table.c
    mine = [p.tournament_id == tournament_id, p.player_id == player_id]
    found = conn.execute(tournament_players_table.select().where(*mine)).mappings().first()
    if found is None:
        seed = read_rating(conn, player_id, pool).rating.rating
        conn.execute(tournament_players_table.insert().values(
            tournament_id=tournament_id, player_id=player_id, joined=now, seed=seed, active=True,
            free_since=now, score=0, games=0, wins=0, draws=0, losses=0, streak=0, blacks=0, whites=0,
            byes=0, sheet="[]"))
    elif found["active"]:
        return None, 0  # joined already: nothing changes, nothing is announced
    else:
        conn.execute(tournament_players_table.update().where(*mine).values(active=True, free_since=now))
    return None, _bump(conn, tournament_id)


def _leave(conn: Connection, tournament_id: str, player_id: str) -> tuple[str | None, int]:
    row = _lock(conn, tournament_id)
    if row is None:
        return "unknown_tournament", 0
    p = tournament_players_table.c
    mine = [p.tournament_id == tournament_id, p.player_id == player_id]
    found = conn.execute(tournament_players_table.select().where(*mine)).mappings().first()
    if found is None:
        return "not_joined", 0
    if row["kind"] == "swiss" and row["status"] == "upcoming":
        conn.execute(tournament_players_table.delete().where(*mine))
    elif found["active"]:
        conn.execute(tournament_players_table.update().where(*mine).values(active=False))
    else:
        return None, 0  # left already
    return None, _bump(conn, tournament_id)


def _finish_early(conn: Connection, tournament_id: str, player_id: str, now: float) -> tuple[str | None, int]:
    """The creator ends the tournament now: no new pairing (an arena's end becomes now, a swiss
    pairs no next round); it finishes when its last game ends.  Before its start it is cancelled."""
    row = _lock(conn, tournament_id)
    if row is None:
        return "unknown_tournament", 0
    if row["creator"] != player_id:
        return "not_creator", 0
    if row["status"] not in ("upcoming", "running"):
        return "tournament_over", 0
    if row["status"] == "upcoming":
        return None, _bump(conn, tournament_id, status="cancelled", finished=now)
    values: dict[str, Any] = {"status": "finishing"}
    if row["kind"] == "arena":
        values["minutes"] = max(0.0, now - row["starts"]) / 60
    return None, _bump(conn, tournament_id, **values)


@dataclass
class TickResult:
    """What one tick changed: the events to publish (each ``(name, data)``), the new games
    ``(room, black, white)``, and the version after it (0: nothing changed)."""

    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    games: list[tuple[str, str, str]] = field(default_factory=list)
    version: int = 0


def _start_game(conn: Connection, t: Any, black: str, white: str, round_number: int, now: float) -> str:
    """Pair ``black`` and ``white``: their room (started, both seats taken by tokens nobody holds:
    each player takes theirs with ``POST /api/rooms/{id}/seat``), its players' row and the
    tournament's game row; both players busy.  ``RuntimeError`` when either was busy already."""
    p = tournament_players_table.c
    room_id = new_room_id(now)
    for player_id, color, opponent in ((black, "black", white), (white, "white", black)):
        busy = conn.execute(tournament_players_table.update().where(
            p.tournament_id == t["id"], p.player_id == player_id, p.room_id.is_(None)).values(
            room_id=room_id, last_opponent=opponent, last_color=color,
            blacks=p.blacks + int(color == "black"), whites=p.whites + int(color == "white")))
        if busy.rowcount != 1:
            raise RuntimeError(f"player {player_id} of tournament {t['id']} was paired already")
    clock = {**json.loads(t["clock"]), "from_first_move": True}
    record = RoomRecord(id=room_id, game=t["game"], options=json.loads(t["options"]), position=None,
                        seats={"black": "human", "white": "human"}, clock=clock, mode="online", listed=False,
                        invite_hash=None, created=now)
    seats = [SeatRecord(color, "human", hash_secret(new_secret())) for color in ("black", "white")]
    insert_room(conn, record, seats, [ActionRecord(0, "start", None, None, now)])
    conn.execute(room_players_table.insert().values(room_id=room_id, black=black, white=white, pool=t["pool"],
                                                    rated=t["rated"]))
    conn.execute(tournament_games_table.insert().values(
        tournament_id=t["id"], round=round_number, room_id=room_id, black=black, white=white, started=now,
        announced=False))
    return room_id


def _players(conn: Connection, tournament_id: str) -> list[Any]:
    return list(conn.execute(tournament_players_table.select().where(
        tournament_players_table.c.tournament_id == tournament_id)).mappings())


def _games(conn: Connection, tournament_id: str) -> list[Any]:
    g = tournament_games_table.c
    return list(conn.execute(tournament_games_table.select().where(g.tournament_id == tournament_id)
                             .order_by(g.id)).mappings())


def _swiss_history(players: list[Any], games: list[Any]) -> tuple[list[SwissPlayer], set[tuple[str, str]]]:
    """The active swiss players' histories (score, colours, floats, byes) replayed from the games,
    round by round, and the pairs who have met."""
    history = {r["player_id"]: SwissPlayer(r["player_id"], r["seed"]) for r in players}
    met: set[tuple[str, str]] = set()
    rounds = sorted({g["round"] for g in games})
    for number in rounds:
        before = {pid: h.score for pid, h in history.items()}
        seen: set[str] = set()
        for g in (g for g in games if g["round"] == number):
            black, white = g["black"], g["white"]
            if white is None:  # the bye: a downfloat, no colour
                if black in history:
                    h = history[black]
                    h.colors.append("none")
                    h.floats.append("down")
                    h.byes += 1
                    h.score += g["black_points"] or 0.0
                    seen.add(black)
                continue
            met.add((black, white))
            met.add((white, black))
            for pid, color, opponent, points in ((black, "white", white, g["black_points"]),
                                                 (white, "black", black, g["white_points"])):
                if pid not in history:
                    continue
                h = history[pid]
                h.colors.append(color)  # our Black moves first: the engine's White
                mine, theirs = before.get(pid, 0.0), before.get(opponent, 0.0)
                h.floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
                h.score += points or 0.0
                seen.add(pid)
        for pid, h in history.items():
            if pid not in seen:
                h.colors.append("none")
                h.floats.append("none")
    return list(history.values()), met


def _pair_swiss_round(conn: Connection, t: Any, now: float, result: TickResult) -> bool:
    """Pair the next round of swiss ``t``; False when no pairing exists (the tournament then ends)."""
    players = [r for r in _players(conn, t["id"]) if r["active"]]
    if len(players) < 2:
        return False  # the others withdrew: nobody left to play
    history, met = _swiss_history(players, _games(conn, t["id"]))
    number = t["round"] + 1
    try:
        games, bye = pair_swiss(history, met, number, t["rounds"])
    except ValueError as exc:
        log.warning("tournament %s: %s; the tournament ends", t["id"], exc)
        return False
    for black, white in games:
        room_id = _start_game(conn, t, black, white, number, now)
        result.games.append((room_id, black, white))
    if bye is not None:
        p = tournament_players_table.c
        row = next(r for r in players if r["player_id"] == bye)
        conn.execute(tournament_games_table.insert().values(
            tournament_id=t["id"], round=number, room_id=None, black=bye, white=None, started=now, black_score=1.0,
            ended=now, black_points=1.0, announced=True))
        conn.execute(tournament_players_table.update().where(p.tournament_id == t["id"], p.player_id == bye).values(
            score=p.score + 1, byes=p.byes + 1, sheet=json.dumps([*json.loads(row["sheet"]), "+"])))
    conn.execute(tournaments_table.update().where(tournaments_table.c.id == t["id"]).values(
        round=number, status="finishing" if number >= t["rounds"] else "running"))
    return True


def _tick(conn: Connection, tournament_id: str, now: float) -> TickResult:
    """One round of a tournament's work at ``now`` (see the module's docstring), in one transaction."""
    result = TickResult()
    t = _lock(conn, tournament_id)
    if t is None or t["status"] not in LIVE:
        return result
    g = tournament_games_table.c
    changed = False
    for game in conn.execute(tournament_games_table.select().where(
            g.tournament_id == tournament_id, g.ended.is_not(None), g.announced.is_(False))).mappings().all():
        if conn.execute(tournament_games_table.update().where(g.id == game["id"], g.announced.is_(False))
                        .values(announced=True)).rowcount == 1:
            result.events.append(("game_ended", {"game_id": game["id"]}))
            changed = True
    status = t["status"]
    if status == "upcoming" and now >= t["starts"]:
        active = [r for r in _players(conn, tournament_id) if r["active"]]
        if t["kind"] == "swiss" and len(active) < 2:
            conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
                status="cancelled", finished=now))
            result.events.append(("cancelled", {}))
            result.version = _bump(conn, tournament_id)
            return result
        status = "running"
        conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(status=status))
        result.events.append(("started", {}))
        changed = True
        t = conn.execute(tournaments_table.select().where(tournaments_table.c.id == tournament_id)).mappings().first()
    playing = conn.execute(sa.select(sa.func.count()).select_from(tournament_games_table).where(
        g.tournament_id == tournament_id, g.ended.is_(None))).scalar_one()
    if status == "running" and t["kind"] == "arena":
        if now >= t["starts"] + t["minutes"] * 60:
            status = "finishing"
            conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
                status=status))
            changed = True
        else:
            players = _players(conn, tournament_id)
            free = [Candidate(r["player_id"], r["score"], r["free_since"], r["last_opponent"], r["blacks"],
                              r["whites"], r["last_color"])
                    for r in players if r["active"] and r["room_id"] is None]
            pairs = pair_arena(free, sum(1 for r in players if r["active"]))
            for black, white in pairs:
                room_id = _start_game(conn, t, black, white, t["round"] + 1 + len(result.games), now)
                result.games.append((room_id, black, white))
            if pairs:
                conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
                    round=t["round"] + len(pairs)))
                changed = True
    elif status == "running" and t["kind"] == "swiss" and playing == 0:
        if not _pair_swiss_round(conn, t, now, result):
            status = "finishing"
            conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
                status=status))
        changed = True
        playing = len(result.games)
    if status == "finishing" and playing == 0 and not result.games:
        conn.execute(tournaments_table.update().where(tournaments_table.c.id == tournament_id).values(
            status="finished", finished=now))
        result.events.append(("finished", {}))
        changed = True
    if changed:
        result.version = _bump(conn, tournament_id)
    return result


def _pause(conn: Connection, room_id: str, player_ids: list[str]) -> tuple[str | None, int]:
    """Set the players of the tournament game ``room_id`` inactive (they did not move in it): the
    tournament and its new version, or None when nothing changed."""
    g = tournament_games_table.c
    tournament_id = conn.execute(sa.select(g.tournament_id).where(g.room_id == room_id)).scalar()
    if tournament_id is None or _lock(conn, tournament_id) is None:
        return None, 0
    p = tournament_players_table.c
    paused = conn.execute(tournament_players_table.update().where(
        p.tournament_id == tournament_id, p.player_id.in_(player_ids), p.active.is_(True)).values(active=False))
    if paused.rowcount == 0:
        return None, 0
    return tournament_id, _bump(conn, tournament_id)


# -- reads -------------------------------------------------------------------------------------------------------
def _unstarted(conn: Connection, before: float) -> list[tuple[str, str, str]]:
    """``(room, black, white)`` of the tournament games under way since before ``before`` in which a
    side has stored no move yet (the room itself is asked before anything is done)."""
    g = tournament_games_table.c
    t = tournaments_table.c
    a = actions_table.c
    movers = (sa.select(sa.func.count(sa.distinct(a.color))).where(
        a.room_id == g.room_id, a.kind.in_(("play", "choose")), a.color.is_not(None)).scalar_subquery())
    rows = conn.execute(
        sa.select(g.room_id, g.black, g.white)
        .join(tournaments_table, t.id == g.tournament_id)
        .where(t.status.in_(LIVE), g.ended.is_(None), g.room_id.is_not(None), g.started < before, movers < 2)
    ).all()
    return [(r[0], r[1], r[2]) for r in rows]


def _due(conn: Connection, now: float) -> list[str]:
    """The tournaments with work for a tick (read without a lock; :func:`_tick` decides again under
    it): one to start, a game end to announce, an arena past its end or with two free players it
    may pair, a swiss or a finishing tournament with no game under way.  A tournament with nothing
    to do costs its processes no write (nor, on SQLite, a sync to disk) twice a second."""
    t = tournaments_table.c
    g = tournament_games_table.c
    due = []
    for row in conn.execute(tournaments_table.select().where(
            sa.or_(t.status.in_(("running", "finishing")), sa.and_(t.status == "upcoming", t.starts <= now)))
            ).mappings().all():
        games = conn.execute(sa.select(sa.func.count(), sa.func.sum(sa.case((g.ended.is_(None), 1), else_=0)),
                                       sa.func.sum(sa.case((g.announced.is_(False) & g.ended.is_not(None), 1),
                                                           else_=0)))
                             .where(g.tournament_id == row["id"])).one()
        playing, unannounced = games[1] or 0, games[2] or 0
        if row["status"] == "upcoming" or unannounced or (playing == 0 and (
                row["status"] == "finishing" or row["kind"] == "swiss")):
            due.append(row["id"])
        elif row["kind"] == "arena" and row["status"] == "running":
            if now >= row["starts"] + row["minutes"] * 60:
                due.append(row["id"])
                continue
            players = _players(conn, row["id"])
            free = [Candidate(r["player_id"], r["score"], r["free_since"], r["last_opponent"])
                    for r in players if r["active"] and r["room_id"] is None]
            if len(free) >= 2 and pair_arena(free, sum(1 for r in players if r["active"]), coin=lambda: True):
                due.append(row["id"])
    return due


def _summary(row: Any, names: dict[str, str], winner: str | None) -> dict[str, Any]:
    minutes = row["minutes"]
    return {
        "id": row["id"], "kind": row["kind"], "name": row["name"], "creator": names.get(row["creator"]),
        "game": row["game"], "options": json.loads(row["options"]), "clock": json.loads(row["clock"]),
        "pool": row["pool"], "rated": bool(row["rated"]), "starts": row["starts"],
        "ends": None if minutes is None else row["starts"] + minutes * 60, "minutes": minutes,
        "rounds": row["rounds"], "round": row["round"], "status": row["status"], "winner": winner,
    }


def _result_text(game: Any) -> str | None:
    if game["white"] is None:
        return "bye"
    if game["ended"] is None:
        return None
    if game["black_score"] is None:
        return "aborted"
    return {1.0: "1-0", 0.0: "0-1"}.get(game["black_score"], "1/2-1/2")


def _game_view(game: Any, names: dict[str, str]) -> dict[str, Any]:
    return {
        "id": game["id"], "room": game["room_id"], "round": game["round"], "black": names.get(game["black"]),
        "white": None if game["white"] is None else names.get(game["white"]), "result": _result_text(game),
        "black_points": game["black_points"], "white_points": game["white_points"], "started": game["started"],
        "ended": game["ended"],
    }


def _standings(t: Any, players: list[Any], games: list[Any], ratings: dict[str, float],
               names: dict[str, str], bots: set[str]) -> list[dict[str, Any]]:
    """The players ranked: score, then the tiebreak (arena: performance; swiss: Buchholz), then name."""
    scores = {r["player_id"]: r["score"] for r in players}
    opponents: dict[str, list[str]] = {r["player_id"]: [] for r in players}
    for g in games:
        if g["white"] is None or g["ended"] is None or g["black_score"] is None:
            continue
        opponents.setdefault(g["black"], []).append(g["white"])
        opponents.setdefault(g["white"], []).append(g["black"])
    rows = []
    for r in players:
        pid = r["player_id"]
        met = opponents.get(pid, [])
        if t["kind"] == "swiss":
            tiebreak = sum(scores.get(o, 0.0) for o in met)
        elif r["games"]:
            mean = sum(ratings.get(o, Rating().rating) for o in met) / max(len(met), 1)
            tiebreak = mean + 500 * (r["wins"] - r["losses"]) / r["games"]
        else:
            tiebreak = 0.0
        score = r["score"] if t["kind"] == "swiss" else int(r["score"])
        rows.append({
            "name": names.get(pid, "?"), "bot": pid in bots, "rating": round(ratings.get(pid, Rating().rating)),
            "score": score, "games": r["games"], "wins": r["wins"], "draws": r["draws"], "losses": r["losses"],
            "streak": r["streak"], "fire": t["kind"] == "arena" and on_fire(r["streak"]),
            "sheet": json.loads(r["sheet"]), "active": bool(r["active"]), "playing": r["room_id"],
            "tiebreak": round(tiebreak, 1), "byes": r["byes"],
        })
    rows.sort(key=lambda s: (-s["score"], -s["tiebreak"], s["name"].lower()))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def _view(conn: Connection, tournament_id: str) -> dict[str, Any] | None:
    t = conn.execute(tournaments_table.select().where(tournaments_table.c.id == tournament_id)).mappings().first()
    if t is None:
        return None
    players = _players(conn, tournament_id)
    games = _games(conn, tournament_id)
    ids = {t["creator"]} | {r["player_id"] for r in players}
    names = {r[0]: r[1] for r in conn.execute(sa.select(players_table.c.id, players_table.c.name).where(
        players_table.c.id.in_(ids)))}
    ratings = {pid: read_rating(conn, pid, t["pool"]).rating.rating for pid in ids}
    standings = _standings(t, players, games, ratings, names, bot_ids(conn, ids))
    over = t["status"] == "finished"
    podium = [s["name"] for s in standings[:3]] if over else []
    view = _summary(t, names, podium[0] if podium else None)
    view.update(version=t["version"], players=len(players), standings=standings, podium=podium,
                games=[_game_view(g, names) for g in reversed(games[-GAMES_SHOWN:])])
    return view


def _list(conn: Connection) -> list[dict[str, Any]]:
    t = tournaments_table.c
    live = list(conn.execute(tournaments_table.select().where(t.status.in_(LIVE)).order_by(t.starts)
                             .limit(100)).mappings())
    done = list(conn.execute(tournaments_table.select().where(t.status.in_(("finished", "cancelled")))
                             .order_by(t.finished.desc()).limit(FINISHED_LISTED)).mappings())
    rows = live + done
    ids = [r["id"] for r in rows]
    p = tournament_players_table.c
    counts: dict[str, int] = dict(conn.execute(sa.select(p.tournament_id, sa.func.count()).where(p.tournament_id.in_(ids))
                               .group_by(p.tournament_id)).all())
    creators = {r["creator"] for r in rows}
    names = {r[0]: r[1] for r in conn.execute(sa.select(players_table.c.id, players_table.c.name).where(
        players_table.c.id.in_(creators)))}
    found = []
    for row in rows:
        # the winner is the finished tournament's first standing (a swiss cancelled has none)
        winner = None
        if row["status"] == "finished":
            view = _view(conn, row["id"])
            winner = None if view is None else view["winner"]
        found.append({**_summary(row, names, winner), "players": counts.get(row["id"], 0)})
    return found


class Tournaments:
    """Creating, joining and leaving tournaments, their views, and the tick that runs them."""

    def __init__(self, hub: RoomHub, *, period: float = TICK, first_move: float = FIRST_MOVE) -> None:
        """``period``: seconds between this process's ticks (:meth:`run`); ``first_move``: seconds a
        paired player has to make their first move before the game is called off and they are
        paused (a no-show would otherwise hold their opponent, and the tournament's end, for ever)."""
        if not isinstance(hub.store, SqlStore):
            raise TournamentError("no_accounts", "this server keeps no players", 400)
        self.hub = hub
        self.store: SqlStore = hub.store
        self.period = period
        self.first_move = first_move

    async def _read(self, function: Callable[..., Any], *args: Any) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as conn:
                return function(conn, *args)

        return await self.store.read(read)

    async def create(self, player: Player, *, kind: str, name: str | None, game: str, options: dict[str, Any],
                     clock: dict[str, Any], rated: bool, starts: float | None, minutes: float | None,
                     rounds: int | None) -> dict[str, Any]:
        """A new tournament, as :meth:`view` shows it; 400 ``bad_tournament`` naming what is wrong."""
        await Bots(self.store).refuse(player, "create tournaments")
        now = self.hub.now()
        if kind not in KINDS:
            raise TournamentError("bad_tournament", "kind is arena or swiss", 400)
        try:
            new_board(game, options)
            pool = pool_for(game, options, clock)
        except (ValueError, TypeError) as exc:
            raise TournamentError("bad_tournament", str(exc), 400) from None
        if clock.get("days") is not None or clock.get("initial") is None:
            raise TournamentError("bad_tournament", "a tournament needs a clock of initial seconds and increment "
                                  "(no correspondence)", 400)
        starts = now if starts is None else starts
        if not now - EARLIEST_START <= starts <= now + LATEST_START:
            raise TournamentError("bad_tournament", "the start must be from a minute ago to 30 days ahead", 400)
        if kind == "arena" and (minutes is None or not MIN_MINUTES <= minutes <= MAX_MINUTES):
            raise TournamentError("bad_tournament", f"an arena lasts {MIN_MINUTES} to {MAX_MINUTES:g} minutes", 400)
        if kind == "swiss" and (rounds is None or not 1 <= rounds <= MAX_ROUNDS):
            raise TournamentError("bad_tournament", f"a swiss has 1 to {MAX_ROUNDS} rounds", 400)
        tournament_id = secrets.token_urlsafe(9)
        values = {
            "id": tournament_id, "kind": kind, "name": (name or "").strip() or f"{player.name}'s {kind}",
            "creator": player.id, "game": game, "options": json.dumps(options), "clock": json.dumps(clock),
            "pool": pool.key, "rated": rated, "starts": starts, "minutes": minutes if kind == "arena" else None,
            "rounds": rounds if kind == "swiss" else None, "round": 0, "status": "upcoming", "created": now,
            "version": 0,
        }
        await self.store.call(_insert_tournament, values)
        return await self.view(tournament_id)

    async def view(self, tournament_id: str) -> dict[str, Any]:
        found: dict[str, Any] | None = await self._read(_view, tournament_id)
        if found is None:
            raise TournamentError("unknown_tournament", f"there is no tournament {tournament_id!r}", 404)
        return found

    async def exists(self, tournament_id: str) -> bool:
        """Whether there is a tournament ``tournament_id`` (the web page's route asks)."""
        found = await self._read(lambda conn: conn.execute(sa.select(tournaments_table.c.id).where(
            tournaments_table.c.id == tournament_id)).first())
        return found is not None

    async def listing(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self._read(_list)
        return found

    async def join(self, player: Player, tournament_id: str) -> dict[str, Any]:
        pool = await self._read(lambda conn: conn.execute(sa.select(tournaments_table.c.pool).where(
            tournaments_table.c.id == tournament_id)).scalar())
        if pool is None:
            raise TournamentError("unknown_tournament", f"there is no tournament {tournament_id!r}", 404)
        refused, version = await self.store.call(_join, tournament_id, player.id, pool, self.hub.now())
        self._refuse(refused)
        await self.publish(tournament_id, [("joined", {"name": player.name})], version)
        return await self.view(tournament_id)

    async def leave(self, player: Player, tournament_id: str) -> dict[str, Any]:
        refused, version = await self.store.call(_leave, tournament_id, player.id)
        self._refuse(refused)
        await self.publish(tournament_id, [("left", {"name": player.name})], version)
        return await self.view(tournament_id)

    async def finish(self, player: Player, tournament_id: str) -> dict[str, Any]:
        """The creator ends the tournament early (see :func:`_finish_early`)."""
        refused, version = await self.store.call(_finish_early, tournament_id, player.id, self.hub.now())
        self._refuse(refused)
        view = await self.view(tournament_id)
        await self.publish(tournament_id, [("cancelled" if view["status"] == "cancelled" else "finishing", {})],
                           version, view)
        return view

    @staticmethod
    def _refuse(code: str | None) -> None:
        messages = {
            "not_creator": ("only the tournament's creator may end it early", 403),
            "unknown_tournament": ("there is no such tournament", 404),
            "not_joined": ("you have not joined this tournament", 409),
            "tournament_over": ("this tournament is over: nobody joins it now", 409),
            "tournament_started": ("this swiss tournament has started: players join before its first round", 409),
        }
        if code is not None:
            message, status = messages[code]
            raise TournamentError(code, message, status)

    # -- the tick ------------------------------------------------------------------------------------------------
    async def tick(self) -> list[str]:
        """Do every tournament's due work once (start, announce, pair, finish); the ids changed."""
        now = self.hub.now()
        changed = []
        for tournament_id in await self._read(_due, now):
            result: TickResult = await self.store.call(_tick, tournament_id, now)
            if result.version:
                changed.append(tournament_id)
                await self._announce(tournament_id, result)
        for room_id, black, white in await self._read(_unstarted, now - self.first_move):
            await self._call_off(room_id, {"black": black, "white": white})
        return changed

    async def _call_off(self, room_id: str, players: dict[str, str]) -> None:
        """Abort the game of ``room_id`` if a side has still not moved, and pause whoever has not
        (any process may: the room's stored version decides which one's abort counts)."""
        room = await self.hub.get(room_id)
        if room is None:
            return
        async with room.lock:
            match = room.match
            if match.is_over():
                return
            absent = [color for color in (BLACK, WHITE) if not match.has_moved(color)]
            if not absent:
                return
            try:
                await room.change("abort", absent[0], None)
            except RoomError:
                return  # another process ended it first (stale_room), or a move came in: the next tick sees
            rows = [room.seats.row_label(color.label) for color in absent]
        tournament_id, version = await self.store.call(_pause, room_id, [players[row] for row in rows])
        if tournament_id is not None:
            await self.publish(tournament_id, [], version)

    async def run(self) -> None:
        """Tick every :attr:`period` seconds until cancelled; a failed tick (the database away) is
        tried again at the next."""
        last_failure = ""
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.tick()
                last_failure = ""
            except Exception as exc:  # noqa: BLE001 - logged; the next tick tries again
                if str(exc) != last_failure:  # once while the same failure repeats, not twice a second
                    log.exception("tournaments: a tick failed")
                last_failure = str(exc)

    async def _announce(self, tournament_id: str, result: TickResult) -> None:
        view = await self.view(tournament_id)
        by_id = {g["id"]: g for g in view["games"]}
        by_room = {g["room"]: g for g in view["games"] if g["room"] is not None}
        events: list[tuple[str, dict[str, Any]]] = []
        for name, data in result.events:
            if name == "game_ended":
                game = by_id.get(data["game_id"])
                if game is not None:
                    events.append((name, {"game": game}))
            elif name == "finished":
                events.append((name, {"winner": view["winner"], "podium": view["podium"]}))
            else:
                events.append((name, data))
        for room_id, black, white in result.games:
            if room_id in by_room:
                events.append(("game_started", {"game": by_room[room_id]}))
            for player_id in (black, white):
                await self.hub.bus.publish(player_channel(player_id), Broadcast("tournament_game", [
                    frame("tournament_game", room=room_id, tournament=tournament_id)]))
        await self.publish(tournament_id, events, result.version, view)

    async def publish(self, tournament_id: str, events: list[tuple[str, dict[str, Any]]], version: int,
                      view: dict[str, Any] | None = None) -> None:
        """Send ``events`` and a fresh snapshot on the tournament's channel (nothing when ``version`` is 0:
        no change)."""
        if not version:
            return
        if view is None:
            view = await self.view(tournament_id)
        frames = [frame("tournament_event", event=name, version=version, **data) for name, data in events]
        frames.append(frame("tournament", tournament=view))
        await self.hub.bus.publish(tournament_channel(tournament_id), Broadcast("tournament", frames))
