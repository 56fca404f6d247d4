"""The shapes of requests, answers and websocket frames, checked by pydantic.

Every body and frame the server accepts is one of these models; anything else
is refused with a code before it reaches a room.  The answers' models are what
``/openapi.json`` documents (:class:`ErrorBody` for every refusal).  This module
holds shapes only: no rules, no storage.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "Analysis",
    "AnalyseRequest",
    "ChatLog",
    "ChatMessage",
    "ClientFrame",
    "ClockRequest",
    "CreateRoom",
    "CreatedRoom",
    "ErrorBody",
    "Evaluation",
    "ImportRecord",
    "ImportedGame",
    "ImportedRecords",
    "JoinRoom",
    "Joined",
    "Lobby",
    "LobbyRoom",
    "RecordFormat",
    "RoomState",
    "client_frame",
]

SeatSpec = Annotated[str, Field(min_length=1, max_length=200)]
OptionValue = int | str | bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClockRequest(_Strict):
    """``initial`` seconds plus ``increment`` per move, or ``days`` per move (correspondence)."""

    initial: float = Field(300.0, gt=0, le=86400)
    increment: float = Field(0.0, ge=0, le=3600)
    days: Literal[1, 2, 3, 5, 7, 14] | None = Field(
        None, description="correspondence: days for each move (the other side may claim the win once they run out)"
    )


class CreateRoom(_Strict):
    game: Literal["reversi", "gomoku", "tictactoe"]
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    position: str | None = Field(None, max_length=2000)
    moves: list[Annotated[str, Field(min_length=1, max_length=16)]] = Field(
        default_factory=list,
        max_length=400,
        description="moves played from the position before the game goes on (a game imported from a record)",
    )
    seats: dict[Literal["black", "white"], SeatSpec] = Field(default_factory=dict)
    clock: ClockRequest | None = None
    mode: Literal["local", "online"] = "online"
    as_: Literal["black", "white", "random"] = Field("black", alias="as")
    listed: bool = False


class CreatedRoom(BaseModel):
    room: str
    tokens: dict[str, str]
    invite: str | None


class JoinRoom(_Strict):
    invite: str | None = Field(None, max_length=200)


class Joined(BaseModel):
    seat: str
    token: str


class AnalyseRequest(_Strict):
    game: Literal["reversi", "gomoku", "tictactoe"]
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    position: str | None = Field(None, max_length=2000)
    moves: list[Annotated[str, Field(max_length=16)]] = Field(default_factory=list, max_length=400)
    seconds: float = Field(1.0, gt=0, le=10)


# -- answers -------------------------------------------------------------------------------------
class ErrorBody(BaseModel):
    """The body of every refused HTTP request, validation errors (422) included."""

    code: str = Field(description="what went wrong, for programs", examples=["unknown_room"])
    message: str = Field(description="one line for people", examples=["there is no room 'x'"])
    detail: str = Field(description="the message again, where FastAPI clients look for it")


class LobbyRoom(BaseModel):
    id: str
    game: str
    options: dict[str, OptionValue]
    seats: dict[str, str]
    clock: dict[str, float | bool | None] | None
    created: float


class Lobby(BaseModel):
    """Listed rooms waiting for a player."""

    rooms: list[LobbyRoom]


class SeatView(BaseModel):
    kind: str = Field(description='"human" or the computer player\'s SPEC')
    connected: bool
    taken: bool


class OutcomeView(BaseModel):
    winner: Literal["black", "white"] | None
    reason: str
    score: list[int]
    discs: list[int] | None = None
    cells: list[str] = Field(default_factory=list, description="the winning line")


Color = Literal["black", "white"]


class PlayerView(BaseModel):
    name: str = Field(description="the signed-in player (their page: /@/NAME)")
    bot: bool = Field(False, description="a bot account, played by a program (shown as BOT before the name)")
    rating: int = Field(description="the rating in the pool the player brought to this game, rounded")
    display: str = Field(description='that rating as shown, "1500?" while provisional (RD above 110)', examples=["1500?"])
    after: str | None = Field(description="the rating after this rated game, as shown; null until it is stored")
    change: int | None = Field(description="after less before, both rounded; null until the change is stored")


class TournamentLink(BaseModel):
    id: str
    name: str


class RoomPlayers(BaseModel):
    """The signed-in players of a room made from a seek, Play now, a challenge or a tournament."""

    pool: str
    rated: bool
    tournament: TournamentLink | None = Field(None, description="the tournament this game is part of")
    black: PlayerView
    white: PlayerView


class RoomState(BaseModel):
    """A room as ``GET /api/rooms/{id}`` and the ``state`` frame show it (never a token; docs/wire.md)."""

    model_config = ConfigDict(extra="allow")

    id: str
    game: str
    options: dict[str, OptionValue]
    start_position: str | None
    mode: str
    listed: bool
    position: str
    moves: list[str]
    turn: Color | None = Field(description="null once the game is over")
    legal: list[str]
    forbidden: list[str] = Field(description="Renju: Black's forbidden points when Black is to move")
    outcome: OutcomeView | None
    version: int
    clocks: dict[str, float] | None
    clock_running: Color | None = Field(
        None, description="whose clock runs now: null before that side's first move online, and at the end"
    )
    moved: dict[str, bool] = Field(
        default_factory=dict, description="per colour: that side has moved (until both have, either may abort)"
    )
    seats: dict[str, SeatView]
    takeback_from: Color | None
    draw_from: Color | None
    opening: dict[str, Any] | None
    actor: Color | None
    thinking: Color | None
    watchers: int
    away: dict[str, float] = Field(
        default_factory=dict,
        description="the players gone from a live online game: seconds until the other may claim the win or abort",
    )
    rematch: str | None = Field(description="the rematch room's id")
    players: RoomPlayers | None = Field(None, description="null unless signed-in players sit in both seats")


class ChatMessage(BaseModel):
    """One chat message: text only (pages show it as text, never as markup)."""

    id: int = Field(description="rises through the room's chat")
    channel: Literal["players", "spectators"]
    seat: Color | None = Field(description="the colour a player wrote as; null for a spectator")
    author: str = Field(description='who wrote it, as pages mute them: "@NAME", "ROOM:black" or "guest-XXXXXX"')
    name: str = Field(description="the name shown")
    text: str
    at: float = Field(description="when it was written, in seconds since 1970")


class ChatLog(BaseModel):
    """A room's chat, oldest first: the players' and the spectators' messages (docs/wire.md, "Chat")."""

    messages: list[ChatMessage]


RecordFormat = Literal["ggf", "obf", "psq", "sgf", "transcript"]
"""The names of :func:`tabletop.records.formats` (a test keeps the two equal)."""


class ImportRecord(_Strict):
    """A record to read: its text, and its format (else told by ``filename``'s extension or the text)."""

    text: str = Field(min_length=1, max_length=1_000_000)
    format: RecordFormat | None = None
    filename: str | None = Field(None, max_length=300)
    game: Literal["reversi", "gomoku", "tictactoe"] | None = Field(
        None, description="the game of a transcript, which does not name it (else Reversi, then Gomoku)"
    )
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)


class ImportedGame(BaseModel):
    game: str
    options: dict[str, OptionValue]
    start_position: str | None = Field(description="null for the game's standard start")
    position: str = Field(description="the start position's text (the standard one included)")
    moves: list[str] = Field(description="forced Reversi passes written out")
    tags: dict[str, str]
    result: str | None


class ImportedRecords(BaseModel):
    """The games of an imported record, to review or to go on from in a room (``POST /api/rooms`` with ``moves``)."""

    format: RecordFormat
    games: list[ImportedGame]


class Evaluation(BaseModel):
    scores: list[float | None] = Field(
        description="one per ply (0: the start), from Black's side; null where the engine gave none"
    )


class MoveScore(BaseModel):
    model_config = ConfigDict(extra="allow")

    move: str
    score: float
    exact: bool
    book: bool = False


class Analysis(BaseModel):
    """The engine's analysis of a position (``Analysis.to_dict()``)."""

    model_config = ConfigDict(extra="allow")

    scores: list[MoveScore] = Field(description="best first, from the mover's side")
    pv: list[str]
    depth: int
    nodes: int
    seconds: float
    forced_win: list[str] | None


# -- websocket frames from clients ----------------------------------------------------------------
Token = Annotated[str, Field(min_length=1, max_length=200)]


class _Frame(_Strict):
    """A client frame: no coercion, so ``"seq": "7"``, ``"seq": true`` or ``"accept": "yes"`` is a
    bad frame rather than a number or a yes the client did not send."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_Frame):
    type: Literal["hello"]
    token: Token | None = None
    tokens: list[Token] | None = Field(None, max_length=2)
    since: int | None = Field(None, ge=0)


class MoveFrame(_Frame):
    type: Literal["move"]
    move: str = Field(min_length=1, max_length=16)
    seq: int | None = Field(None, ge=0, le=2**62)


class Answerable(_Frame):
    accept: bool | None = None


class TakebackFrame(Answerable):
    type: Literal["takeback"]


class DrawFrame(Answerable):
    type: Literal["draw"]


class ChooseFrame(_Frame):
    """The opening's colour choice: ``black``, ``white`` or (swap2) ``place``."""

    type: Literal["choose"]
    choice: Literal["black", "white", "place"]


class ChatFrame(_Frame):
    """A chat message (docs/wire.md, "Chat"); its length is checked by the chat, which names the rule.
    ``guest``: the key a guest spectator's browser keeps, from which its handle is made."""

    type: Literal["chat"]
    text: str = Field(max_length=4096)
    guest: str | None = Field(None, min_length=16, max_length=64)


class SimpleFrame(_Frame):
    type: Literal["undo", "redo", "resign", "rematch", "hint", "ping", "abort", "claim_abandoned", "claim_time"]


ClientFrame = Annotated[
    Hello | MoveFrame | TakebackFrame | DrawFrame | ChooseFrame | ChatFrame | SimpleFrame,
    Field(discriminator="type"),
]
client_frame: TypeAdapter[
    Hello | MoveFrame | TakebackFrame | DrawFrame | ChooseFrame | ChatFrame | SimpleFrame
] = TypeAdapter(ClientFrame)
