"""Whether the installed inspect-ai is one itemeval runs on, checked once, when the
engine loads.

A release of the tested range runs. One older than it, or past 0.3.x, is refused
(exit 2) with what to install. A 0.3.x newer than the newest tested runs, with one
warning line, when every private part itemeval reaches is still where `compat`
looks; otherwise it is refused as well, naming the parts that moved.
"""

from __future__ import annotations

import sys
from typing import Callable

from ..errors import UnsupportedInspect
from ..version import (
    INSPECT_NEWEST,
    INSPECT_OLDEST,
    INSPECT_TESTED,
    inspect_version,
    release,
    tested_range,
)

_WARNED: list[str] = []


def verdict(installed: str | None, missing: Callable[[], list[str]]) -> str | None:
    """None for a tested inspect-ai, the warning line for a newer one that fits;
    raises UnsupportedInspect for any other. `missing` lists the private parts the
    installed release lacks (asked only of a newer one)."""
    todo = f"install a tested one: pip install '{INSPECT_TESTED}'"
    if installed is None:
        raise UnsupportedInspect(f"inspect-ai is not installed; {todo}")
    found = release(installed)
    if found < release(INSPECT_OLDEST) or found >= (0, 4):
        raise UnsupportedInspect(
            f"inspect-ai {installed} is installed, but itemeval runs on inspect-ai "
            f"{INSPECT_OLDEST} and later 0.3 releases (tested on {tested_range()}); "
            f"{todo}"
        )
    if found <= release(INSPECT_NEWEST):
        return None
    moved = missing()
    if moved:
        raise UnsupportedInspect(
            f"inspect-ai {installed} is newer than the newest itemeval is tested on "
            f"({INSPECT_NEWEST}), and the inspect-ai internals itemeval uses moved "
            f"({', '.join(moved)}); {todo}, and report the version "
            "(docs/guides/install.md)"
        )
    return (
        f"itemeval: warning: inspect-ai {installed} is newer than the newest itemeval "
        f"is tested on ({INSPECT_NEWEST}); the internals it uses are where they were, "
        "so it runs (docs/guides/install.md says how to report a problem)"
    )


def require() -> None:
    """Refuse an inspect-ai itemeval does not run on; warn once per process about a
    newer one that fits."""
    from . import compat

    installed = inspect_version()
    warning = verdict(installed, lambda: compat.missing_parts(installed or ""))
    if warning and not _WARNED:
        _WARNED.append(warning)
        print(warning, file=sys.stderr)
