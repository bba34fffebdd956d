"""Paid replies whose journal write failed (a full disk): held in memory until the
eval ends, then written wherever they fit.

Once a write fails no further call starts, but the calls already out still return, each
a reply paid for. Dropping them meant paying for them again once the disk had room.
They wait here, as journal lines, and go, in order, to: a fresh journal file (space may
have been freed meanwhile); the same after giving up the run's reserve (disk space held
back for the final manifest, which then may not be written: the next command closes
it); a last-resort file in the system's temporary folder, to be moved into the journal
folder. The message names where they went and how many.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

from ..paths import StudyPaths
from .files import fsync_path
from .journal import encode_line

RESERVE_PREFIX = ".reserve-"  # the manifest's reserve (manifest.RESERVE_PREFIX)


class HeldRows:
    """Journal lines kept in memory after the journal could not take them."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def hold(self, store: str, row: dict[str, Any]) -> None:
        self.lines.append(encode_line(store, row))

    def __len__(self) -> int:
        return len(self.lines)

    def save(self, paths: StudyPaths, run_id: str) -> str | None:
        """Write the held rows where they fit; a message saying where (None when
        none were held)."""
        if not self.lines:
            return None
        name = f"{run_id}-{os.getpid()}-{secrets.token_hex(3)}.jsonl"
        count = len(self.lines)
        if _write(paths.journal / name, self.lines):
            return (
                f"kept {count} paid repl{_ies(count)} that arrived after the disk "
                f"filled, in {paths.journal / name}; the next run takes them in"
            )
        (paths.manifests / f"{RESERVE_PREFIX}{run_id}").unlink(missing_ok=True)
        if _write(paths.journal / name, self.lines):
            return (
                f"kept {count} paid repl{_ies(count)} that arrived after the disk "
                f"filled, in {paths.journal / name} (in the space held back for the "
                "run's manifest); the next run takes them in"
            )
        rescue = Path(tempfile.gettempdir()) / f"itemeval-rescued-{name}"
        if _write(rescue, self.lines):
            return (
                f"kept {count} paid repl{_ies(count)} that arrived after the disk "
                f"filled, in {rescue}: once there is space, move it into "
                f"{paths.journal}/ and run again"
            )
        return (
            f"{count} paid repl{_ies(count)} that arrived after the disk filled "
            "could not be written anywhere and will be paid for again"
        )


def _ies(count: int) -> str:
    return "y" if count == 1 else "ies"


def _write(path: Path, lines: list[str]) -> bool:
    """All the lines, durably, or no file at all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.writelines(lines)
            handle.flush()
            os.fsync(handle.fileno())
        fsync_path(path.parent)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return False
