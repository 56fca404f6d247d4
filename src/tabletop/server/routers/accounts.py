"""Accounts over REST: sign up, sign in, sign out, and who is signed in.

The session token travels only in the ``tabletop_session`` cookie (HttpOnly, SameSite=Lax, Secure
behind HTTPS); no answer carries it, a password or a hash.  Refusals are
:class:`~tabletop.server.accounts.AccountError` s, answered with the one error body.  Other routers
name the signed-in player as a dependency: ``player: SignedIn`` (401 when there is none) or
``player: MaybeSignedIn``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from tabletop.server.accounts import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    NAME_RULE,
    PASSWORD_RULE,
    AccountError,
    Accounts,
    Player,
)
from tabletop.server.bots import Bots
from tabletop.server.rooms import RoomHub
from tabletop.server.routers.deps import Hub, lobby_of, service_of
from tabletop.server.routers.responses import errors
from tabletop.server.store import SqlStore

__all__ = ["COOKIE", "MaybeSignedIn", "SignedIn", "accounts_of", "get_accounts", "router"]

router = APIRouter(prefix="/api", tags=["accounts"])
COOKIE = "tabletop_session"


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=40, description="3-20 letters, digits, '-' or '_'")
    password: str = Field(min_length=1, max_length=200, repr=False)


def _stated(rule: str) -> WrapValidator:
    """A field's own check (pattern, length) whose refusal states ``rule`` in words
    instead of pydantic's "String should match pattern '...'"."""

    def check(value: object, handler: ValidatorFunctionWrapHandler) -> object:
        try:
            return handler(value)
        except ValidationError:
            raise PydanticCustomError("rule", rule) from None

    return WrapValidator(check)


class NewAccount(BaseModel):
    """A name and password to sign up with: the schema states both rules, and a refusal
    states the broken one in words (a weak password is refused after the body is read)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{3,20}$", description=NAME_RULE), _stated(NAME_RULE)]
    password: Annotated[
        str, Field(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD, repr=False, description=PASSWORD_RULE),
        _stated(PASSWORD_RULE),
    ]


class Me(BaseModel):
    """The signed-in player."""

    name: str


class SessionState(BaseModel):
    """Who this browser's session is: a name, or null when signed out."""

    name: str | None
    bot: bool = Field(False, description="the account is a bot")


def accounts_of(app: Any, hub: RoomHub) -> Accounts:
    """The server's :class:`Accounts` (made on first use, on the room hub's store)."""
    store = hub.store
    if not isinstance(store, SqlStore):
        raise AccountError("no_accounts", "this server keeps no accounts", 400)
    return service_of(app, "accounts", lambda: Accounts(store))


def get_accounts(request: Request, hub: Hub) -> Accounts:
    return accounts_of(request.app, hub)


AccountsDep = Annotated[Accounts, Depends(get_accounts)]


def session_token(request: Request) -> str | None:
    """The session token of a request: ``Authorization: Bearer TOKEN`` (a bot's API token, or any
    program's that signed in), which a browser never sends by itself, else the session cookie."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(COOKIE)


async def maybe_signed_in(request: Request, accounts: AccountsDep) -> Player | None:
    return await accounts.session(session_token(request))


async def signed_in(player: Annotated[Player | None, Depends(maybe_signed_in)]) -> Player:
    if player is None:
        raise AccountError("not_signed_in", "sign in first", 401)
    return player


MaybeSignedIn = Annotated[Player | None, Depends(maybe_signed_in)]
SignedIn = Annotated[Player, Depends(signed_in)]


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE, token, max_age=30 * 24 * 3600, httponly=True, samesite="lax",
        secure=request.url.scheme == "https", path="/",
    )


@router.post("/accounts", operation_id="sign_up", status_code=201, response_model=Me,
             responses=errors(400, 409, 422))
async def sign_up(body: NewAccount, request: Request, response: Response, accounts: AccountsDep) -> Me:
    """Make an account and sign it in (the session cookie is set)."""
    player, token = await accounts.sign_up(body.name, body.password)
    _set_cookie(request, response, token)
    return Me(name=player.name)


@router.post("/session", operation_id="sign_in", response_model=Me, responses=errors(401, 422, 429))
async def sign_in(body: Credentials, request: Request, response: Response, accounts: AccountsDep) -> Me:
    """Sign in: a wrong password and an unknown name get the same 401."""
    address = request.client.host if request.client is not None else "unknown"
    player, token = await accounts.sign_in(body.name, body.password, address)
    _set_cookie(request, response, token)
    return Me(name=player.name)


@router.get("/session", operation_id="who_am_i", response_model=SessionState)
async def who_am_i(player: MaybeSignedIn, accounts: AccountsDep) -> SessionState:
    """The signed-in player's name; ``{"name": null}`` when signed out (being signed out is
    an answer, not a refusal: every page asks, and a browser logs each 401 as an error)."""
    if player is None:
        return SessionState(name=None, bot=False)
    return SessionState(name=player.name, bot=await Bots(accounts.store).is_bot(player))


@router.delete("/session", operation_id="sign_out", status_code=204, response_class=Response)
async def sign_out(request: Request, accounts: AccountsDep, hub: Hub) -> Response:
    """End this session and cancel the player's open seeks: a player who signed out is
    not waiting for a game (nothing to do when there is no session)."""
    token = request.cookies.get(COOKIE)
    player = await accounts.session(token)
    if token and len(token) <= 100:
        await accounts.sign_out(token)
    if player is not None:
        await lobby_of(request.app, hub).cancel(player)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
    return response
