"""One request per inspect attempt: the provider SDK's own retries turned off.

The OpenAI and Anthropic SDKs retry a 429 or a 5xx themselves (twice by default),
inside one inspect attempt: their backoff (a Retry-After of seconds) then runs under
inspect's `attempt_timeout`, which fired while the SDK slept, so a healthy call was
recorded as `AttemptTimeoutError` with its retry never sent, and every inspect retry
was up to three requests. With the SDK's retries off, each attempt is one request,
`solvers.max_retries` counts requests, and inspect's backoff runs between attempts,
outside their timeout (README "Retries").
"""

from __future__ import annotations

from typing import Any

_SDKS = ("openai", "anthropic")
"""The SDKs whose clients take `max_retries` (the client's own, read per request)."""


def one_request_per_attempt(model: Any) -> Any:
    """`model` with its SDK client's retries off; the same model back."""
    api = getattr(model, "api", None)
    client = getattr(api, "client", None)
    if client is None or type(client).__module__.partition(".")[0] not in _SDKS:
        return model
    if isinstance(getattr(client, "max_retries", None), int):
        client.max_retries = 0
    model_args = getattr(api, "model_args", None)
    if isinstance(model_args, dict):
        # inspect builds a new client from these when its connection pool closed
        model_args.setdefault("max_retries", 0)
    return model
