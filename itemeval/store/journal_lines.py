"""Reading a journal file line by line: its records in order, in bounded chunks, and
the lines that cannot be read set aside under journal/set-aside/ (kept, never deleted)
so they never block the file's other rows (see `journal`)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import StoreError
from ..paths import StudyPaths
from .schemas import STORES
from .table import coerce_rows


def checked_table(
    paths: StudyPaths, path: Path, store: str, numbered: list[tuple[int, dict]]
) -> pa.Table:
    """The chunk's rows as the store's table; a row whose values do not fit the store's
    columns (a hand-edited or foreign line) is set aside naming its file and line."""
    try:
        return coerce_rows(store, [row for _, row in numbered])
    except (StoreError, pa.ArrowException, TypeError, ValueError, OverflowError):
        # find the offending rows one by one: rare, so the common path stays one call
        pass
    good = []
    for number, row in numbered:
        try:
            coerce_rows(store, [row])
        except (
            StoreError,
            pa.ArrowException,
            TypeError,
            ValueError,
            OverflowError,
        ) as exc:
            set_aside(
                paths,
                path,
                number,
                json.dumps({"store": store, "row": row}, default=str),
                f"values do not fit the {store} store: {exc}",
            )
            continue
        good.append(row)
    return coerce_rows(store, good)


SET_ASIDE = "set-aside"
"""Journal lines that could not be read, kept under journal/set-aside/ (never
deleted)."""


def set_aside(paths: StudyPaths, path: Path, number: int, line: str, why: str) -> None:
    folder = paths.journal / SET_ASIDE
    folder.mkdir(exist_ok=True)
    record = {"file": path.name, "line": number, "why": why[:300], "text": line}
    with open(folder / f"{path.stem}.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def set_aside_lines(paths: StudyPaths) -> list[str]:
    """`file line N: why` for every journal line set aside so far, for messages."""
    folder = paths.journal / SET_ASIDE
    found = []
    for part in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for raw in part.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(raw)
                found.append(f"{record['file']} line {record['line']}: {record['why']}")
            except (ValueError, KeyError, TypeError):
                continue
    return found


def chunks(
    paths: StudyPaths, path: Path, size: int
) -> Iterator[tuple[str, list[tuple[int, dict]]]]:
    """(store, [(line number, row)]) batches in file order; at most `size` rows held
    at once.

    A line that cannot be read is set aside (journal/set-aside/), never blocking the
    file's other rows; a torn last line is a killed writer's and skipped silently."""
    pending: dict[str, list[tuple[int, dict]]] = {}
    held = 0
    for number, record in numbered_records(path):
        if isinstance(record, bytes):
            text = record.decode("utf-8", errors="replace")
            set_aside(paths, path, number, text, "not a journal record")
            continue
        store, row = record
        pending.setdefault(store, []).append((number, row))
        held += 1
        if held >= size:
            yield from pending.items()
            pending, held = {}, 0
    yield from pending.items()


def records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """The file's readable records (for resuming a shard: unreadable ones are
    skipped)."""
    for _, record in numbered_records(path):
        if not isinstance(record, bytes):
            yield record


def numbered_records(
    path: Path,
) -> Iterator[tuple[int, tuple[str, dict[str, Any]] | bytes]]:
    """(line number, record), or the raw line when it is not a record; a torn last line
    (no newline, or unreadable at the end) is dropped."""
    with open(path, "rb") as handle:
        previous: tuple[int, bytes] | None = None
        for number, raw in enumerate(handle, start=1):
            if previous is not None:
                yield previous[0], decode_line(*previous) or previous[1]
            previous = (number, raw)
        if previous is not None and previous[1].endswith(b"\n"):
            record = decode_line(*previous)
            if record is not None:
                yield previous[0], record


def decode_line(number: int, raw: bytes) -> tuple[str, dict[str, Any]] | None:
    try:
        record = json.loads(raw)
        store, row = record["store"], record["row"]
        if store in STORES and isinstance(row, dict):
            return store, row
    except (ValueError, KeyError, TypeError):
        pass
    return None
