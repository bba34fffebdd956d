"""The study lock: one writing command per study at a time, held with flock for the command's whole run."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from ..errors import StudyLocked
from ..paths import StudyPaths


@contextmanager
def study_lock(paths: StudyPaths, command: str) -> Iterator[dict[str, Any]]:
    """Hold the study's exclusive lock while the block runs, or raise StudyLocked naming the holder at once.

    The OS drops a flock when its holder dies, however it dies, so a killed command's lock is taken
    over by the next one; the JSON in the file is only there to tell users who holds it.
    """
    paths.root.mkdir(parents=True, exist_ok=True)
    # O_CREAT without O_TRUNC: the holder's details must survive until we know we hold the lock.
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StudyLocked(
                _locked_message(paths, _parse_holder(_read_all(fd)))
            ) from None
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": command,
            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        with contextlib.suppress(
            OSError
        ):  # a full disk: the lock holds all the same, status just cannot name us
            _write_holder(fd, holder)
        try:
            yield holder
        finally:
            os.ftruncate(
                fd, 0
            )  # an empty file reads as "nobody" to status, before we let go
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def lock_holder(paths: StudyPaths) -> dict[str, Any] | None:
    """Who holds the study lock, for read-only commands; None when nobody seems to.

    It never takes the lock itself (that could make a starting writer fail), so it trusts the
    file's JSON unless its process is gone on this host.
    """
    try:
        with open(paths.lock, "rb") as handle:
            holder = _parse_holder(handle.read())
    except FileNotFoundError:
        return None
    if not holder:
        return None
    if holder.get("host") == socket.gethostname() and not _pid_alive(holder.get("pid")):
        return None
    return holder


def _locked_message(paths: StudyPaths, holder: dict[str, Any]) -> str:
    study = paths.root.name
    if not holder:
        return f"study '{study}' is locked by another itemeval command ({paths.lock}); wait for it to finish or stop it"
    return (
        f"study '{study}' is locked by pid {holder.get('pid')} on host {holder.get('host')} running "
        f"`{holder.get('command')}` since {holder.get('started_at')}; wait for it to finish or stop it"
    )


def _write_holder(fd: int, holder: dict[str, Any]) -> None:
    # Write then truncate: a reader racing us sees the new object first and ignores any old tail.
    data = (json.dumps(holder) + "\n").encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _parse_holder(data: bytes) -> dict[str, Any]:
    """The first JSON object in the lock file, or {} for empty or stale garbage."""
    try:
        holder, _ = json.JSONDecoder().raw_decode(
            data.decode("utf-8", errors="replace").lstrip()
        )
    except json.JSONDecodeError:
        return {}
    return holder if isinstance(holder, dict) else {}


def _pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by someone else
    return True
