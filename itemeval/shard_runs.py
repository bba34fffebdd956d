"""What a launcher makes of its shard processes, whatever runs them: their exit, their cap argument, their retries."""

from __future__ import annotations

import json
import math
import signal
from typing import Any

from .errors import EXIT_BUDGET

SIGNALLED = {128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP}
"""Exit codes of a shard stopped by a signal: it is not retried."""
RETRIES = 1
"""A shard that fails (not stopped by the cap or a signal) runs once more; it resumes from its journal parts."""


def usd_arg(cap: float) -> list[str]:
    # Rounded down, so the parts never add up to more than the cap.
    return ["--max-usd", f"{math.floor(cap * 1e8) / 1e8:.8f}"]


def shard_outcome(code: int, out: bytes, err: bytes) -> dict[str, Any]:
    try:
        data = json.loads(out)
    except ValueError:
        data = {}
    message = (err.decode(errors="replace").strip().splitlines() or [f"exit {code}"])[-1][:300]
    stopped = code == EXIT_BUDGET or code in SIGNALLED
    return {"code": code, "data": data, "message": message, "retry": code != 0 and not stopped}
