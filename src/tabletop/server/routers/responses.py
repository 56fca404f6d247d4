"""One body for every refused HTTP request, and the OpenAPI document says so.

Each route declares the statuses it can refuse with through :func:`errors`
(its ``responses=``), all with :class:`~tabletop.server.models.ErrorBody`;
:func:`add_error_handlers` turns every way a request is refused into that body:
a :class:`~tabletop.server.rooms.RoomError`, a body or parameter that fails
validation (422), Starlette's own answers (400 for a body it cannot read, 404
for an unknown path, 405 with its ``Allow`` header) and an unexpected failure
(500, logged).  :func:`document_refusals` writes FastAPI's own 400 and 422 into
``/openapi.json`` for every route they can reach.  This module decides no
refusal itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import compile_path

from tabletop.server.models import ErrorBody
from tabletop.server.rooms import RoomError
from tabletop.server.routers.pages import WEB

__all__ = ["add_error_handlers", "error_response", "errors"]


WHEN = {
    400: "The request cannot be carried out as asked (the code says why)",
    401: "Not signed in, or the name or password is wrong",
    403: "The invite secret is wrong or missing, or the thing is another player's",
    404: "There is no such room, player, seek or pool",
    409: "The seat, name or seek is already taken",
    422: "The body or a parameter does not have the documented shape",
    429: "Too many attempts; wait and try again",
    503: "The engine failed; try again",
}
HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}


def errors(*statuses: int, json_route: bool = True) -> dict[int | str, dict[str, Any]]:
    """A route's ``responses=`` for the error ``statuses`` it can answer with.

    FastAPI documents a ``model`` under the route's own media type, so a route
    that answers text (``json_route=False``) names the schema by reference
    instead: the JSON routes put :class:`ErrorBody` in the document's components."""
    if json_route:
        return {status: {"model": ErrorBody, "description": WHEN[status]} for status in statuses}
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    return {status: {"description": WHEN[status], "content": content} for status in statuses}


def error_response(
    code: str, message: str, status: int, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    body = ErrorBody(code=code, message=message, detail=message)
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


async def _room_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RoomError)
    return error_response(exc.code, str(exc), exc.status)


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    """The first problem, named by where it is (``seats.black: ...``, ``query.format: ...``)."""
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return error_response("bad_request", f"{where or 'request'}: {first.get('msg', 'invalid')}", 422)


def allowed_methods(request: Request) -> str | None:
    """The methods ``/openapi.json`` lists for this request's path (None: a path it
    does not list).  Starlette's own 405 names only the first route that matched
    the path, and ``/api/rooms`` is two routes (GET, POST)."""
    path = request.url.path
    for template, item in request.app.openapi()["paths"].items():
        if compile_path(template)[0].fullmatch(path):
            methods = {method.upper() for method in item}
            return ", ".join(sorted(methods | ({"HEAD"} if "GET" in methods else set())))
    return None


API_PATHS = ("/api/", "/web/")  # unknown paths under these answer JSON (or a plain 404), never the page


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if (
        exc.status_code == 404
        and request.method in ("GET", "HEAD")
        and not request.url.path.startswith(API_PATHS)
    ):
        return FileResponse(WEB / "index.html", status_code=404)  # the page says the path is not found
    code = HTTP_CODES.get(exc.status_code, "http_error")
    headers = dict(exc.headers or {})
    allowed = allowed_methods(request) if exc.status_code == 405 else None
    if allowed is not None:
        headers["Allow"] = allowed
    return error_response(code, str(exc.detail), exc.status_code, headers)


async def _failure(_request: Request, exc: Exception) -> JSONResponse:
    # Starlette logs the exception itself after this answer; the client learns nothing of the inside
    return error_response("server_error", "the server failed to answer; this is logged", 500)


ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}


def document_refusals(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (an OpenAPI document of this application) with the refusals FastAPI
    makes itself on every route alike: a body it cannot read (400) on each route
    that takes one, a body or parameter of the wrong shape (422) on each route
    that takes either, both as :class:`ErrorBody`, in place of FastAPI's own
    ``HTTPValidationError``, which this application never answers."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorBody", ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}"))
    for item in document.get("paths", {}).values():
        for operation in item.values():
            answers = operation.setdefault("responses", {})
            takes_body = "requestBody" in operation
            for status, applies in (
                (400, takes_body),
                (422, takes_body or bool(operation.get("parameters"))),
            ):
                content = answers.get(str(status), {}).get("content", {})
                if applies and content.get("application/json", {}).get("schema") != ERROR_REF:
                    answers[str(status)] = {
                        "description": WHEN[status],
                        "content": {"application/json": {"schema": ERROR_REF}},
                    }
    if "#/components/schemas/HTTPValidationError" not in json.dumps(document.get("paths", {})):
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
    return document


def add_error_handlers(app: FastAPI) -> None:
    """Answer every refusal with :class:`ErrorBody`, and have ``/openapi.json`` say so."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_refusals(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the document
    app.add_exception_handler(RoomError, _room_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _failure)
