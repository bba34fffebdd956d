"""Keep credentials out of everything itemeval stores or prints: error texts can echo
a request's headers."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import traceback
from collections.abc import Callable, Iterator

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


class _RedactingFilter(logging.Filter):
    """Scrubs credentials from a record (its message, its extra fields, its
    exception) before any handler writes it."""

    _STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None)))

    def __init__(self) -> None:
        super().__init__("itemeval-redact")
        self.clean = redactor()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        # arguments that do not fit the message: logging reports that itself
        except (
            TypeError,
            ValueError,
        ):
            return True
        if record.exc_info and record.exc_info[1] is not None:
            message = (
                f"{message}\n{''.join(traceback.format_exception(*record.exc_info))}"
            )
        clean = self.clean(message)
        if clean != message:
            record.msg, record.args, record.exc_info, record.exc_text = (
                clean,
                None,
                None,
                None,
            )
        for name, value in vars(
            record
        ).items():  # inspect's trace records carry the error in extra fields
            if name not in self._STANDARD and isinstance(value, str):
                setattr(record, name, self.clean(value))
        return True


_redacting: list[tuple[logging.Handler, _RedactingFilter]] = []


def redact_log_handlers() -> None:
    """Put a redacting filter on every log handler now installed (inspect sets its
    own up as an eval starts)."""
    loggers = [
        logging.getLogger(),
        *(
            lg
            for lg in logging.Logger.manager.loggerDict.values()
            if isinstance(lg, logging.Logger)
        ),
    ]
    redacting = _RedactingFilter()
    for handler in {handler for lg in loggers for handler in lg.handlers}:
        if not any(isinstance(f, _RedactingFilter) for f in handler.filters):
            handler.addFilter(redacting)
            _redacting.append((handler, redacting))


@contextlib.contextmanager
def redacted_logs() -> Iterator[None]:
    try:
        yield
    finally:
        while _redacting:
            handler, redacting = _redacting.pop()
            handler.removeFilter(redacting)
