"""``tabletop bot``: play an NBoard or Gomocup engine as a bot account of a tabletop server.

The bot reads its event stream (``GET /api/bot/stream``, one JSON object a line, docs/wire.md
"Bots"), accepts the challenges its engine can play and declines the others, and plays each game
on the room's socket with the seat token of its ``game_started`` line, as a browser does: it asks
the room's state when the turn changes, gives the position to its engine (a process of its own per
game, the manager-side clients of :mod:`tabletop.protocols`) and sends the move with its ply as
``seq``, so a move sent again after a reconnection is not played twice.  Draw offers and takeback
requests are declined; an engine that fails on a game three times in a row resigns it.  Each game
under way has an engine process of its own; a finished game's engine plays the bot's next game (a
fresh one spends seconds loading before its first move; the bot loads one as it starts), and an
engine that failed a move is replaced.

A dropped connection is retried every few seconds, the stream's and each game's alike; on each new
stream connection the server sends ``game_started`` again for every game in progress with a fresh
token, and the game goes on from the room's state.  ``--games N`` ends the bot after N finished
games (tests, one-off matches); by default it runs until interrupted.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tabletop.cli import CliError

__all__ = ["Bot", "register", "run"]

log = logging.getLogger("tabletop.bot")

ENGINES = {"nboard": ("reversi",), "gomocup": ("gomoku",)}
RETRY = 2.0  # seconds between tries to reconnect
ENGINE_TRIES = 3  # an engine failing this many times in a row on one game resigns it
STREAM_SILENCE = 30.0  # seconds without a line (the server sends one every 10) before the stream is dropped
IDLE_ENGINES = 2  # engines of finished games kept running for the next ones
ENGINE_BACK_WAIT = 3.0  # seconds a new game waits for the engine of a game that has just ended
RATE_WAIT = 1.1  # seconds before a move the server refused as a frame too many this second is sent again
WARM_UP_SECONDS = 30.0  # the most an engine may take to load and answer its first, empty, position
WARM_UP_GAMES = {"nboard": "reversi", "gomocup": "gomoku"}  # the usual game of each kind of engine
TOKEN_VARIABLE = "TABLETOP_BOT_TOKEN"


def register(sub: Any) -> None:
    p = sub.add_parser("bot", help="connect an NBoard or Gomocup engine to a server as a bot account")
    p.add_argument("--server", required=True, help="the server's address, like http://localhost:8000")
    p.add_argument("--token", default=None,
                   help="the bot's API token (POST /api/account/bot answers it); by default the environment's "
                        f"{TOKEN_VARIABLE}, which other users of the machine cannot read in the process list")
    p.add_argument("--engine", required=True,
                   help='nboard:"COMMAND" (Reversi 8x8) or gomocup:"COMMAND" (Gomoku), like '
                        "nboard:\"tabletop engine nboard --level 3\"")
    p.add_argument("--seconds", type=float, default=5.0,
                   help="the most seconds to think on a move (less when the clock is short; default 5)")
    p.add_argument("--games", type=int, default=None, help="stop after this many finished games")
    p.set_defaults(func=run)


def engine_kind(spec: str) -> str:
    """``nboard`` or ``gomocup`` for an engine SPEC; :class:`CliError` for anything else."""
    kind, _, command = spec.partition(":")
    if kind not in ENGINES or not command.strip():
        raise CliError(f'--engine must be nboard:"COMMAND" or gomocup:"COMMAND", not {spec!r}')
    return kind


def can_play(kind: str, challenge: dict[str, Any]) -> bool:
    """Whether an engine of ``kind`` plays the game of ``challenge`` (NBoard: Reversi 8x8;
    Gomocup: Gomoku without an opening rule)."""
    game, options = challenge["game"], challenge.get("options") or {}
    if game not in ENGINES[kind]:
        return False
    if game == "reversi":
        return int(options.get("size", 8)) == 8
    return not options.get("opening")


def move_seconds(state: dict[str, Any], color: str, most: float) -> float:
    """The time to think on a move: ``most``, or a 30th of the time left on a shorter clock."""
    clocks = state.get("clocks") or {}
    left = clocks.get(color)
    if left is None:
        return most
    return max(0.05, min(most, float(left) / 30))


class Game:
    """One game of the bot: a thread that holds the room's socket and plays the engine's moves."""

    def __init__(self, bot: Bot, room: str, color: str, token: str) -> None:
        self.bot = bot
        self.room = room
        self.color = color
        self.token = token
        self.token_changed = threading.Event()
        self.done = threading.Event()
        self.player: Any = None
        self.engine_failures = 0  # in a row
        self.sent_seq: int | None = None  # the number of the last move sent
        self.thread = threading.Thread(target=self._run, name=f"game {room}", daemon=True)

    def new_token(self, token: str) -> None:
        """The stream gave a fresh token (after a reconnection): the socket reconnects with it."""
        self.token = token
        self.token_changed.set()

    def _run(self) -> None:
        self.player = self.bot.take_engine()
        try:
            while not self.done.is_set() and not self.bot.stopping.is_set():
                try:
                    self._play_on_socket()
                except Exception as exc:  # noqa: BLE001 - a dropped socket or a failed request: try again
                    if self.done.is_set():
                        break
                    log.warning("room %s: %s; reconnecting", self.room, exc)
                    self.token_changed.wait(RETRY)
        finally:
            self.bot.give_back_engine(self.player, healthy=self.engine_failures == 0)
            self.bot.finished(self)

    def _play_on_socket(self) -> None:
        from websockets.sync.client import connect

        self.token_changed.clear()
        with connect(self.bot.ws_url(f"/api/rooms/{self.room}/ws"), open_timeout=10) as ws:
            self._serve(ws)

    def _serve(self, ws: Any) -> None:
        """Say hello on the room's socket ``ws``, then play each turn its frames announce, until the
        game ends or the token changes."""
        ws.send(json.dumps({"type": "hello", "token": self.token}))
        self._think(ws)  # the room as it is now (a move may be due)
        while not self.done.is_set():
            if self.token_changed.is_set():
                return  # reconnect with the new token
            try:
                text = ws.recv(timeout=1.0)
            except TimeoutError:
                continue
            frame = json.loads(text)
            kind = frame.get("type")
            if kind == "error" and frame.get("code") == "bad_token":
                self.token_changed.wait(STREAM_SILENCE)  # the stream sends a new one after its reconnection
                return
            if kind == "error" and frame.get("code") == "rate_limited" and frame.get("seq") == self.sent_seq:
                # the server takes so many frames a second from a connection (a quick engine against
                # another reaches it) and drops the move: once the second has passed, the move is
                # chosen and sent again, same number, if it is still due
                if self.done.wait(RATE_WAIT):
                    return
                self._think(ws)
                continue
            if kind != "event":
                continue
            event = frame["event"]
            if event.get("kind") == "game_ended":
                self.done.set()
            elif event.get("kind") in ("takeback_requested", "draw_offered") and event.get("color") != self.color:
                answer = "takeback" if event["kind"] == "takeback_requested" else "draw"
                ws.send(json.dumps({"type": answer, "accept": False}))
            elif event.get("kind") in ("turn_changed", "move_undone", "colors_chosen"):
                self._think(ws)

    def _new_engine(self) -> None:
        """Replace the engine's process by a fresh one.  After a failed move (no answer in time, an
        error) its answers may be out of step with the questions, a late reply read as the answer to
        the next one; a fresh process is given the room's whole position."""
        self.bot.give_back_engine(self.player, healthy=False)
        self.player = self.bot.take_engine()

    def _think(self, ws: Any) -> None:
        """Play the engine's move if it is the bot's turn in the room's state."""
        from tabletop.ai.base import Limit
        from tabletop.games import new_board

        state = self.bot.get(f"/api/rooms/{self.room}")
        if state.get("outcome") is not None:
            self.done.set()
            return
        actor = state.get("actor") or state.get("turn")
        if actor != self.color or not state.get("legal"):
            return
        board = new_board(state["game"], state.get("options") or {}, state.get("start_position"))
        for text in state["moves"]:
            board.push(text)
        try:
            move = self.player.choose(board, Limit(seconds=move_seconds(state, self.color, self.bot.seconds)))
        except Exception as exc:
            self.engine_failures += 1
            self._new_engine()
            if self.engine_failures >= ENGINE_TRIES:  # an engine that cannot play this game resigns it
                self.bot.out(f"game {self.room}: the engine failed {ENGINE_TRIES} times ({exc}); resigning")
                ws.send(json.dumps({"type": "resign"}))
            raise
        self.engine_failures = 0
        self.sent_seq = len(state["moves"]) + 1
        ws.send(json.dumps({"type": "move", "move": str(move), "seq": self.sent_seq}))


class Bot:
    """The bot's event stream and its games."""

    def __init__(self, server: str, token: str, engine: str, seconds: float = 5.0,
                 games: int | None = None, out: Callable[[str], None] = print) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.engine = engine
        self.kind = engine_kind(engine)
        self.seconds = seconds
        self.games_left = games
        self.out = out
        self.games: dict[str, Game] = {}
        self.finished_rooms: set[str] = set()
        self.lock = threading.Lock()
        self.engine_back = threading.Condition(self.lock)  # notified when an engine becomes idle
        self.stopping = threading.Event()
        # engines of finished games, kept running for the next game: a fresh process spends seconds
        # loading before its first move, which a short clock pays for
        self.idle_engines: list[Any] = []
        self._http_lock = threading.Lock()
        self._http: Any = None  # one HTTP client for every request (httpx.Client, made at the first)

    def take_engine(self) -> Any:
        """An engine for a new game: one a finished game left running, or a new one (a new position
        is given to it whole, RESTART/BOARD or BEGIN, by the protocol's player)."""
        from tabletop.players import player

        with self.lock:
            # a game that just ended gives its engine back within a second or two: the next game,
            # often paired at once (an arena), waits for it rather than start a cold one
            if any(game.done.is_set() for game in self.games.values()):
                self.engine_back.wait_for(lambda: bool(self.idle_engines), timeout=ENGINE_BACK_WAIT)
            if self.idle_engines:
                return self.idle_engines.pop()
        return player(self.engine)

    def warm_up(self) -> None:
        """Start an engine and let it load, by asking its move in the empty position of its usual
        game with time to spare, and keep it for the first game: that game's first move then does not
        wait for the loading (seconds on a busy machine, more than a short clock's move allows)."""
        from tabletop.ai.base import Limit
        from tabletop.games import new_board

        engine = self.take_engine()
        try:
            engine.choose(new_board(WARM_UP_GAMES[self.kind], {}), Limit(seconds=WARM_UP_SECONDS))
        except Exception as exc:  # noqa: BLE001 - the first game starts an engine of its own
            self.out(f"the engine did not warm up: {exc}")
            self.give_back_engine(engine, healthy=False)
            return
        self.give_back_engine(engine, healthy=True)
        self.out("the engine is ready")

    def give_back_engine(self, engine: Any, healthy: bool) -> None:
        """Keep a game's engine for the next game, or stop it when it failed or the bot stops."""
        with self.lock:
            if healthy and not self.stopping.is_set() and len(self.idle_engines) < IDLE_ENGINES:
                self.idle_engines.append(engine)
                self.engine_back.notify_all()
                return
        close = getattr(engine, "close", None)
        if close is not None:
            close()

    # -- HTTP ---------------------------------------------------------------------------------------
    def ws_url(self, path: str) -> str:
        return "ws" + self.server.removeprefix("http") + path

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"}

    def _client(self) -> Any:
        """The bot's HTTP client, shared by its games' threads: a new client per request (``httpx.get``)
        builds its TLS context each time, some 45 ms of processor time at every turn of every game."""
        import httpx

        with self._http_lock:
            if self._http is None:
                self._http = httpx.Client(timeout=30)
            return self._http

    def get(self, path: str) -> dict[str, Any]:
        answer = self._client().get(self.server + path, headers=self._headers())
        answer.raise_for_status()
        found: dict[str, Any] = answer.json()
        return found

    def post(self, path: str) -> Any:
        return self._client().post(self.server + path, headers=self._headers())

    def lines(self) -> Iterator[dict[str, Any]]:
        """The stream's events (``{}`` for each keep-alive), until it drops (``httpx`` errors) or
        the server refuses it."""
        import httpx

        timeout = httpx.Timeout(10.0, read=STREAM_SILENCE)
        with httpx.stream("GET", self.server + "/api/bot/stream", headers=self._headers(), timeout=timeout) as answer:
            if answer.status_code in (401, 403):
                answer.read()
                raise CliError(f"the server refused the bot's stream: {answer.json().get('message', answer.text)}")
            answer.raise_for_status()
            for line in answer.iter_lines():
                yield json.loads(line) if line.strip() else {}  # {}: the keep-alive, a moment to stop

    # -- events -------------------------------------------------------------------------------------
    def run(self) -> int:
        """Read the stream, reconnecting after a drop, until ``--games`` games have finished."""
        threading.Thread(target=self.warm_up, name="engine warm-up", daemon=True).start()
        while not self.stopping.is_set():
            try:
                for event in self.lines():
                    self.handle(event)
                    if self.stopping.is_set():
                        break
            except CliError:
                raise
            except Exception as exc:  # noqa: BLE001 - the connection dropped or the server is away
                if not self.stopping.is_set():
                    self.out(f"stream: {exc.__class__.__name__}: {exc}; reconnecting in {RETRY:g} s")
                    self.stopping.wait(RETRY)
        for game in list(self.games.values()):
            game.thread.join(timeout=10)
        with self.lock:
            idle, self.idle_engines = self.idle_engines, []
        for engine in idle:
            close = getattr(engine, "close", None)
            if close is not None:
                close()
        with self._http_lock:
            if self._http is not None:
                self._http.close()
                self._http = None
        return 0

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = event["challenge"]
            verb = "accept" if can_play(self.kind, challenge) else "decline"
            answer = self.post(f"/api/challenges/{challenge['id']}/{verb}")
            self.out(f"challenge {challenge['id']} from {challenge['challenger']['name']} "
                     f"({challenge['game']}): {verb} -> {answer.status_code}")
        elif kind == "game_started":
            room = event["room"]
            with self.lock:
                game = self.games.get(room)
                if room in self.finished_rooms:
                    return
                if game is not None:
                    game.new_token(event["token"])
                    return
                game = self.games[room] = Game(self, room, event["color"], event["token"])
            self.out(f"game {room}: playing {event['color']}")
            game.thread.start()
        elif kind == "game_ended":
            with self.lock:
                game = self.games.get(event["room"])
            if game is not None:
                game.done.set()

    def finished(self, game: Game) -> None:
        """A game's thread ended: count it, and stop after ``--games`` of them."""
        with self.lock:
            if self.games.pop(game.room, None) is None:
                return
            self.finished_rooms.add(game.room)
            self.out(f"game {game.room}: over")
            if self.games_left is not None:
                self.games_left -= 1
                if self.games_left <= 0:
                    self.stopping.set()


def run(args: argparse.Namespace) -> int:
    if not args.server.startswith(("http://", "https://")):
        raise CliError(f"--server must start with http:// or https://, not {args.server!r}")
    if not 0.01 <= args.seconds <= 3600:
        raise CliError(f"--seconds must be 0.01..3600, not {args.seconds:g}")
    if args.games is not None and args.games < 1:
        raise CliError(f"--games must be at least 1, not {args.games}")
    token = args.token if args.token is not None else os.environ.get(TOKEN_VARIABLE, "")
    if not token.strip():
        raise CliError(f"the bot's token is missing: give --token TOKEN or set {TOKEN_VARIABLE}")
    bot = Bot(args.server, token, args.engine, args.seconds, args.games,
              out=lambda text: print(text, flush=True))
    try:
        return bot.run()
    finally:
        bot.stopping.set()
