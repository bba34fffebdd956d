"""The view's web app: a Starlette app whose routes (itemeval.view.pages) call library
functions and whose templates only render; the guard here is its security (token,
host, headers, clean errors)."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import ItemevalError
from ..results.label_queue import QueueOptions
from ..study.load import Study
from .data import VersionCache

HERE = Path(__file__).parent
COOKIE = "itemeval_token"
HEADERS = {
    # Nothing but our own files runs or loads, even if some text escaped the templates'
    # escaping.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; "
    "style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; "
    "base-uri 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the URL
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


@dataclass
class LabelSettings:
    rater: str
    rubric: str | None = None
    scale: str | None = None
    queue: QueueOptions = field(default_factory=QueueOptions)


@dataclass
class ViewSettings:
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    hosts: tuple[str, ...] | None = ("127.0.0.1", "localhost")
    """Host names the app answers to (DNS rebinding); None with --host, where any is
    allowed."""
    label: LabelSettings | None = None
    warm: bool = False
    """Read the stores for the grid and the items page in the background as the server
    starts."""


def templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        # every model-written byte is escaped; no template marks model text safe
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = _num
    env.filters["visible"] = _visible
    return env


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _visible(value: Any) -> str:
    """Text as shown: a NUL byte (which a browser would drop silently) as the symbol for
    it."""
    return "" if value is None else str(value).replace("\x00", "\u2400")


def create_app(study: Study, settings: ViewSettings | None = None) -> Starlette:
    from . import active, pages

    settings = settings or ViewSettings()
    app = Starlette(
        debug=False,
        routes=[
            Route("/", pages.grid),
            Route("/items", pages.items),
            Route("/item", pages.item),
            Route("/label", active.label),
            Route(
                "/api/label",
                active.post_label,
                methods=["GET", "POST", "PUT", "DELETE"],
            ),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=_guard)],
        exception_handlers={
            HTTPException: _http_error,
            ItemevalError: _itemeval_error,
            Exception: _server_error,
        },
    )
    app.state.study = study
    app.state.settings = settings
    app.state.templates = templates()
    app.state.cache = VersionCache()
    app.state.labelling = (
        active.build_labelling(study, settings.label) if settings.label else None
    )
    if settings.warm:
        threading.Thread(target=pages.warm, args=(app,), daemon=True).start()
    return app


async def _guard(request: Request, call_next: Any) -> Response:
    settings: ViewSettings = request.app.state.settings
    if settings.hosts is not None and request.url.hostname not in settings.hosts:
        return _refused(request, "this server answers on 127.0.0.1 only")
    path = request.url.path
    if path.startswith("/api/"):
        supplied = request.headers.get("x-itemeval-token", "")
        if request.method != "POST" or not secrets.compare_digest(
            supplied, settings.token
        ):
            return _refused(request, "a write needs a POST carrying the view's token")
    elif not path.startswith("/static/"):
        cookie = cookie_name(request)
        supplied = request.query_params.get("token") or request.cookies.get(cookie, "")
        if not secrets.compare_digest(supplied, settings.token):
            return _refused(
                request, "open the URL `itemeval view` printed (it has the token)"
            )
        if request.method not in ("GET", "HEAD"):
            return _refused(
                request, "pages are read with GET; a label is a POST to /api/label"
            )
        if _blind(settings) and path != "/label":
            # the grid and item pages name every condition and show the judges'
            # verdicts: one click would unblind the rater
            return _refused(request, "a blind labelling view shows only /label")
    response = await call_next(request)
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.query_params.get("token") == settings.token:
        response.set_cookie(
            cookie_name(request), settings.token, httponly=True, samesite="strict"
        )
    return response


def cookie_name(request: Request) -> str:
    """The token's cookie, one per port: cookies are shared by every port of a host,
    so two views side by side would each overwrite the other's token."""
    return f"{COOKIE}_{request.url.port or 80}"


def _blind(settings: ViewSettings) -> bool:
    return settings.label is not None and settings.label.queue.blind


def _refused(request: Request, message: str) -> Response:
    return _error_page(request, 403, message)


def _error_page(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        response: Response = JSONResponse({"error": message}, status_code=status)
    else:
        page = request.app.state.templates.get_template("error.html")
        body = page.render(status=status, message=message, token=None)
        response = HTMLResponse(body, status_code=status)
    for name, value in HEADERS.items():
        response.headers[name] = value
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error_page(request, exc.status_code, str(exc.detail))


async def _itemeval_error(request: Request, exc: Exception) -> Response:
    return _error_page(request, 404 if "no item" in str(exc) else 400, str(exc))


async def _server_error(request: Request, exc: Exception) -> Response:
    # never a traceback page: the message says where to look instead
    return _error_page(
        request, 500, f"internal error ({type(exc).__name__}); see the terminal"
    )
