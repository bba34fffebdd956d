"""Recovery under the study lock: a dead run's journal parts merged into the stores
before anyone writes, and the read-only commands' replay when nobody holds the lock.
A shard takes no lock and recovers nothing (`as_shard`)."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ..errors import StoreError, StudyLocked, is_write_failure, write_failure_message
from ..paths import StudyPaths
from . import backend
from .journal import live_writers, pending_journal_rows, replay_journals
from .journal_lines import SET_ASIDE, set_aside_lines
from .lock import shard_lock, study_lock

if TYPE_CHECKING:
    from ..records import Shard


@contextlib.contextmanager
def locked(
    paths: StudyPaths, command: str, run_id: str | None = None
) -> Iterator[dict[str, int]]:
    """Hold the study lock (on S3 also its lease, which other machines see), first
    bringing a dead run's journal into the stores; yields rows recovered per store."""
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the study dir {paths.root}: {exc.strerror}; check "
            "output_dir"
        ) from None
    with study_lock(paths, command), backend.study_lease(paths, command, run_id):
        started = time.time()
        backend.fetch_shared(paths)
        try:
            recovered = commit_parts(paths)
        except OSError as exc:
            if not is_write_failure(exc):
                raise
            raise StoreError(
                write_failure_message(exc.filename or paths.root, exc)
            ) from None
        yield recovered
        backend.publish(paths, since=started)


def commit_parts(
    paths: StudyPaths, seen: Callable[[str, dict[str, Any]], None] | None = None
) -> dict[str, int]:
    """Merge every finished journal part into the stores (the caller holds the lock);
    rows merged per store.

    For a study on object storage, the parts shards uploaded are fetched first and
    deleted once merged. `seen` is shown each record before it is merged (a launcher
    counts its shards' rows with it).
    """
    uploaded = backend.fetch_uploaded_parts(paths)
    recovered = {
        store: rows for store, rows in replay_journals(paths, seen=seen).items() if rows
    }
    backend.drop_uploaded_parts(
        paths, [name for name in uploaded if not (paths.journal / name).exists()]
    )
    return recovered


def set_aside_notes(paths: StudyPaths) -> list[str]:
    """What replay could not read, kept under journal/set-aside/ for a person to look
    at."""
    lines = set_aside_lines(paths)
    if not lines:
        return []
    shown = "; ".join(lines[:5]) + (
        f"; … {len(lines) - 5} more" if len(lines) > 5 else ""
    )
    return [
        f"{len(lines)} journal line(s) could not be read and were set aside in "
        f"{paths.journal / SET_ASIDE} (every other row was kept): {shown}"
    ]


def recover_if_idle(paths: StudyPaths) -> tuple[dict[str, int], int]:
    """For read-only commands: replay a dead run's journal when nobody holds the lock.

    Returns (rows recovered per store, rows still pending in a running command's
    journal).
    """
    pending = sum(pending_journal_rows(paths).values())
    if not pending:
        return {}, 0
    try:
        with locked(paths, "itemeval (recovering the journal)") as recovered:
            return recovered, 0
    except StudyLocked:
        return {}, pending


@contextlib.contextmanager
def as_shard(paths: StudyPaths, shard: Shard) -> Iterator[dict[str, int]]:
    """A shard recovers nothing; it runs beside other shards, never another writer
    (nor a second copy of itself on this host), and on object storage uploads its
    journal parts as it goes, where a committer on any machine finds them."""
    _refuse_a_second_writer(paths, shard)
    backend.check_lease(paths)  # a whole-study writer on another machine
    uploader = backend.shard_uploader(paths, f"{shard.tag}-")
    with shard_lock(paths):
        try:
            yield {}
        finally:
            if uploader is not None:
                uploader.close()


def _refuse_a_second_writer(paths: StudyPaths, shard: Shard) -> None:
    """A shard takes no lock, so it checks that the same shard is not running on this
    host already (both would pay for the same cells)."""
    pids = live_writers(paths, f"{shard.tag}-")
    if pids:
        raise StudyLocked(
            f"shard {shard.index}/{shard.count} of {paths.root} is already "
            "running here (pid "
            f"{', '.join(map(str, pids))}); wait for it to end, or stop it, "
            "then run this again"
        )
