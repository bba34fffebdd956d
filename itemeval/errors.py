"""The one error family of itemeval, each kind carrying its documented exit code
(README "A short tour")."""

from __future__ import annotations

import errno
import os
import re

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_CONFIG = 2
EXIT_CONFIRM = 3
EXIT_BUDGET = 4
EXIT_LOCKED = 5
EXIT_INTERRUPTED = 130


class ItemevalError(Exception):
    """A failure a user can act on: the message says what, where, and what to do."""

    exit_code = EXIT_RUNTIME
    kind = "runtime"


class ConfigError(ItemevalError):
    """Bad config, template, dataset or command-line usage."""

    exit_code = EXIT_CONFIG
    kind = "config"


class UnsupportedInspect(ItemevalError):
    """The installed inspect-ai is not one itemeval runs on (README "Set-up")."""

    exit_code = EXIT_CONFIG
    kind = "install"


class StoreError(ItemevalError):
    """A study store that is corrupt, foreign or cannot be written."""

    exit_code = EXIT_RUNTIME
    kind = "store"


class ConfirmationRequired(ItemevalError):
    """The projected spend is above `confirm_above_usd` and nobody confirmed it."""

    exit_code = EXIT_CONFIRM
    kind = "confirmation"


class BudgetError(ItemevalError):
    """The hard spend cap refuses or stopped the run."""

    exit_code = EXIT_BUDGET
    kind = "budget"


class StudyLocked(ItemevalError):
    """Another running command holds the study lock."""

    exit_code = EXIT_LOCKED
    kind = "locked"


def write_failure_message(path: object, error: OSError) -> str:
    """One message for a write that failed (a full disk, a read-only mount): what,
    where, and what to do."""
    reason = error.strerror or str(error) or type(error).__name__
    return (
        f"could not write {path}: {reason}; no further model call was started. "
        "Free space (or fix the disk), "
        "then run the same command again: every finished row is kept and will "
        "not be paid for twice"
    )


WRITE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}
)
"""The errors of a disk that cannot take a write: full, over quota, read-only,
failing, file too big."""


def is_write_failure(error: BaseException) -> bool:
    """A disk that cannot take a write; pyarrow's OSErrors carry no errno, only the
    system's message."""
    if not isinstance(error, OSError):
        return False
    if error.errno is not None:
        return error.errno in WRITE_ERRNOS
    return any(os.strerror(number) in str(error) for number in WRITE_ERRNOS)


_WHERE = re.compile(r"^(?P<where>[^\s:'\"]+(?: line \d+)?): ")


_LONG_WORD = re.compile(r"\S{%d,}" % 501)


def shortened(message: str) -> str:
    """The message with every run of more than 500 characters without a space (a
    10 MB name quoted back) cut to its start, its end and its length, so an error
    is read, not scrolled past."""
    return _LONG_WORD.sub(_cut, message)


def _cut(match: re.Match[str]) -> str:
    word = match.group(0)
    return f"{word[:60]}…{word[-20:]} ({len(word):,} characters)"


def error_document(message: str, *, exit_code: int, kind: str) -> dict[str, object]:
    """What `--json` prints on stdout for a failed command; `where` is the file or
    field the message starts with."""
    match = _WHERE.match(message)
    return {
        "error": {
            "exit_code": exit_code,
            "kind": kind,
            "message": message,
            "where": match.group("where") if match else None,
        }
    }
