"""An itemeval command in a child process, killed at a moment a test chooses by an
event (rows durable in the journal, calls answered at the server), never by a sleep:
the machines are shared and their speed is not ours to assume."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from itemeval.store.journal_lines import records

WAIT_S = 120.0


def start_itemeval(
    *args: str, cwd: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """`python -m itemeval ARGS` with no display; stderr kept for failure messages."""
    return subprocess.Popen(
        [sys.executable, "-m", "itemeval", *args, "--display", "none"],
        cwd=cwd,
        env={**env, "INSPECT_DISPLAY": "none"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def journaled(study_dir: Path, store: str) -> int:
    """Rows of `store` complete in a study's journal: a kill can no longer lose them."""
    count = 0
    for part in sorted((study_dir / "journal").glob("*.jsonl")):
        with contextlib.suppress(FileNotFoundError):  # committed since the glob
            count += sum(1 for name, _ in records(part) if name == store)
    return count


def sigkill_when(
    proc: subprocess.Popen[bytes], ready: Callable[[], bool], what: str
) -> None:
    """SIGKILL `proc` as soon as `ready()` holds; fail, naming `what` was awaited, if
    the command ends first or WAIT_S pass."""
    deadline = time.monotonic() + WAIT_S
    try:
        while not ready():
            if proc.poll() is not None or time.monotonic() > deadline:
                err = b"" if proc.poll() is None else proc.stderr.read()
                raise AssertionError(
                    f"waited for {what}; the command "
                    f"{'ended first' if proc.poll() is not None else 'ran on'}: "
                    f"{err.decode(errors='replace')[-2000:]}"
                )
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-2000:]
