"""Bot accounts, challenges, and the event stream a bot reads (in the style of Lichess's Bot API).

A player turns a fresh account (no game played, none waiting) into a bot with :meth:`Bots.upgrade`,
which answers an API token: a session that lasts :data:`BOT_TOKEN_DAYS` days, sent as
``Authorization: Bearer TOKEN``.  A bot is marked as such wherever its name is shown (the ``bots``
table; :func:`bot_ids` answers which of some players are bots).  A bot accepts challenges and
seeks, never posts a seek and is never paired by Play now: it may not take a seek Play now posted.

A challenge is one player's offer of a game to another (:class:`Challenges`): it waits in the
``challenges`` table until the challenged player accepts or declines it or the challenger cancels
it, each a single ``UPDATE ... WHERE status = 'open'``, so of two answers at once exactly one
counts.  Accepting starts an ordinary online room with a ``room_players`` row, rated in the pool of
its game and clock like a seek's game; each player takes their seat with ``POST
/api/rooms/{id}/seat`` (:func:`~.correspondence.reseat`).

:class:`EventStream` is one bot's stream (``GET /api/bot/stream``, one JSON object a line):
``challenge`` and ``challenge_cancelled``; ``game_started`` for each game that starts (from a challenge,
a seek or a tournament's pairing) and, on every
(re)connection, for each of its games in progress, with a fresh seat token for the room's socket
(the token of an earlier line stops opening the seat); ``game_state`` after each change of such a
game (a move, a takeback, an offer); and ``game_ended``.  A blank line every
:data:`KEEPALIVE` seconds tells the bot the connection lives.  The stream learns of changes from
the bus (the players' channels ``~player:ID``, the lobby's and the rooms'), so it works the same
when another server process made them.

This module knows no HTTP: :mod:`.routers.bots` reads the requests.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.games import new_board
from tabletop.ratings import pool_for
from tabletop.server.accounts import AccountError, Player
from tabletop.server.bus import Broadcast, encode_frame, frame
from tabletop.server.correspondence import my_games, reseat
from tabletop.server.rooms import RoomHub
from tabletop.server.seats import hash_secret
from tabletop.server.store import (
    SqlStore,
    bots_table,
    challenges_table,
    players_table,
    ratings_table,
    room_players_table,
    seeks_table,
    sessions_table,
)

__all__ = [
    "BOT_TOKEN_DAYS",
    "BotError",
    "Bots",
    "Challenges",
    "EventStream",
    "bot_ids",
    "player_channel",
]

BOT_TOKEN_DAYS = 365
KEEPALIVE = 10.0  # seconds between the blank lines that keep a quiet stream open
MAX_OPEN_CHALLENGES = 10  # a challenger's open challenges


class BotError(AccountError):
    """A refused bot or challenge request (the server's one error body)."""


def player_channel(player_id: str) -> str:
    """The bus channel of one player's challenges ('~' is in no room id)."""
    return f"~player:{player_id}"


def bot_ids(conn: Connection, player_ids: set[str] | list[str]) -> set[str]:
    """Which of ``player_ids`` are bots."""
    ids = list(player_ids)
    if not ids:
        return set()
    return {r[0] for r in conn.execute(sa.select(bots_table.c.player_id).where(bots_table.c.player_id.in_(ids)))}


def is_bot_column() -> Any:
    """A column for a query over ``players``: whether the player is a bot."""
    return sa.exists().where(bots_table.c.player_id == players_table.c.id).label("bot")


# -- transactions (run by the store's writer; module-level so they cross to it by name) -------------------------
def _make_bot(conn: Connection, player_id: str, token_hash: str, now: float) -> str | None:
    """Turn the player into a bot with an API token; None, or why it may not."""
    if conn.execute(sa.select(bots_table.c.player_id).where(bots_table.c.player_id == player_id)).first():
        return "already_bot"
    rp = room_players_table.c
    played = conn.execute(sa.select(rp.room_id).where(sa.or_(rp.black == player_id, rp.white == player_id))
                          .limit(1)).first()
    rated = conn.execute(sa.select(ratings_table.c.pool).where(ratings_table.c.player_id == player_id)
                         .limit(1)).first()
    seeking = conn.execute(sa.select(seeks_table.c.id).where(seeks_table.c.player_id == player_id).limit(1)).first()
    if played or rated or seeking:
        return "not_fresh"
    conn.execute(bots_table.insert().values(player_id=player_id, since=now))
    conn.execute(sessions_table.insert().values(
        token_hash=token_hash, player_id=player_id, expires=now + BOT_TOKEN_DAYS * 86400))
    return None


def _insert_challenge(conn: Connection, values: dict[str, Any]) -> bool:
    c = challenges_table.c
    open_ones = conn.execute(sa.select(sa.func.count()).select_from(challenges_table).where(
        c.challenger == values["challenger"], c.status == "open")).scalar_one()
    if open_ones >= MAX_OPEN_CHALLENGES:
        return False
    conn.execute(challenges_table.insert().values(**values))
    return True


def _close_challenge(conn: Connection, challenge_id: str, who: str, column: str, status: str) -> bool:
    """Set an open challenge's status, when ``who`` is its ``column`` (challenger or challenged): True
    for the one request that finds it open."""
    c = challenges_table.c
    changed = conn.execute(challenges_table.update().where(
        c.id == challenge_id, c.status == "open", getattr(c, column) == who).values(status=status))
    return changed.rowcount == 1


def _seat_challenge(conn: Connection, challenge_id: str, room_id: str, players: dict[str, str], pool: str,
                    rated: bool) -> None:
    conn.execute(room_players_table.insert().values(
        room_id=room_id, black=players["black"], white=players["white"], pool=pool, rated=rated))
    conn.execute(challenges_table.update().where(challenges_table.c.id == challenge_id).values(room_id=room_id))


def _reopen_challenge(conn: Connection, challenge_id: str) -> None:
    conn.execute(challenges_table.update().where(challenges_table.c.id == challenge_id).values(status="open"))


class Bots:
    """Which players are bots, and turning a fresh account into one."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    async def _read(self, function: Callable[[Connection], Any]) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as conn:
                return function(conn)

        return await self.store.read(read)

    async def is_bot(self, player: Player) -> bool:
        return bool(await self._read(lambda conn: bot_ids(conn, [player.id])))

    async def upgrade(self, player: Player) -> str:
        """Make ``player`` a bot; its API token.  409 ``already_bot`` or ``not_fresh`` (a game
        played or waiting: a bot's record is its program's from the first game)."""
        token = secrets.token_urlsafe(32)
        refused = await self.store.call(_make_bot, player.id, hash_secret(token), time.time())
        if refused == "already_bot":
            raise BotError("already_bot", f"{player.name} is a bot already", 409)
        if refused is not None:
            raise BotError("not_fresh", "only an account that has played no game (and seeks none) may become a bot",
                           409)
        return token

    async def refuse(self, player: Player, doing: str) -> None:
        """403 ``bot_account`` when ``player`` is a bot: bots do not ``doing``."""
        if await self.is_bot(player):
            raise BotError("bot_account", f"a bot does not {doing}; it accepts challenges and seeks", 403)


class Challenges:
    """Offers of a game from one player to another, and the games they start."""

    def __init__(self, hub: RoomHub) -> None:
        if not isinstance(hub.store, SqlStore):
            raise BotError("no_accounts", "this server keeps no players", 400)
        self.hub = hub
        self.store: SqlStore = hub.store

    async def _read(self, function: Callable[[Connection], Any]) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as conn:
                return function(conn)

        return await self.store.read(read)

    async def _notify(self, player_id: str, kind: str, **data: Any) -> None:
        await self.hub.bus.publish(player_channel(player_id), Broadcast(kind, [frame(kind, **data)]))

    async def create(self, player: Player, to: str, game: str, options: dict[str, Any],
                     clock: dict[str, Any] | None, color: str, rated: bool) -> dict[str, Any]:
        """Challenge the player called ``to``; the challenge as :meth:`view` shows it."""
        try:
            new_board(game, options)
            pool = pool_for(game, options, clock)
        except (ValueError, TypeError) as exc:
            raise BotError("bad_challenge", str(exc), 400) from None
        if rated and clock is None:
            raise BotError("bad_challenge", "a rated game needs a clock", 400)
        found = await self._read(lambda conn: conn.execute(sa.select(players_table.c.id).where(
            players_table.c.name_key == to.lower())).first())
        if found is None:
            raise BotError("unknown_player", f"there is no player {to!r}", 404)
        if found[0] == player.id:
            raise BotError("bad_challenge", "you cannot challenge yourself", 400)
        challenge_id = secrets.token_urlsafe(12)
        values = {
            "id": challenge_id, "challenger": player.id, "challenged": found[0], "game": game,
            "options": json.dumps(options), "clock": None if clock is None else json.dumps(clock), "color": color,
            "rated": rated, "pool": pool.key, "created": time.time(), "status": "open",
        }
        if not await self.store.call(_insert_challenge, values):
            raise BotError("too_many_challenges", f"at most {MAX_OPEN_CHALLENGES} open challenges a player", 409)
        view = await self.view(challenge_id)
        await self._notify(found[0], "challenge", challenge=view)
        return view

    async def view(self, challenge_id: str, player: Player | None = None) -> dict[str, Any]:
        """The challenge (404 when there is none, or ``player`` is neither of its players)."""
        found = await self.list(challenge_id=challenge_id)
        if not found or (player is not None and player.name not in (found[0]["challenger"]["name"],
                                                                    found[0]["challenged"]["name"])):
            raise BotError("unknown_challenge", "there is no such challenge", 404)
        return found[0]

    async def list(self, *, challenge_id: str | None = None, player_id: str | None = None,
                   open_only: bool = False) -> list[dict[str, Any]]:
        """Challenges, newest first: one, or those ``player_id`` made or received."""
        c = challenges_table.c
        challenger, challenged = players_table.alias("challenger_player"), players_table.alias("challenged_player")

        def read(conn: Connection) -> list[dict[str, Any]]:
            query = (
                sa.select(challenges_table, challenger.c.name.label("challenger_name"),
                          challenged.c.name.label("challenged_name"))
                .join(challenger, challenger.c.id == c.challenger)
                .join(challenged, challenged.c.id == c.challenged)
                .order_by(c.created.desc()).limit(100)
            )
            if challenge_id is not None:
                query = query.where(c.id == challenge_id)
            if player_id is not None:
                query = query.where(sa.or_(c.challenger == player_id, c.challenged == player_id))
            if open_only:
                query = query.where(c.status == "open")
            rows = [dict(r) for r in conn.execute(query).mappings()]
            bots = bot_ids(conn, {r["challenger"] for r in rows} | {r["challenged"] for r in rows})
            return [_challenge_view(r, bots) for r in rows]

        found: list[dict[str, Any]] = await self._read(read)
        return found

    async def accept(self, player: Player, challenge_id: str) -> dict[str, Any]:
        """The challenged player accepts: the game starts; ``{"room", "seat", "token"}`` for them."""
        row = await self._row(challenge_id)
        if row is None or row["challenged"] != player.id:
            raise BotError("unknown_challenge", "no challenge with that id waits for your answer", 404)
        if not await self.store.call(_close_challenge, challenge_id, player.id, "challenged", "accepted"):
            raise BotError("challenge_closed", "this challenge was cancelled or answered already", 409)
        try:
            color = row["color"] if row["color"] != "random" else secrets.choice(["black", "white"])
            room, _tokens, invite = await self.hub.create(
                game=row["game"], options=json.loads(row["options"]), position=None, seats={},
                clock=None if row["clock"] is None else json.loads(row["clock"]), mode="online", as_=color,
                listed=False)
            seat, token = await self.hub.join(room.id, invite)
            players = {color: row["challenger"], seat: player.id}
            await self.store.call(_seat_challenge, challenge_id, room.id, players, row["pool"], bool(row["rated"]))
            await room.read_players()
        except Exception:
            await self.store.call(_reopen_challenge, challenge_id)
            raise
        for who in (row["challenger"], row["challenged"]):
            await self._notify(who, "challenge_accepted", id=challenge_id, room=room.id)
        return {"room": room.id, "seat": seat, "token": token}

    async def decline(self, player: Player, challenge_id: str) -> None:
        await self._close(player, challenge_id, "challenged", "declined")

    async def cancel(self, player: Player, challenge_id: str) -> None:
        await self._close(player, challenge_id, "challenger", "cancelled")

    async def _close(self, player: Player, challenge_id: str, column: str, status: str) -> None:
        row = await self._row(challenge_id)
        if row is None or row[column] != player.id:
            raise BotError("unknown_challenge", "you have no such challenge to answer or cancel", 404)
        if not await self.store.call(_close_challenge, challenge_id, player.id, column, status):
            raise BotError("challenge_closed", "this challenge was cancelled or answered already", 409)
        for who in (row["challenger"], row["challenged"]):
            await self._notify(who, "challenge_cancelled" if status == "cancelled" else "challenge_declined",
                               id=challenge_id)

    async def _row(self, challenge_id: str) -> Any:
        return await self._read(lambda conn: conn.execute(challenges_table.select().where(
            challenges_table.c.id == challenge_id)).mappings().first())


def _challenge_view(row: dict[str, Any], bots: set[str]) -> dict[str, Any]:
    # accepted while its room is being made: still open to whoever looks (it has no room to go to yet)
    status = "open" if row["status"] == "accepted" and row["room_id"] is None else row["status"]
    return {
        "id": row["id"], "status": status, "room": row["room_id"], "game": row["game"],
        "options": json.loads(row["options"]), "clock": None if row["clock"] is None else json.loads(row["clock"]),
        "color": row["color"], "rated": bool(row["rated"]), "pool": row["pool"], "created": row["created"],
        "challenger": {"name": row["challenger_name"], "bot": row["challenger"] in bots},
        "challenged": {"name": row["challenged_name"], "bot": row["challenged"] in bots},
    }


class EventStream:
    """One bot's event stream: :meth:`lines` yields NDJSON lines until the client goes away."""

    def __init__(self, hub: RoomHub, challenges: Challenges, player: Player, lobby_channel: str) -> None:
        """``lobby_channel``: the lobby's bus channel (:mod:`.lobby`), whose ``seek_taken`` starts games."""
        self.hub = hub
        self.lobby_channel = lobby_channel
        self.challenges = challenges
        self.player = player
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.watching: dict[str, Callable[[], None]] = {}  # room id -> its bus subscription

    def _put(self, kind: str, item: Any) -> None:
        self.queue.put_nowait((kind, item))

    async def lines(self) -> AsyncIterator[str]:
        bus = self.hub.bus
        stops = [
            bus.subscribe(player_channel(self.player.id), lambda b: self._put("player", b)),
            bus.subscribe(self.lobby_channel, lambda b: self._put("lobby", b)),
        ]
        try:
            for challenge in await self.challenges.list(player_id=self.player.id, open_only=True):
                if challenge["challenged"]["name"] == self.player.name:
                    yield _line("challenge", challenge=challenge)
            for game in await my_games(self.hub, self.player.id):
                async for line in self._start(game.room):
                    yield line
            while True:
                try:
                    kind, item = await asyncio.wait_for(self.queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield "\n"
                    continue
                async for line in self._handle(kind, item):
                    yield line
        finally:
            for stop in stops + list(self.watching.values()):
                stop()
            self.watching.clear()

    async def _handle(self, kind: str, item: Any) -> AsyncIterator[str]:
        if kind == "room":
            room_id, broadcast = item
            if broadcast.kind == "events" and room_id in self.watching:
                async for line in self._state(room_id):
                    yield line
            return
        for data in item.frames:
            if kind == "lobby" and data.get("event") == "seek_taken" and data.get("room"):
                if await self._plays_in(str(data["room"])):
                    async for line in self._start(str(data["room"])):
                        yield line
            elif kind == "player" and data["type"] == "challenge":
                yield _line("challenge", challenge=data["challenge"])
            elif kind == "player" and data["type"] in ("challenge_cancelled", "challenge_declined"):
                yield _line(data["type"], id=data["id"])
            elif kind == "player" and data["type"] in ("challenge_accepted", "tournament_game"):
                async for line in self._start(str(data["room"])):
                    yield line

    async def _plays_in(self, room_id: str) -> bool:
        def read(conn: Connection) -> Any:
            return conn.execute(room_players_table.select().where(room_players_table.c.room_id == room_id)).first()

        row = await self.challenges._read(read)
        return row is not None and self.player.id in (row.black, row.white)

    async def _start(self, room_id: str) -> AsyncIterator[str]:
        """``game_started`` for a game of the bot (with a new seat token), and watch its room."""
        if room_id in self.watching:
            return
        room = await self.hub.get(room_id)
        if room is None:
            return
        color, token = await reseat(self.hub, self.player.id, room_id)
        self.watching[room_id] = self.hub.bus.subscribe(room_id, lambda b: self._put("room", (room_id, b)))
        await room.ensure_players()
        yield _line("game_started", room=room_id, color=color, token=token, state=room.state())
        if room.match.is_over():
            async for line in self._state(room_id):
                yield line

    async def _state(self, room_id: str) -> AsyncIterator[str]:
        room = await self.hub.get(room_id)
        if room is None:
            return
        if room.match.is_over():
            await room.ensure_players()  # the rating change, committed with the last action
            self.watching.pop(room_id, lambda: None)()
            state = room.state()
            yield _line("game_ended", room=room_id, outcome=state["outcome"], state=state)
        else:
            yield _line("game_state", room=room_id, state=room.state())


def _line(kind: str, **data: Any) -> str:
    return encode_frame({"type": kind, **data}) + "\n"
