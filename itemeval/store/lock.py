"""The study lock: one writing command per study at a time, held with flock for the
command's whole run."""

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

from ..errors import ConfigError, StudyLocked
from ..paths import StudyPaths


@contextmanager
def study_lock(paths: StudyPaths, command: str) -> Iterator[dict[str, Any]]:
    """Hold the study's exclusive lock while the block runs, or raise StudyLocked naming
    the holder at once.

    The OS drops a flock when its holder dies, however it dies, so a killed command's
    lock is taken over by the next one; the JSON in the file is only there to tell users
    who holds it.
    """
    paths.root.mkdir(parents=True, exist_ok=True)
    fd = _open_locked(paths, fcntl.LOCK_EX)
    if fd is None:
        holder = lock_holder(paths) or {}
        raise StudyLocked(_locked_message(paths, holder, _shard_pids(paths)))
    try:
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": command,
            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        # a full disk: the lock holds all the same, status just cannot name us
        with contextlib.suppress(OSError):
            _write_holder(fd, holder)
        try:
            yield holder
        finally:
            # an empty file reads as "nobody" to status, before we let go
            os.ftruncate(fd, 0)
            _remove_if_empty(paths)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _open_locked(paths: StudyPaths, how: int) -> int | None:
    """An fd of `.lock` holding the flock `how`, or None when someone holds it already.

    The file may be removed by the holder of an empty study (`_remove_if_empty`) while
    we wait, so after locking we check that the path is still our file, else open it
    again.
    """
    while True:
        fd = _open_lock_file(paths)
        try:
            fcntl.flock(fd, how | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.stat(paths.lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _open_lock_file(paths: StudyPaths) -> int:
    # O_CREAT without O_TRUNC: the holder's details must survive until we know we hold
    # the lock.
    try:
        return os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a directory named .lock; a study dir that is /proc
        raise ConfigError(
            f"{paths.lock} cannot be itemeval's lock file ({exc.strerror}); check that "
            f"{paths.root} is a study directory (remove a stray .lock that is "
            "not a file)"
        ) from None


def _remove_if_empty(paths: StudyPaths) -> None:
    """A command that created the study and wrote nothing (`--limit 0`, a refused
    cap) leaves no study directory behind; it still holds the lock, so nobody else is
    inside."""
    with contextlib.suppress(OSError):
        if os.listdir(paths.root) == [paths.lock.name]:
            paths.lock.unlink()
            paths.root.rmdir()


LAUNCHER_ENV = "ITEMEVAL_LAUNCHER"
"""`pid@host` of the launcher whose study lock its shards run under."""


def own_token() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


@contextmanager
def shard_lock(paths: StudyPaths) -> Iterator[None]:
    """Let a shard run beside other shards, never beside a whole-study writer.

    Shards hold `.lock` shared, so `generate`/`grade`/`launch`/`commit`, which hold it
    exclusive, cannot start while one runs, and a shard cannot start while one of them
    runs, unless that one is the launcher that started this shard (`LAUNCHER_ENV`).
    """
    paths.root.mkdir(parents=True, exist_ok=True)
    fd = _open_locked(paths, fcntl.LOCK_SH)
    try:
        if fd is None:
            holder = lock_holder(paths) or {}
            if f"{holder.get('pid')}@{holder.get('host')}" != os.environ.get(
                LAUNCHER_ENV
            ):
                raise StudyLocked(_locked_message(paths, holder))
        yield
    finally:
        if fd is not None:
            os.close(fd)  # closing the last descriptor drops the shared lock


def lock_holder(paths: StudyPaths) -> dict[str, Any] | None:
    """Who holds the study lock, for read-only commands; None when nobody seems to.

    It never takes the lock itself (that could make a starting writer fail), so it
    trusts the file's JSON unless its process is gone on this host.
    """
    try:
        with open(paths.lock, "rb") as handle:
            holder = _parse_holder(handle.read())
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    if not holder:
        return None
    if holder.get("host") == socket.gethostname() and not _pid_alive(holder.get("pid")):
        return None
    return holder


def _shard_pids(paths: StudyPaths) -> list[int]:
    # journal imports the store backend: only when locked
    from .journal import (
        live_writers,
    )

    return live_writers(paths, "")


def _locked_message(
    paths: StudyPaths, holder: dict[str, Any], shards: list[int] = ()
) -> str:
    study = paths.root.name
    if not holder and shards:
        return (
            f"study '{study}' is being written by shard process(es) pid "
            f"{', '.join(map(str, shards))} on this host; wait for them to finish "
            "(then `itemeval commit`) or stop them"
        )
    if not holder:
        return (
            f"study '{study}' is locked by another itemeval command "
            f"({paths.lock}); wait for it to finish or stop it"
        )
    return (
        f"study '{study}' is locked by pid {holder.get('pid')} on host "
        f"{holder.get('host')} running "
        f"`{holder.get('command')}` since {holder.get('started_at')}; wait for "
        "it to finish or stop it"
    )


def _write_holder(fd: int, holder: dict[str, Any]) -> None:
    # Write then truncate: a reader racing us sees the new object first and ignores any
    # old tail.
    data = (json.dumps(holder) + "\n").encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


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
