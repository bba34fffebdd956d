"""Which backend holds a study's stores: local parquet parts, or Delta Lake tables on
object storage."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from ..paths import StudyPaths
from . import local

App = tuple[str, int]
"""An app transaction (id, version) a Delta commit records, so the same journal chunk
is never merged twice."""


def upsert(
    paths: StudyPaths,
    store: str,
    rows: pa.Table | Iterable[Mapping[str, Any]],
    *,
    app: App | None = None,
) -> int:
    """Insert or replace `rows` by key in one atomic step; returns the number of
    distinct keys written.

    On object storage it is a keyed MERGE; `app` makes a repeat of the same commit a
    no-op (a local store needs no such mark: the study lock orders its writers)."""
    if paths.remote is None:
        return local.upsert(paths, store, rows)
    from .delta import upsert_delta
    from .remote import storage_options_for

    app_id, app_version = app if app is not None else (None, None)
    return upsert_delta(
        paths.remote_store(store),
        store,
        rows,
        storage_options=storage_options_for(paths.remote),
        app_id=app_id,
        app_version=app_version,
    )


def read_store(
    paths: StudyPaths,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
) -> pa.Table:
    """The store's rows (see local.read_store); for a study on object storage, from
    its Delta table or, for the read-only commands, from the snapshot `latest.json`
    names."""
    from . import memo

    if (
        memo.active()
    ):  # itemeval.frames: one full read per store, every view served from it
        key = (str(paths.remote or paths.root), store)
        return memo.served(
            key, lambda: _read_store(paths, store, None, None), columns, where
        )
    return _read_store(paths, store, columns, where)


def _read_store(
    paths: StudyPaths,
    store: str,
    columns: Sequence[str] | None,
    where: Mapping[str, Collection[Any]] | None,
) -> pa.Table:
    if paths.remote is None:
        return local.read_store(paths, store, columns, where=where)
    from .remote import storage_options_for

    options = storage_options_for(paths.remote)
    if paths.reads == "snapshot":
        from .snapshot import read_snapshot

        return read_snapshot(
            paths.remote, store, columns, where=where, storage_options=options
        )
    from .delta import read_delta

    return read_delta(
        paths.remote_store(store), store, columns, where=where, storage_options=options
    )


def verify_store(paths: StudyPaths, store: str) -> int:
    if paths.remote is None:
        return local.verify_store(paths, store)
    return read_store(paths, store, None).num_rows
