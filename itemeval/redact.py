"""Keep credentials out of everything itemeval stores or prints: error texts can echo
a request's headers."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"(?:API_KEY|_TOKEN|_SECRET|_SECRET_KEY|_ACCESS_KEY)$")
_SHAPED = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{16,}"  # OpenAI-style keys (sk-, sk-proj-, sk-ant-…)
    r"|(?<=Bearer )[A-Za-z0-9._\-~+/]{12,}=*"  # an Authorization header's token
    r"|\bAIza[0-9A-Za-z_\-]{30,}"  # Google API keys
)


def secret_values() -> list[str]:
    """The values of the credential variables set in this process, longest first (so
    none is cut in part)."""
    values = {
        value
        for name, value in os.environ.items()
        if _SECRET_NAME.search(name) and len(value) >= 8
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str | None) -> str | None:
    """The text with every credential value in use, and anything shaped like a key,
    replaced by [redacted]."""
    if not text:
        return text
    return redactor()(text)


def redactor() -> Callable[[str], str]:
    """redact() bound to the credentials set now, as one compiled pattern: for paths
    that redact many texts."""
    pattern = re.compile(
        "|".join([*(re.escape(value) for value in secret_values()), _SHAPED.pattern])
    )
    return lambda text: pattern.sub(REDACTED, text)
