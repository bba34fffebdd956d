"""The last check before a request leaves: after a signal, no request is written.

inspect's before-generate hook (where itemeval first refuses calls after a signal) runs
after the connection semaphore but before the provider's SDK builds its request, opens
a connection and writes it. At 80 connections that path took up to a second on a busy
event loop, longer when a connection waited for a TCP retransmission, so requests
reached the provider after the signal. The check here sits at the last step: httpcore's
`trace` extension (public, per request) is called just before the request headers are
written on an open connection, and there a stopped run refuses the request.

It covers providers whose SDK sends through httpx (OpenAI and every OpenAI-compatible
provider, Anthropic, Mistral, ...); other providers keep the before-generate check.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Any, Iterator

import httpx
from inspect_ai.util import LimitExceededError

from .. import signals

try:  # the SDK's own httpx flavour (openai >= 3): a different package, same API
    import httpx2
except ImportError:  # pragma: no cover - an older openai uses plain httpx
    httpx2 = None

_CLIENTS = tuple(kind.AsyncClient for kind in (httpx, httpx2) if kind is not None)
# httpcore's trace event just before a request's first bytes are written (HTTP/1.1
# and HTTP/2 alike)
_SENDING = ".send_request_headers.started"
STOPPED = "itemeval stopped: no call starts after an interrupt"


_WRITTEN: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "itemeval_written", default=None
)
"""How many requests the call running in this context has begun to write."""


@contextlib.contextmanager
def counting() -> Iterator[list[int]]:
    """Count the requests written from this context (the SDK's and inspect's retries
    included): `[n]`, read while or after the call runs."""
    written = [0]
    token = _WRITTEN.set(written)
    try:
        yield written
    finally:
        _WRITTEN.reset(token)


def guard(model: Any) -> Any:
    """Withhold, after a signal, every request `model` would still write; the same
    model back."""
    for client in http_clients(getattr(model, "api", None)):
        hooks = client.event_hooks["request"]
        if _on_request not in hooks:
            hooks.append(_on_request)
    return model


def http_clients(api: Any) -> list[Any]:
    """The httpx clients a provider sends through: inspect's `http_client` (OpenAI and
    compatible providers) and the SDK client's own."""
    found = [
        getattr(api, "http_client", None),
        getattr(getattr(api, "client", None), "_client", None),
    ]
    clients: list[Any] = []
    for client in found:
        if isinstance(client, _CLIENTS) and client not in clients:
            clients.append(client)
    return clients


async def _on_request(request: Any) -> None:
    """httpx request hook: trace this request's sending (keeping a trace already
    set)."""
    earlier = request.extensions.get("trace")
    request.extensions["trace"] = functools.partial(_trace, earlier)


async def _trace(earlier: Any, name: str, info: dict[str, Any]) -> None:
    if earlier is not None:
        await earlier(name, info)
    if not name.endswith(_SENDING):
        return
    if signals.stop_requested():
        # Not an httpx error, so the SDK neither retries nor wraps it, and inspect
        # ends the sample as it does at its before-generate hook: without a row.
        raise LimitExceededError("operator", value=1, limit=1, message=STOPPED)
    signals.log_event("sent")
    if (written := _WRITTEN.get()) is not None:
        written[0] += 1
