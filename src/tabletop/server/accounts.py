"""Player accounts: names, argon2 password hashes, sessions, and limits on sign-in attempts.

A name is 3-20 letters, digits, ``-`` and ``_``, unique regardless of case (the ``name_key``
column holds it in lower case).  A new password must be 8-200 characters and hard to guess: the
``zxcvbn`` strength estimator (its dictionaries of common passwords, names, words and keyboard
patterns) must score it 3 of 4 or more, with the player's name counted as a known word.  Passwords are hashed with argon2id (``argon2-cffi``) off the event
loop; only the hash is stored and no password is ever logged or returned.  A session is a random
token in an HttpOnly cookie; the database keeps only its SHA-256.  A sign-in with a wrong password
and one with an unknown name get the same answer and take about the same time (an unknown name is
checked against a dummy hash).  :class:`AttemptLimiter` counts sign-in attempts per name and per
address in this process.

This module knows no HTTP: the router (:mod:`.routers.accounts`) reads cookies and bodies.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.engine import Connection
from zxcvbn import zxcvbn

from tabletop.server.errors import RoomError
from tabletop.server.seats import hash_secret
from tabletop.server.store import SqlStore, StoreConflict, players_table, sessions_table

__all__ = [
    "AccountError",
    "Accounts",
    "AttemptLimiter",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "NAME_RULE",
    "PASSWORD_HASH_PROFILES",
    "PASSWORD_HASH_VARIABLE",
    "PASSWORD_RULE",
    "Player",
    "check_name",
    "check_password",
    "password_hasher",
]

NAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
MIN_PASSWORD, MAX_PASSWORD = 8, 200
NAME_RULE = "a name is 3 to 20 letters, digits, '-' or '_' (no spaces)"
PASSWORD_RULE = (
    f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters and hard to guess: not a common password,"
    " a name, or a word with a few digits added (three or four unrelated words work well)"
)
# zxcvbn's 0-4 score: 3 is "safely unguessable" (about 10^8 guesses or more)
MIN_STRENGTH = 3
# zxcvbn's time grows quickly with the length; a password whose first 40 characters are hard to
# guess is hard to guess, and the check stays under a tenth of a second
STRENGTH_CHECKED = 40
SESSION_SECONDS = 30 * 24 * 3600
# argon2id's parameters, from the environment variable PASSWORD_HASH_VARIABLE: "recommended" (the
# default) is RFC 9106's second recommendation, argon2-cffi's default (3 passes over 64 MiB in 4 lanes,
# some 0.3 CPU-s a hash or a check); "cheapest" is the library's minimum (8 KiB, one pass), for test runs only, which sign
# up and in some hundreds of times (as Django's test settings swap in a fast hasher).  A hash records
# its own parameters, so either checks the other's.
PASSWORD_HASH_VARIABLE = "TABLETOP_PASSWORD_HASH"
PASSWORD_HASH_PROFILES = {"recommended": profiles.RFC_9106_LOW_MEMORY, "cheapest": profiles.CHEAPEST}


def password_hasher(profile: str | None = None) -> PasswordHasher:
    """The hasher of ``profile`` (see above; the environment's when ``None``).  Raises
    ``ValueError`` naming the variable for a profile it does not know."""
    name = os.environ.get(PASSWORD_HASH_VARIABLE, "recommended") if profile is None else profile
    if name not in PASSWORD_HASH_PROFILES:
        raise ValueError(f"{PASSWORD_HASH_VARIABLE}={name!r}: use one of {', '.join(PASSWORD_HASH_PROFILES)}")
    return PasswordHasher.from_parameters(PASSWORD_HASH_PROFILES[name])


_hasher = password_hasher()


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is checked against, so that it costs as much as a known one."""
    return _hasher.hash(secrets.token_urlsafe(16))


class AccountError(RoomError):
    """A refused account request (its ``code`` and HTTP ``status``), answered with the server's one error body."""


def bad_credentials() -> AccountError:
    # one answer for a wrong password and for an unknown name: neither tells which names exist
    return AccountError("bad_credentials", "the name or the password is wrong", 401)


@dataclass(frozen=True)
class Player:
    """A signed-in player: the id rooms and ratings use, and the name as it was chosen."""

    id: str
    name: str


def check_name(name: str) -> str:
    """``name`` if it is 3-20 letters, digits, ``-`` or ``_``; else :class:`AccountError`."""
    if not NAME.fullmatch(name):
        raise AccountError("bad_name", NAME_RULE, 400)
    return name


def check_password(password: str, name: str = "") -> str:
    """``password`` if it may be a new account's (:data:`PASSWORD_RULE`); else :class:`AccountError`
    naming the rule and, for a weak one, what made it easy to guess."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("weak_password", PASSWORD_RULE, 400)
    estimate = zxcvbn(password[:STRENGTH_CHECKED], user_inputs=[name, "tabletop"] if name else ["tabletop"])
    if estimate["score"] < MIN_STRENGTH:
        why = str(estimate["feedback"].get("warning") or "").rstrip(".")
        found = f" ({why[0].lower()}{why[1:]})" if why else ""
        raise AccountError("weak_password", f"this password is too easy to guess{found}: {PASSWORD_RULE}", 400)
    return password


class AttemptLimiter:
    """At most ``limit`` attempts per key in any ``window`` seconds (a sliding window, kept in memory)."""

    def __init__(self, limit: int, window: float, clock: Any = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._attempts: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Count an attempt for ``key``; False (and not counted) when it is over the limit."""
        now = self.clock()
        times = self._attempts.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        if len(self._attempts) > 100_000:  # forget idle keys so that the table cannot grow without end
            for idle in [k for k, t in self._attempts.items() if not t or t[-1] <= now - self.window]:
                del self._attempts[idle]
        return True


# -- transactions (run by the store's writer: module-level functions, picklable by name) -----------------------
def _insert_player(conn: Connection, player_id: str, name: str, password_hash: str, at: float) -> None:
    conn.execute(players_table.insert().values(
        id=player_id, name=name, name_key=name.lower(), password_hash=password_hash, created=at))


def _insert_session(conn: Connection, token_hash: str, player_id: str, expires: float) -> None:
    conn.execute(sessions_table.delete().where(sessions_table.c.expires < time.time()))  # expired ones
    conn.execute(sessions_table.insert().values(token_hash=token_hash, player_id=player_id, expires=expires))


def _delete_session(conn: Connection, token_hash: str) -> None:
    conn.execute(sessions_table.delete().where(sessions_table.c.token_hash == token_hash))


class Accounts:
    """Sign up, sign in, sign out and who a session is, on the server's store."""

    def __init__(self, store: SqlStore, *, name_limit: tuple[int, float] = (10, 600.0),
                 address_limit: tuple[int, float] = (30, 600.0)) -> None:
        self.store = store
        self.by_name = AttemptLimiter(*name_limit)
        self.by_address = AttemptLimiter(*address_limit)

    async def sign_up(self, name: str, password: str) -> tuple[Player, str]:
        """A new player and its first session token; ``name_taken`` (409) if any case of it exists."""
        check_name(name)
        await asyncio.to_thread(check_password, password, name)
        if await self.find(name) is not None:
            raise AccountError("name_taken", f"the name {name!r} is taken", 409)
        password_hash = await asyncio.to_thread(_hasher.hash, password)
        player = Player(secrets.token_urlsafe(12), name)
        try:
            await self.store.call(_insert_player, player.id, name, password_hash, time.time())
        except StoreConflict:  # the same name signed up a moment ago, maybe on another server process
            raise AccountError("name_taken", f"the name {name!r} is taken", 409) from None
        return player, await self.new_session(player)

    async def sign_in(self, name: str, password: str, address: str) -> tuple[Player, str]:
        """The player and a new session token; the same ``bad_credentials`` (401) for a wrong password
        and an unknown name; ``rate_limited`` (429) after too many attempts for the name or address."""
        key = name.lower()[:40]
        if not self.by_address.allow(address) or not self.by_name.allow(key):
            raise AccountError("rate_limited", "too many sign-in attempts; wait a few minutes", 429)
        row = await self._row(name) if NAME.fullmatch(name) and len(password) <= MAX_PASSWORD else None
        stored = row["password_hash"] if row is not None else _dummy_hash()
        try:
            await asyncio.to_thread(_hasher.verify, stored, password)
        except (VerificationError, InvalidHashError):
            raise bad_credentials() from None
        if row is None:  # the dummy hash's password was guessed: still no such player
            raise bad_credentials()
        player = Player(row["id"], row["name"])
        return player, await self.new_session(player)

    async def new_session(self, player: Player) -> str:
        token = secrets.token_urlsafe(32)
        await self.store.call(_insert_session, hash_secret(token), player.id, time.time() + SESSION_SECONDS)
        return token

    async def sign_out(self, token: str) -> None:
        await self.store.call(_delete_session, hash_secret(token))

    async def session(self, token: str | None) -> Player | None:
        """The player whose unexpired session ``token`` is, or None."""
        if not token or len(token) > 100:
            return None
        query = (
            sa.select(players_table.c.id, players_table.c.name)
            .join(sessions_table, sessions_table.c.player_id == players_table.c.id)
            .where(sessions_table.c.token_hash == hash_secret(token), sessions_table.c.expires > time.time())
        )
        row = await self._read_one(query)
        return None if row is None else Player(row["id"], row["name"])

    async def find(self, name: str) -> Player | None:
        """The player called ``name`` in any case, or None."""
        row = await self._row(name) if NAME.fullmatch(name) else None
        return None if row is None else Player(row["id"], row["name"])

    async def _row(self, name: str) -> Any:
        return await self._read_one(players_table.select().where(players_table.c.name_key == name.lower()))

    async def _read_one(self, query: Any) -> Any:
        def read() -> Any:
            with self.store.engine.connect() as conn:
                return conn.execute(query).mappings().first()

        return await self.store.read(read)
