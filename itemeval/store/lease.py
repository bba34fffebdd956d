"""The study lease on S3: the study lock across machines, held as `lease.json` in the
study's prefix, written only by conditional PUTs and renewed while its holder runs.

The local lock (`lock.py`) is a flock in this machine's working dir, which another
machine never sees; the lease is what two machines on one bucket both see. It is
created with If-None-Match: * (one machine wins), renewed with If-Match on the ETag its
holder last wrote, and taken over, once expired, with If-Match on the ETag read, so two
machines cannot both take over one expired lease. Expiry is judged by the server's
clock alone (the object's Last-Modified against the Date of the GET that read it).
"""

from __future__ import annotations

import functools
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import StoreError, StudyLocked
from .conditional import ConditionalObject, Version, conditional_object

LEASE = "lease.json"
TTL_ENV = "ITEMEVAL_LEASE_S"
DEFAULT_TTL_S = 120.0
"""How long a lease holds without renewal: how long a machine that died holding it
keeps others out. Its holder renews it every quarter of that."""
LAUNCH_ENV = "ITEMEVAL_LAUNCH_ID"
"""The launch a shard belongs to: its launcher's lease lets it in."""
HOST_ENV = "ITEMEVAL_HOST"
"""This machine's name in the lease, where host names are not unique (containers on
the host's network)."""
_ATTEMPTS = 5


class LeaseHolder(BaseModel):
    """`lease.json`: who holds the study, for how long. The times are the holder's
    clock, for people; expiry itself is judged by the server's (`_expired`)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    host: str
    pid: int
    command: str
    run_id: str | None = None
    launch_id: str
    acquired_at: str
    renewed_at: str
    expires_at: str
    ttl_s: float
    nonce: str
    """New at every write: an ETag is the MD5 of the body, so two writes of the same
    holder within one second would otherwise share one, and an If-Match meant for the
    first would also match the second."""


def host_name() -> str:
    return os.environ.get(HOST_ENV) or socket.gethostname()


@functools.cache
def _own_launch_id() -> str:
    return uuid.uuid4().hex


def launch_id() -> str:
    """This process's launch: the one it was started for, else its own."""
    return os.environ.get(LAUNCH_ENV) or _own_launch_id()


def ttl_s() -> float:
    return float(os.environ.get(TTL_ENV) or DEFAULT_TTL_S)


class StudyLease:
    """A lease this process holds, renewed in the background until released."""

    def __init__(
        self, target: ConditionalObject, holder: LeaseHolder, etag: str
    ) -> None:
        self.target, self.holder, self._etag = target, holder, etag
        self.lost = False
        """Whether the lease was taken over while this process held it (it could
        not renew in time)."""
        self.taken_by: LeaseHolder | None = None
        """Who holds it now, when it was lost and is still held."""
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="itemeval-lease", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.holder.ttl_s / 4):
            try:
                self.renew()
            # the store is unreachable for now: the next round tries, before expiry
            except OSError:
                continue

    def renew(self) -> bool:
        """Push the expiry on; False when the lease is no longer ours."""
        holder = _stamped(self.holder, acquired_at=self.holder.acquired_at)
        etag = self.target.replace(_body(holder), self._etag)
        if etag is None:
            self._lose()
            return False
        self.holder, self._etag = holder, etag
        return True

    def _lose(self) -> None:
        self.lost = True
        self._stop.set()
        current = self.target.read()
        self.taken_by = _parse(self.target, current) if current else None

    def release(self) -> None:
        """Stop renewing and delete the lease if it is still ours (else it was taken
        over and is the new holder's)."""
        self._stop.set()
        self._thread.join()
        if self.lost:
            return
        try:
            # a renewal that failed otherwise than by OSError ended the heartbeat:
            # the lease may have expired and changed hands meanwhile
            if not self.target.delete(self._etag):
                self._lose()
        except OSError:
            pass  # unreachable: it expires by itself


@contextmanager
def study_lease(
    study_uri: str, options: dict[str, str], command: str, run_id: str | None = None
) -> Iterator[StudyLease | None]:
    """Hold the lease of a study on S3 while the block runs, or raise StudyLocked
    naming its holder at once; does nothing off S3."""
    target = conditional_object(study_uri, options, LEASE)
    if target is None:
        yield None
        return
    try:
        lease = _acquire(target, _identity(command, run_id))
    except OSError as exc:
        raise StoreError(_unreachable(target, exc)) from exc
    try:
        yield lease
    finally:
        lease.release()
    if lease.lost:
        raise StudyLocked(_lost_message(target, lease.taken_by))


def check_lease(study_uri: str, options: dict[str, str]) -> None:
    """A shard may run unless a writer outside its launch holds the lease."""
    target = conditional_object(study_uri, options, LEASE)
    if target is None:
        return
    try:
        current = target.read()
    except OSError as exc:
        raise StoreError(_unreachable(target, exc)) from exc
    if current is None:
        return
    holder = _parse(target, current)
    if holder.launch_id != os.environ.get(LAUNCH_ENV) and not _takeable(
        current, holder
    ):
        raise StudyLocked(_held_message(target, holder))


def read_lease(study_uri: str, options: dict[str, str]) -> LeaseHolder | None:
    """Who holds the study's lease now; None when nobody does (or it expired)."""
    target = conditional_object(study_uri, options, LEASE)
    current = target.read() if target is not None else None
    if current is None:
        return None
    holder = _parse(target, current)
    return None if _expired(current, holder) else holder


def _acquire(target: ConditionalObject, holder: LeaseHolder) -> StudyLease:
    """Create the lease, or take over an expired one; refuse a live one."""
    for _ in range(_ATTEMPTS):
        etag = target.create(_body(holder))
        if etag is not None:
            return StudyLease(target, holder, etag)
        current = target.read()
        if current is None:
            continue  # released between our PUT and our GET
        if not _takeable(current, _parse(target, current)):
            raise StudyLocked(_held_message(target, _parse(target, current)))
        etag = target.replace(_body(holder), current.etag)
        if etag is not None:
            return StudyLease(target, holder, etag)
    raise StudyLocked(
        f"the lease {target.uri} kept changing hands while this command tried to "
        "take it: other machines are starting writers on this study; wait for them"
    )


def _takeable(current: Version, holder: LeaseHolder) -> bool:
    """Expired, or held by a process of this machine that is gone (killed: nobody
    need wait out its expiry)."""
    if _expired(current, holder):
        return True
    return holder.host == host_name() and _gone(holder.pid)


def _gone(pid: int) -> bool:
    # not lock.py's check: lock imports the journal, which imports the backend
    if pid <= 0:
        return True  # no process of ours; 0 and -1 would name groups
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


def _expired(current: Version, holder: LeaseHolder) -> bool:
    return current.now >= current.modified + timedelta(seconds=holder.ttl_s)


def _identity(command: str, run_id: str | None) -> LeaseHolder:
    now = _now()
    return _stamped(
        LeaseHolder(
            host=host_name(),
            pid=os.getpid(),
            command=command,
            run_id=run_id,
            launch_id=launch_id(),
            acquired_at=now,
            renewed_at=now,
            expires_at=now,
            ttl_s=ttl_s(),
            nonce="",
        ),
        acquired_at=now,
    )


def _stamped(holder: LeaseHolder, *, acquired_at: str) -> LeaseHolder:
    now = datetime.now(timezone.utc)
    return holder.model_copy(
        update={
            "acquired_at": acquired_at,
            "renewed_at": now.isoformat(timespec="seconds"),
            "expires_at": (now + timedelta(seconds=holder.ttl_s)).isoformat(
                timespec="seconds"
            ),
            "nonce": uuid.uuid4().hex,
        }
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _body(holder: LeaseHolder) -> bytes:
    return holder.model_dump_json(indent=2).encode()


def _parse(target: ConditionalObject, current: Version) -> LeaseHolder:
    try:
        return LeaseHolder.model_validate_json(current.body)
    except ValidationError as exc:
        raise StoreError(
            f"{target.uri} is not an itemeval study lease ({exc.error_count()} "
            "problem(s)); delete it if no itemeval command is writing this study"
        ) from None


def _held_message(target: ConditionalObject, holder: LeaseHolder) -> str:
    run = f", run {holder.run_id}" if holder.run_id else ""
    return (
        f"study {target.uri.removesuffix('/' + LEASE)} is leased to pid "
        f"{holder.pid} on host {holder.host} running `{holder.command}` "
        f"(launch {holder.launch_id}{run}) since {holder.acquired_at}; the lease "
        f"({target.uri}) expires at {holder.expires_at} unless its holder renews it "
        f"(every {holder.ttl_s / 4:g} s while it runs); wait for it to finish or "
        "stop it"
    )


def _lost_message(target: ConditionalObject, holder: LeaseHolder | None) -> str:
    by = (
        f"by pid {holder.pid} on host {holder.host} running `{holder.command}`"
        if holder is not None
        else "by another writer, which has released it since"
    )
    return (
        f"this command could not renew its lease {target.uri} in time and it was "
        f"taken over {by}; every row written is in the tables (keyed MERGE), but "
        "both may have paid for the same cells. Check the connection to the store"
    )


def _unreachable(target: ConditionalObject, exc: OSError) -> str:
    return (
        f"cannot read or write the study lease {target.uri}: {exc}; check the URI, "
        "the credentials and that the object store is reachable, then re-run"
    )
