"""itemeval's version and the inspect-ai releases it is tested on, named once:
`itemeval --version`, the manifest, the engine's check of the installed inspect-ai and
`itemeval.__version__`."""

from __future__ import annotations

import re

__version__ = "0.2.0"

INSPECT_OLDEST = "0.3.260"
"""The oldest inspect-ai itemeval supports: `make test-oldest` (part of `.ci/run`)
runs every test that touches inspect-ai on it."""
INSPECT_NEWEST = "0.3.285"
"""The newest inspect-ai the whole suite ran on (`make test`)."""
INSPECT_REQUIREMENT = "inspect-ai>=0.3.260,<0.4"
"""pyproject.toml's requirement (tests/test_version.py holds the two equal): open
within 0.3.x, as a newer release whose internals still fit runs, with a warning."""
INSPECT_TESTED = f"inspect-ai>={INSPECT_OLDEST},<={INSPECT_NEWEST}"
"""What to install when the installed inspect-ai is not one itemeval runs on."""


def inspect_version() -> str | None:
    """The installed inspect-ai's version, read without importing it (None when it is
    not installed)."""
    from importlib import metadata

    try:
        return metadata.version("inspect-ai")
    except metadata.PackageNotFoundError:
        return None


def release(version: str) -> tuple[int, ...]:
    """A version's release numbers, for comparing: `0.3.285.dev4` -> (0, 3, 285)."""
    found = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in found.group(0).split(".")) if found else ()


def tested_range() -> str:
    return f"{INSPECT_OLDEST} to {INSPECT_NEWEST}"


def version_text() -> str:
    """What `itemeval --version` prints: itemeval's version, the inspect-ai it runs
    on and the range it is tested on."""
    installed = inspect_version()
    runs_on = f"inspect-ai {installed}" if installed else "inspect-ai: not installed"
    return (
        f"itemeval {__version__}\n"
        f"{runs_on} (tested on {tested_range()}; requires {INSPECT_REQUIREMENT})"
    )
