"""The durable journal: each finished sample's row, safe from a killed process as soon
as it is appended and fsynced within SYNC_INTERVAL_S, until it is replayed into the
stores.

A journal file is `journal/<run_id>-<pid>-<random>.jsonl`, one `{"store": ..., "row":
{...}}` per line. A writer killed mid-line leaves a torn last line, which replay
ignores; every earlier line is whole. Replay is a keyed upsert, so replaying the same
lines twice changes nothing.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import StoreError
from ..paths import StudyPaths
from .backend import upsert
from .files import fsync_path
from .journal_lines import checked_table, chunks, records
from .schemas import KEY_DEFAULTS, STORES

SYNC_INTERVAL_S = 0.25
"""How often the background thread fsyncs: a record survives a power cut within about
this long (a killed process loses nothing appended, which the OS already holds)."""

REPLAY_CHUNK_ROWS = 2000
"""Rows upserted at a time during replay, so memory stays bounded however long the
journal is."""

_STORE_PREFIX = re.compile(rb'^\{"store":"([a-z]+)",')
# files of live writers in this process, which replay must not take
_OPEN: set[Path] = set()
_OPEN_LOCK = threading.Lock()


class JournalWriter:
    """Appends rows to a fresh journal file, each handed to the OS at once; a
    background thread fsyncs every SYNC_INTERVAL_S."""

    def __init__(
        self, paths: StudyPaths, run_id: str, *, interval_s: float = SYNC_INTERVAL_S
    ) -> None:
        paths.journal.mkdir(parents=True, exist_ok=True)
        self.path = (
            paths.journal / f"{run_id}-{os.getpid()}-{secrets.token_hex(3)}.jsonl"
        )
        self._file = open(self.path, "x", encoding="utf-8")
        fsync_path(paths.journal)
        with _OPEN_LOCK:
            _OPEN.add(self.path)
        self._lock = threading.Lock()
        self._dirty = False
        self._closed = False
        self._error: OSError | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._sync_loop,
            args=(interval_s,),
            name="itemeval-journal",
            daemon=True,
        )
        self._thread.start()

    def append(self, store: str, row: dict[str, Any]) -> None:
        """Queue one row for `store`; it costs a JSON encoding and a buffered write,
        never an fsync."""
        line = encode_line(store, row)
        with self._lock:
            if self._closed:
                raise StoreError(f"journal {self.path} is closed")
            if self._error is not None:
                self._raise_error()
            try:
                self._file.write(line)
                # Handed to the OS at once, so a killed process loses nothing appended;
                # only the fsync (survival of a power cut) waits for the background
                # thread.
                self._file.flush()
            # nothing more goes in after a failed write: a torn line stays the last
            except OSError as exc:
                self._error = exc
                raise
            self._dirty = True

    def close(self) -> None:
        """Make everything appended durable and close the file (it stays until
        replayed)."""
        if self._closed:
            return
        self._stop.set()
        self._thread.join()
        with self._lock:
            self._closed = True
        try:
            self._sync()
        except OSError as exc:
            self._error = self._error or exc
        finally:
            self._file.close()
            with _OPEN_LOCK:
                _OPEN.discard(self.path)
        if self._error is not None:
            self._raise_error()

    def _raise_error(self) -> None:
        """The first failed write, again, as an OSError naming this file (a full disk
        is the caller's to report)."""
        error = self._error
        assert error is not None
        raise OSError(
            error.errno, error.strerror or str(error), str(self.path)
        ) from error

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _sync_loop(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                self._sync()
            except (
                OSError
            ) as exc:  # disk full, I/O error: surfaced by the next append or close
                self._error = exc
                return

    def _sync(self) -> None:
        with self._lock:
            if not self._dirty:
                return
            self._file.flush()
            self._dirty = False
        # fsync outside the lock so appends from the event loop never wait for the disk
        os.fsync(self._file.fileno())


def replay_journals(
    paths: StudyPaths,
    *,
    chunk_rows: int = REPLAY_CHUNK_ROWS,
    seen: Callable[[str, dict[str, Any]], None] | None = None,
) -> dict[str, int]:
    """Upsert every complete journal record into its store, oldest file first, then
    delete the files.

    Returns the records replayed per store; `seen` is shown each record as it goes (a
    launcher counts its shards' rows with it). The caller holds the study lock. A crash
    anywhere in here is harmless: files are deleted only after all their records are in
    the stores.
    """
    keys: dict[str, set[tuple[Any, ...]]] = {}
    for path in _journal_files(paths):
        _replay_file(paths, path, chunk_rows, seen, keys)
        path.unlink()
        fsync_path(paths.journal)
    return {store: len(found) for store, found in keys.items()}


def _replay_file(
    paths: StudyPaths,
    path: Path,
    chunk_rows: int,
    seen: Callable[[str, dict[str, Any]], None] | None,
    keys: dict[str, set[tuple[Any, ...]]],
) -> None:
    """Upsert one journal file's records into their stores, chunk by chunk; the keys
    of its rows are added to `keys`."""
    chunk_no: dict[str, int] = {}
    for store, numbered in chunks(paths, path, chunk_rows):
        # On object storage each chunk's commit is marked with the part's name and
        # the chunk's number, so a replay that crashed midway, or a part committed
        # twice, never merges an old row over a newer one.
        chunk_no[store] = chunk_no.get(store, 0) + 1
        table = checked_table(paths, path, store, numbered)
        rows = table.to_pylist() if seen is not None else ()
        for row in rows:
            seen(store, row)
        upsert(
            paths,
            store,
            table,
            app=(f"journal/{path.name}/{store}", chunk_no[store]),
        )
        key = STORES[store][1]
        # a row journaled twice (a resumed shard, a replay cut short) is one row
        # recovered
        keys.setdefault(store, set()).update(
            zip(*(table.column(name).to_pylist() for name in key))
        )


def pending_journal_rows(paths: StudyPaths) -> dict[str, int]:
    """Complete records per store waiting in journals; read-only, safe while another
    command writes them."""
    counts: dict[str, int] = {}
    for path in _journal_files(paths, include_open=True):
        with open(path, "rb") as handle:
            for raw in handle:
                match = _STORE_PREFIX.match(raw)
                if match and raw.endswith(b"\n"):
                    store = match.group(1).decode()
                    counts[store] = counts.get(store, 0) + 1
    return counts


def encode_line(store: str, row: dict[str, Any]) -> str:
    if store not in STORES:
        raise StoreError(f"unknown store {store!r}; known: {', '.join(STORES)}")
    unknown = sorted(set(row) - set(STORES[store][0].names))
    if unknown:
        raise StoreError(
            f"unknown column(s) {', '.join(unknown)} for the {store} store"
        )
    # compact separators keep `{"store":"<name>",` a fixed prefix that
    # pending_journal_rows can match
    record = json.dumps(
        {"store": store, "row": row},
        separators=(",", ":"),
        ensure_ascii=False,
        default=_json_value,
    )
    return record + "\n"


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalars from pandas-built rows
        return value.item()
    raise TypeError(f"cannot journal a value of type {type(value).__name__}: {value!r}")


def _journal_files(paths: StudyPaths, *, include_open: bool = False) -> list[Path]:
    """Journal files oldest first; without `include_open`, not those a live process
    on this host still writes (a shard runs without the study lock, so a replay must
    leave its parts alone until it ends)."""
    if not paths.journal.is_dir():
        return []
    with _OPEN_LOCK:
        live = set() if include_open else set(_OPEN)
    files = [
        path
        for path in paths.journal.glob("*.jsonl")
        if path not in live and (include_open or not _writer_alive(path))
    ]
    return sorted(files, key=lambda path: (path.stat().st_mtime_ns, path.name))


_WRITER = re.compile(r"-(\d+)-[0-9a-f]{6}\.jsonl$")


def seal(path: Path) -> Path:
    """A closed (fsynced) journal part renamed without its writer's pid, so the next
    command that takes the lock merges it though its writer lives on: for a writer
    that closes a part after each row (the view's labels), whose parts would
    otherwise wait for it to exit. The rename is atomic: a reader sees the part
    whole under its new name, or not at all."""
    match = _WRITER.search(path.name)
    if match is None:
        return path
    name = path.name
    sealed = path.with_name(f"{name[: match.start()]}-sealed{name[match.end(1) :]}")
    os.replace(path, sealed)
    fsync_path(path.parent)
    return sealed


def _writer_alive(path: Path) -> bool:
    match = _WRITER.search(path.name)
    if match is None or int(match.group(1)) == os.getpid():
        return False
    pid = int(match.group(1))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    stat = _proc_stat(pid)
    if stat is None:  # no /proc (macOS): alive until reaped
        return True
    return stat[0] != b"Z" and not _started_after(stat, path)


def _proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (the first is the
    state), or None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _started_after(stat: list[bytes], path: Path) -> bool:
    """Whether the process started after `path` was last written. Its writer started
    before writing it, so such a process only re-uses the pid of a writer that is
    gone (pids wrap around), and waiting for it would wait forever. Two seconds of
    slack cover the boot time's rounding and clock adjustments."""
    try:
        started = _boot_time() + int(stat[19]) / os.sysconf("SC_CLK_TCK")
        return started > path.stat().st_mtime + 2.0
    except (OSError, IndexError, ValueError):
        return False


@functools.cache
def _boot_time() -> float:
    with open("/proc/stat", "rb") as handle:
        for line in handle:
            if line.startswith(b"btime "):
                return float(line.split()[1])
    raise OSError("no btime in /proc/stat")


def live_writers(paths: StudyPaths, prefix: str) -> list[int]:
    """Pids of other processes on this host still writing journal parts whose name
    starts with `prefix`."""
    if not paths.journal.is_dir():
        return []
    pids = {
        int(match.group(1))
        for path in paths.journal.glob(f"{prefix}*.jsonl")
        if (match := _WRITER.search(path.name)) and _writer_alive(path)
    }
    return sorted(pids)


def journaled_keys(
    paths: StudyPaths, prefix: str, store: str, key: Sequence[str]
) -> set[tuple[Any, ...]]:
    """Keys of the error-free rows for `store` in journal files whose name starts
    with `prefix` ("" for every part: a shard skips a cell any part holds, its own,
    another shard's of any partition, an interrupted run's)."""
    keys = set()
    # a line journaled before a key column existed holds its default (KEY_DEFAULTS)
    defaults = KEY_DEFAULTS.get(store, {})
    for path in (
        sorted(paths.journal.glob(f"{prefix}*.jsonl")) if paths.journal.is_dir() else []
    ):
        for record_store, row in records(path):
            if record_store == store and row.get("error") is None:
                keys.add(tuple(_or(row.get(name), defaults.get(name)) for name in key))
    return keys


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value
