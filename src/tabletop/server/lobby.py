"""Seeks, the lobby, quick pairing, player pages and leaderboards.

The pairing rules are pure functions at the top (:func:`window`, :func:`nearest`,
:func:`computer_level`): who may be paired with whom, and how the rating window widens while a seek
waits.  :class:`Lobby` keeps seeks in the ``seeks`` table and tells every server process of each
change on the bus's lobby channel (Redis pub/sub when there are several).  Accepting a seek is one
``UPDATE ... WHERE taken_by IS NULL``: of two players who accept at once, on one process or two,
exactly one changes the row and gets the game; the other is told it is gone.  The winner's room
is an ordinary online room with a ``room_players`` row, whose result and rating change
:mod:`.results` writes when the game ends.

The poster's seat token waits in the seek's row from the accept until the poster collects it
(:meth:`Lobby.collect`, only for the poster's session, once: collecting clears it); the acceptor gets
theirs in the answer.  An uncollected token lasts :data:`SEAT_TOKEN_TTL` seconds from the room's
start (the room row's ``created``, so no column of its own): past that, collecting is refused and the
next accept or collect clears it from every row.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.games import new_board
from tabletop.ratings import MAX_DEVIATION, Pool, Rating, pool_for
from tabletop.server.accounts import AccountError, Player
from tabletop.server.bots import Bots, bot_ids, is_bot_column
from tabletop.server.bus import Broadcast, frame
from tabletop.server.results import read_rating
from tabletop.server.rooms import RoomHub
from tabletop.server.store import (
    SqlStore,
    players_table,
    rating_history_table,
    ratings_table,
    room_players_table,
    rooms_table,
    seeks_table,
)

__all__ = [
    "LOBBY_CHANNEL",
    "Lobby",
    "SeekError",
    "Waiting",
    "computer_level",
    "nearest",
    "window",
]

LOBBY_CHANNEL = "~lobby"  # a bus channel no room id can be ('~' is not in their alphabet)
WINDOW_START = 100.0  # rating points either side a new seek accepts
WINDOW_GROWTH = 25.0  # points more per second of waiting
WINDOW_MAX = 1000.0
MAX_OPEN_SEEKS = 3  # per player
LEADERBOARD_GAMES = 10  # rated games in the pool before a player is listed
SEAT_TOKEN_TTL = 300.0  # seconds a taken seek's poster has to collect their seat token
SEEK_HEARTBEAT = 15.0  # seconds between a process's rounds of vouching for the players in its lobby
SEEK_FRESH = 60.0  # an open seek whose poster no process has seen in the lobby for this long is cancelled
CORRESPONDENCE_POOLS = "%-correspondence"  # a LIKE pattern: the pools of days-a-move games, whose seeks stay


log = logging.getLogger("tabletop.server")


class SeekError(AccountError):
    """A refused seek request (the server's one error body)."""


# -- pure pairing rules ------------------------------------------------------------------------------------------
def window(waited: float) -> float:
    """How far (rating points) from its poster's rating a seek waiting ``waited`` seconds reaches."""
    return min(WINDOW_START + WINDOW_GROWTH * max(waited, 0.0), WINDOW_MAX)


@dataclass(frozen=True)
class Waiting:
    """A player waiting in a pool: their seek, their rating there, and since when."""

    seek_id: str
    player_id: str
    rating: float
    since: float


def nearest(rating: float, player_id: str, waiting: Sequence[Waiting], now: float) -> Waiting | None:
    """The waiting seek of the nearest rating to ``rating`` inside its widened window, the
    longest-waiting first among equals; never the player's own.

    >>> w = [Waiting("a", "p1", 1700, 0.0), Waiting("b", "p2", 1450, 9.0)]
    >>> nearest(1500, "me", w, now=10.0).seek_id  # 1450 is nearest and within 125 points
    'b'
    >>> nearest(1500, "me", w[:1], now=1.0) is None  # 200 points away, its window is 125
    True
    """
    fits = [w for w in waiting if w.player_id != player_id and abs(w.rating - rating) <= window(now - w.since)]
    return min(fits, key=lambda w: (abs(w.rating - rating), w.since), default=None)


def computer_level(rating: float) -> int:
    """The computer level (1-10) offered to a player of ``rating`` who waited too long:
    level 1 up to 1000, one level per 150 points above, level 10 from 2350."""
    return max(1, min(10, 1 + math.ceil((rating - 1000) / 150)))


# -- transactions (run by the store's writer; module-level so they cross to it by name) ----------------------------
def _insert_seek(conn: Connection, values: dict[str, Any]) -> bool:
    open_seeks = conn.execute(sa.select(sa.func.count()).select_from(seeks_table).where(
        seeks_table.c.player_id == values["player_id"], seeks_table.c.taken_by.is_(None))).scalar_one()
    if open_seeks >= MAX_OPEN_SEEKS:
        return False
    conn.execute(seeks_table.insert().values(**values))
    return True


def _delete_seeks(conn: Connection, player_id: str, seek_id: str | None) -> list[str]:
    """Delete the player's open seeks (one, or all when ``seek_id`` is None); the ids deleted."""
    where = [seeks_table.c.player_id == player_id, seeks_table.c.taken_by.is_(None)]
    if seek_id is not None:
        where.append(seeks_table.c.id == seek_id)
    else:  # all of them: a player leaving the lobby; a correspondence seek waits for days, so it stays
        where.append(seeks_table.c.pool.not_like(CORRESPONDENCE_POOLS))
    ids = [r[0] for r in conn.execute(sa.select(seeks_table.c.id).where(*where))]
    if ids:
        conn.execute(seeks_table.delete().where(seeks_table.c.id.in_(ids)))
    return ids


def _open_at(now: float) -> list[Any]:
    """What makes a seek open at ``now``: not taken, and its poster seen in the lobby within
    :data:`SEEK_FRESH` seconds or a correspondence seek, which waits for days (listing, pairing and
    taking all ask the same)."""
    return [seeks_table.c.taken_by.is_(None),
            sa.or_(seeks_table.c.seen >= now - SEEK_FRESH, seeks_table.c.pool.like(CORRESPONDENCE_POOLS))]


def _take_seek(conn: Connection, seek_id: str, player_id: str, now: float) -> bool:
    """The one place a seek changes hands: True for the one accept that finds it open."""
    taken = conn.execute(
        seeks_table.update()
        .where(seeks_table.c.id == seek_id, seeks_table.c.player_id != player_id, *_open_at(now))
        .values(taken_by=player_id)
    )
    return taken.rowcount == 1


def _vouch_and_sweep(conn: Connection, present: list[str], now: float) -> list[str]:
    """Mark the open seeks of the ``present`` players (in this process's lobby) seen ``now``, then
    delete the open seeks nobody has seen for :data:`SEEK_FRESH` seconds; the ids this call deleted
    (each once, though several processes sweep at once)."""
    if present:
        conn.execute(seeks_table.update().where(
            seeks_table.c.player_id.in_(present), seeks_table.c.taken_by.is_(None)).values(seen=now))
    stale = [seeks_table.c.taken_by.is_(None), seeks_table.c.seen < now - SEEK_FRESH,
             seeks_table.c.pool.not_like(CORRESPONDENCE_POOLS)]
    gone = []
    for (seek_id,) in conn.execute(sa.select(seeks_table.c.id).where(*stale)).all():
        if conn.execute(seeks_table.delete().where(seeks_table.c.id == seek_id, *stale)).rowcount == 1:
            gone.append(seek_id)
    return gone


def _release_seek(conn: Connection, seek_id: str) -> None:
    conn.execute(seeks_table.update().where(seeks_table.c.id == seek_id).values(taken_by=None))


def _forget_stale_tokens(conn: Connection, now: float) -> None:
    """Clear the seat tokens that waited past :data:`SEAT_TOKEN_TTL` since their room started."""
    stale = sa.select(rooms_table.c.id).where(rooms_table.c.created < now - SEAT_TOKEN_TTL)
    conn.execute(seeks_table.update().where(
        seeks_table.c.poster_token.is_not(None), seeks_table.c.room_id.in_(stale)).values(poster_token=None))


def _seat_players(conn: Connection, seek_id: str, room_id: str, poster_token: str, players: dict[str, str],
                  pool: str, rated: bool, now: float) -> None:
    _forget_stale_tokens(conn, now)
    conn.execute(room_players_table.insert().values(
        room_id=room_id, black=players["black"], white=players["white"], pool=pool, rated=rated))
    conn.execute(seeks_table.update().where(seeks_table.c.id == seek_id).values(
        room_id=room_id, poster_token=poster_token))


def _collect_token(conn: Connection, seek_id: str, player_id: str, now: float) -> tuple[str, str] | None:
    """The room and poster's token of their taken seek, cleared as it is read (None once collected
    or expired)."""
    _forget_stale_tokens(conn, now)
    row = conn.execute(sa.select(seeks_table.c.room_id, seeks_table.c.poster_token).where(
        seeks_table.c.id == seek_id, seeks_table.c.player_id == player_id,
        seeks_table.c.poster_token.is_not(None))).first()
    if row is None:
        return None
    conn.execute(seeks_table.update().where(seeks_table.c.id == seek_id).values(poster_token=None))
    return str(row[0]), str(row[1])


class Lobby:
    """Seeks, accepts and what the lobby and player pages show, on the hub's store and bus."""

    def __init__(self, hub: RoomHub) -> None:
        if not isinstance(hub.store, SqlStore):
            raise SeekError("no_accounts", "this server keeps no players", 400)
        self.hub = hub
        self.store: SqlStore = hub.store
        self.sockets: dict[str, int] = {}  # lobby sockets per player id in this process

    async def _read(self, function: Any, *args: Any) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as conn:
                return function(conn, *args)

        return await self.store.read(read)

    async def _publish(self, kind: str, **data: Any) -> None:
        await self.hub.bus.publish(LOBBY_CHANNEL, Broadcast(kind, [frame("lobby", event=kind, **data)]))

    # -- seeks -----------------------------------------------------------------------------------------------
    async def post(self, player: Player, game: str, options: dict[str, Any], clock: dict[str, Any] | None,
                   color: str, rated: bool, *, quick: bool = False) -> dict[str, Any]:
        """Post a seek (``quick``: by Play now, so no bot takes it); its view as the lobby shows it.
        A bot posts none (403 ``bot_account``)."""
        await Bots(self.store).refuse(player, "post seeks")
        try:
            new_board(game, options)
            pool = pool_for(game, options, clock)
        except (ValueError, TypeError) as exc:
            raise SeekError("bad_seek", str(exc), 400) from None
        if rated and clock is None:
            raise SeekError("bad_seek", "a rated game needs a clock", 400)
        seek_id = secrets.token_urlsafe(12)
        now = time.time()
        values: dict[str, Any] = {
            "id": seek_id, "player_id": player.id, "game": game,
            "options": json.dumps(options), "clock": None if clock is None else json.dumps(clock),
            "color": color, "rated": rated, "pool": pool.key, "created": now, "seen": now, "quick": quick,
        }
        if not await self.store.call(_insert_seek, values):
            raise SeekError("too_many_seeks", f"at most {MAX_OPEN_SEEKS} open seeks a player", 409)
        view = (await self.seeks(seek_id=seek_id))[0]
        await self._publish("seek_posted", seek=view)
        return view

    async def cancel(self, player: Player, seek_id: str | None = None) -> list[str]:
        """Cancel the player's open seek ``seek_id`` (404 unless it is theirs and open), or all of them."""
        ids: list[str] = await self.store.call(_delete_seeks, player.id, seek_id)
        if seek_id is not None and not ids:
            raise SeekError("unknown_seek", "you have no open seek with that id", 404)
        for gone in ids:
            await self._publish("seek_cancelled", id=gone)
        return ids

    async def accept(self, player: Player, seek_id: str) -> dict[str, Any]:
        """Take the seek and start its game: ``{"room", "seat", "token"}`` for the acceptor.
        Exactly one of several players accepting at once wins; the others get ``seek_taken`` (409)."""
        row = await self._read(lambda c: c.execute(seeks_table.select().where(
            seeks_table.c.id == seek_id)).mappings().first())
        if row is None:
            raise SeekError("unknown_seek", "there is no such seek; it may have been cancelled", 404)
        if row["player_id"] == player.id:
            raise SeekError("own_seek", "this is your own seek", 400)
        if row["quick"]:
            await Bots(self.store).refuse(player, "take a seek of Play now (its player asked for a person)")
        if row["taken_by"] is None and row["seen"] < time.time() - SEEK_FRESH:
            raise SeekError("unknown_seek", "this seek's player has left the lobby", 404)
        if not await self.store.call(_take_seek, seek_id, player.id, time.time()):
            raise SeekError("seek_taken", "another player accepted this seek first", 409)
        try:
            color = row["color"] if row["color"] != "random" else secrets.choice(["black", "white"])
            room, tokens, invite = await self.hub.create(
                game=row["game"], options=json.loads(row["options"]), position=None, seats={},
                clock=None if row["clock"] is None else json.loads(row["clock"]), mode="online", as_=color,
                listed=False)
            seat, token = await self.hub.join(room.id, invite)
            players = {color: row["player_id"], seat: player.id}
            await self.store.call(_seat_players, seek_id, room.id, tokens[color], players, row["pool"],
                                  bool(row["rated"]), time.time())
            await room.read_players()  # the room's state names them from now on
        except Exception:
            await self.store.call(_release_seek, seek_id)  # the seek is open again for someone else
            raise
        await self._publish("seek_taken", id=seek_id, room=room.id)
        return {"room": room.id, "seat": seat, "token": token}

    async def collect(self, player: Player, seek_id: str) -> dict[str, Any]:
        """The poster's seat in the room their accepted seek started (once, within
        :data:`SEAT_TOKEN_TTL` of the accept; 404 otherwise)."""
        found = await self.store.call(_collect_token, seek_id, player.id, time.time())
        if found is None:
            if any(s["id"] == seek_id for s in await self.seeks(seek_id=seek_id, player_id=player.id)):
                raise SeekError("seek_waiting", "your seek still waits for a player", 409)
            raise SeekError("unknown_seek", "none of your seeks with that id waits for you in a room", 404)
        room_id, token = found
        row = await self._read(lambda c: c.execute(sa.select(room_players_table).where(
            room_players_table.c.room_id == room_id)).mappings().first())
        seat = "black" if row["black"] == player.id else "white"
        return {"room": room_id, "seat": seat, "token": token}

    async def seeks(self, *, seek_id: str | None = None, pool: str | None = None,
                    player_id: str | None = None) -> list[dict[str, Any]]:
        """Open seeks, oldest first, as the lobby shows them (never a token)."""

        def read(conn: Connection) -> list[dict[str, Any]]:
            query = (
                sa.select(seeks_table, players_table.c.name, ratings_table.c.rating, ratings_table.c.deviation,
                          is_bot_column())
                .join(players_table, players_table.c.id == seeks_table.c.player_id)
                .outerjoin(ratings_table, sa.and_(ratings_table.c.player_id == seeks_table.c.player_id,
                                                  ratings_table.c.pool == seeks_table.c.pool))
                .where(*_open_at(time.time()))
                .order_by(seeks_table.c.created)
                .limit(200)
            )
            if seek_id is not None:
                query = query.where(seeks_table.c.id == seek_id)
            if pool is not None:
                query = query.where(seeks_table.c.pool == pool)
            if player_id is not None:
                query = query.where(seeks_table.c.player_id == player_id)
            return [_seek_view(r) for r in conn.execute(query).mappings()]

        found: list[dict[str, Any]] = await self._read(read)
        return found

    async def play_now(self, player: Player, game: str, options: dict[str, Any],
                       clock: dict[str, Any]) -> dict[str, Any]:
        """Quick pairing: accept the open rated seek of this pool nearest the player's rating inside its
        widening window, or post one and wait.  ``{"room", ...}`` when paired, else ``{"seek", "computer"}``
        with the computer level the client may offer after a wait of its choosing.  Never for a bot."""
        await Bots(self.store).refuse(player, "use Play now")
        try:
            pool = pool_for(game, options, clock)
        except ValueError as exc:
            raise SeekError("bad_seek", str(exc), 400) from None
        mine = await self._read(lambda c: read_rating(c, player.id, pool.key))
        now = time.time()
        for _ in range(3):  # a seek taken by someone else a moment before: try the next nearest
            candidates = [Waiting(s["id"], s["player_id"], s["rating"], s["created"])
                          for s in await self._open_in_pool(pool) if s["rated"]]
            best = nearest(mine.rating.rating, player.id, candidates, now)
            if best is None:
                break
            try:
                return await self.accept(player, best.seek_id)
            except SeekError as exc:
                if exc.code != "seek_taken":
                    raise
        seek = await self.post(player, game, options, clock, "random", rated=True, quick=True)
        return {"seek": seek, "computer": f"level:{computer_level(mine.rating.rating)}"}

    async def _open_in_pool(self, pool: Pool) -> list[dict[str, Any]]:
        def read(conn: Connection) -> list[dict[str, Any]]:
            query = (
                sa.select(seeks_table.c.id, seeks_table.c.player_id, seeks_table.c.created, seeks_table.c.rated,
                          sa.func.coalesce(ratings_table.c.rating, Rating().rating).label("rating"))
                .outerjoin(ratings_table, sa.and_(ratings_table.c.player_id == seeks_table.c.player_id,
                                                  ratings_table.c.pool == seeks_table.c.pool))
                .where(seeks_table.c.pool == pool.key, *_open_at(time.time()))
            )
            return [dict(r) for r in conn.execute(query).mappings()]

        found: list[dict[str, Any]] = await self._read(read)
        return found

    # -- presence: a player's seeks go when their last lobby socket here closes ---------------------------------
    # Every SEEK_HEARTBEAT seconds each process vouches for the players with a lobby socket open in it; an
    # open seek nobody has vouched for in SEEK_FRESH seconds is cancelled by whichever process sweeps
    # first.  So the seeks of a player whose process stopped without closing their socket go too, as do
    # the seeks of a player who posted over the API and never came to the lobby.
    async def heartbeat(self, now: float | None = None) -> list[str]:
        """One round: vouch, sweep, and announce the seeks swept; their ids."""
        gone: list[str] = await self.store.call(
            _vouch_and_sweep, sorted(self.sockets), time.time() if now is None else now
        )
        for seek_id in gone:
            await self._publish("seek_cancelled", id=seek_id)
        return gone

    async def keep_seeks_fresh(self) -> None:
        """:meth:`heartbeat` every :data:`SEEK_HEARTBEAT` seconds until cancelled (the hub's close)."""
        while True:
            await asyncio.sleep(SEEK_HEARTBEAT)
            try:
                await self.heartbeat()
            except Exception:  # noqa: BLE001 - a failed round (the database away) is tried again next time
                log.exception("lobby: the seek heartbeat failed")

    def arrived(self, player: Player) -> None:
        self.sockets[player.id] = self.sockets.get(player.id, 0) + 1

    async def left(self, player: Player) -> None:
        count = self.sockets.get(player.id, 0) - 1
        if count > 0:
            self.sockets[player.id] = count
            return
        self.sockets.pop(player.id, None)
        await self.cancel(player)

    # -- player pages and leaderboards -----------------------------------------------------------------------
    async def player_page(self, name: str) -> dict[str, Any]:
        """Ratings with their history, wins/draws/losses per pool, and recent games."""

        def read(conn: Connection) -> dict[str, Any] | None:
            player = conn.execute(sa.select(players_table.c.id, players_table.c.name, players_table.c.created)
                                  .where(players_table.c.name_key == name.lower())).mappings().first()
            if player is None:
                return None
            ratings = {}
            for r in conn.execute(ratings_table.select().where(ratings_table.c.player_id == player["id"])
                                  .order_by(ratings_table.c.pool)).mappings():
                rating = Rating(r["rating"], r["deviation"], r["volatility"])
                history = [
                    {"room": h["room_id"], "at": h["at"], "rating": round(h["rating"], 1),
                     "change": round(h["change"], 1)}
                    for h in conn.execute(rating_history_table.select().where(
                        rating_history_table.c.player_id == player["id"], rating_history_table.c.pool == r["pool"])
                        .order_by(rating_history_table.c.at)).mappings()
                ]
                ratings[r["pool"]] = {
                    "rating": round(rating.rating, 1), "deviation": round(rating.deviation, 1),
                    "display": rating.display(), "provisional": rating.provisional, "games": r["games"],
                    "wins": r["wins"], "draws": r["draws"], "losses": r["losses"], "history": history,
                }
            black, white = players_table.alias("black_player"), players_table.alias("white_player")
            games = conn.execute(
                sa.select(room_players_table, rooms_table.c.game, rooms_table.c.created,
                          black.c.name.label("black_name"), white.c.name.label("white_name"))
                .join(rooms_table, rooms_table.c.id == room_players_table.c.room_id)
                .join(black, black.c.id == room_players_table.c.black)
                .join(white, white.c.id == room_players_table.c.white)
                .where(sa.or_(room_players_table.c.black == player["id"], room_players_table.c.white == player["id"]))
                .order_by(rooms_table.c.created.desc()).limit(20)
            ).mappings()
            recent = [
                {"room": g["room_id"], "game": g["game"], "pool": g["pool"], "rated": bool(g["rated"]),
                 "black": g["black_name"], "white": g["white_name"], "created": g["created"],
                 "black_id": g["black"], "white_id": g["white"],
                 "result": _result_text(g["black_score"], g["ended"]), "review": _game_link(g["room_id"], g["ended"])}
                for g in games
            ]
            bots = bot_ids(conn, {player["id"]} | {g[side] for g in recent for side in ("black_id", "white_id")})
            for game in recent:
                game["black_bot"], game["white_bot"] = game.pop("black_id") in bots, game.pop("white_id") in bots
            return {"name": player["name"], "bot": player["id"] in bots, "created": player["created"],
                    "ratings": ratings, "games": recent}

        page: dict[str, Any] | None = await self._read(read)
        if page is None:
            raise SeekError("unknown_player", f"there is no player {name!r}", 404)
        return page

    async def leaderboard(self, pool: str, limit: int = 50) -> list[dict[str, Any]]:
        """The top players of ``pool`` with at least 10 rated games there, best first."""
        try:
            Pool.from_key(pool)
        except ValueError as exc:
            raise SeekError("unknown_pool", str(exc), 404) from None

        def read(conn: Connection) -> list[dict[str, Any]]:
            rows = conn.execute(
                sa.select(players_table.c.name, ratings_table, is_bot_column())
                .join(players_table, players_table.c.id == ratings_table.c.player_id)
                .where(ratings_table.c.pool == pool, ratings_table.c.games >= LEADERBOARD_GAMES)
                .order_by(ratings_table.c.rating.desc()).limit(limit)
            ).mappings()
            return [
                {"rank": rank, "name": r["name"], "bot": bool(r["bot"]), "rating": round(r["rating"], 1),
                 "display": Rating(r["rating"], r["deviation"], r["volatility"]).display(), "games": r["games"]}
                for rank, r in enumerate(rows, 1)
            ]

        board: list[dict[str, Any]] = await self._read(read)
        return board


def _game_link(room_id: str, ended: float | None) -> str:
    """Where a player page sends a click on a game: its review once over, the game while it is played."""
    return f"/play/{room_id}" if ended is None else f"/review/{room_id}"


def _result_text(black_score: float | None, ended: float | None) -> str:
    if ended is None:
        return "playing"
    if black_score is None:
        return "aborted"
    return {1.0: "1-0", 0.0: "0-1"}.get(black_score, "1/2-1/2")


def _seek_view(row: Any) -> dict[str, Any]:
    rating = Rating() if row["rating"] is None else Rating(row["rating"], min(row["deviation"], MAX_DEVIATION))
    return {
        "id": row["id"], "player": row["name"], "game": row["game"],
        "options": json.loads(row["options"]), "clock": None if row["clock"] is None else json.loads(row["clock"]),
        "color": row["color"], "rated": bool(row["rated"]), "pool": row["pool"], "created": row["created"],
        "rating": round(rating.rating), "display": rating.display(), "bot": bool(row["bot"]),
    }
