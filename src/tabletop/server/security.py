"""Security headers on every HTTP answer, and secrets kept out of the server's logs.

:func:`secure` wraps the application in :class:`SecurityHeaders` (a plain ASGI
middleware: it adds headers to each response's start message and touches no
body) and installs :class:`RedactSecrets` on the loggers that write request
lines.  The web app loads only its own files (``/web/...``), so its policy
allows nothing else; the API documentation pages FastAPI serves (``/docs``,
``/redoc``) load Swagger UI and ReDoc from their CDN with an inline script,
and get a policy that allows exactly that.

An invite link carries its secret in the query (``/play/ROOM?invite=SECRET``):
the referrer policy keeps it from other sites, the log filter from the logs.
Seat tokens travel only in websocket frames and JSON bodies, which nothing
logs; the filter removes ``token=`` from request lines all the same.

This module decides no access and reads no request body.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["PAGE_POLICY", "RedactSecrets", "SecurityHeaders", "redact", "secure"]

# the page's own scripts, styles, images and websocket; no inline code, no frames, no plugins
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# FastAPI's /docs and /redoc pages: Swagger UI / ReDoc from jsDelivr, started by an inline script
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "font-src 'self' https://fonts.gstatic.com; worker-src 'self' blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")

_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """ASGI middleware: every HTTP response gets the security headers (a header
    the application set itself is left as it is)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.page = [*_COMMON, (b"content-security-policy", PAGE_POLICY.encode())]
        self.docs = [*_COMMON, (b"content-security-policy", DOCS_POLICY.encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.docs if scope.get("path") in DOCS_PATHS else self.page

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


# a secret as a query parameter (invite=..., token=...)
_SECRET_PARAMETER = re.compile(r"((?:^|[?&;\s\"'])(?:invite|token|tokens)=)[^&;\s\"']*", re.IGNORECASE)
# a secret as a JSON member ("token": "...", "tokens": [...] or {...}); a text cut short still loses it
_SECRET_MEMBER = re.compile(
    r"""(["'](?:invite|token|tokens)["']\s*:\s*)("(?:[^"\\]|\\.)*"?|'[^']*'?|\[[^\]]*\]?|\{[^}]*\}?)""", re.IGNORECASE
)


def redact(text: str) -> str:
    """``text`` with the value of every ``invite``/``token``/``tokens`` query
    parameter or JSON member replaced (websocket frames show up in debug logs)."""
    text = _SECRET_PARAMETER.sub(r"\1[redacted]", text)
    return _SECRET_MEMBER.sub(r'\1"[redacted]"', text)


class RedactSecrets(logging.Filter):
    """A logging filter that redacts secrets in a record's message and arguments
    (uvicorn's access lines carry the request's path with its query string)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redacted(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _redacted(v) for k, v in record.args.items()}
        return True


def _redacted(value: object) -> object:
    """A log argument without secrets: a string redacted; any other object (uvicorn's
    trace lines log the whole ASGI scope, query string included) replaced by its
    redacted text when that text holds a secret, else left as it is, so formatters
    that read the arguments (uvicorn's access formatter) still get theirs."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, int | float | type(None)):
        return value
    text = str(value)
    clean = redact(text)
    return value if clean == text else clean


# uvicorn's request lines (HTTP on uvicorn.access; websocket handshakes and, in debug, frames on
# uvicorn.error; in trace, ASGI scopes on uvicorn.asgi), the websockets library's own, and ours
LOGGERS = (
    "uvicorn.access",
    "uvicorn.error",
    "uvicorn.asgi",
    "uvicorn",
    "websockets.server",
    "websockets.protocol",
    "tabletop.server",
)


def secure(app: Any) -> None:
    """Add the security headers to ``app`` (a FastAPI/Starlette app) and the
    redacting filter to the server's loggers (once per logger)."""
    app.add_middleware(SecurityHeaders)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
