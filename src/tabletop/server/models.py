"""The shapes of requests and websocket frames, checked by pydantic.

Every body and frame the server accepts is one of these models; anything else
is refused with a code before it reaches a room.  This module holds shapes
only: no rules, no storage.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "ClientFrame",
    "ClockRequest",
    "CreateRoom",
    "CreatedRoom",
    "JoinRoom",
    "Joined",
    "AnalyseRequest",
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
    days: float | None = Field(None, gt=0, le=30)


class CreateRoom(_Strict):
    game: Literal["reversi", "gomoku", "tictactoe"]
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    position: str | None = Field(None, max_length=2000)
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


# -- websocket frames from clients ----------------------------------------------------------------
Token = Annotated[str, Field(min_length=1, max_length=200)]


class Hello(_Strict):
    type: Literal["hello"]
    token: Token | None = None
    tokens: list[Token] | None = Field(None, max_length=2)
    since: int | None = Field(None, ge=0)


class MoveFrame(_Strict):
    type: Literal["move"]
    move: str = Field(min_length=1, max_length=16)
    seq: int | None = Field(None, ge=0, le=2**62)


class Answerable(_Strict):
    accept: bool | None = None


class TakebackFrame(Answerable):
    type: Literal["takeback"]


class DrawFrame(Answerable):
    type: Literal["draw"]


class ChooseFrame(_Strict):
    """The opening's colour choice: ``black``, ``white`` or (swap2) ``place``."""

    type: Literal["choose"]
    choice: Literal["black", "white", "place"]


class SimpleFrame(_Strict):
    type: Literal["undo", "redo", "resign", "rematch", "hint", "ping"]


ClientFrame = Annotated[
    Hello | MoveFrame | TakebackFrame | DrawFrame | ChooseFrame | SimpleFrame, Field(discriminator="type")
]
client_frame: TypeAdapter[Hello | MoveFrame | TakebackFrame | DrawFrame | ChooseFrame | SimpleFrame] = (
    TypeAdapter(ClientFrame)
)
