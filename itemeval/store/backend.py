"""Which backend holds a study's stores: local parquet parts, or Delta Lake tables on
object storage."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..paths import StudyPaths
from . import local

if TYPE_CHECKING:
    from .mirror import PartUploader

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


# ---- mirroring: what a study on object storage keeps beside its tables. A local
# study's files are already where every command reads them, so these do nothing there.


def fetch_shared(paths: StudyPaths) -> None:
    """Before a write: the dataset locks as the object store has them."""
    if paths.remote is None:
        return
    from . import mirror

    mirror.fetch_file(paths, paths.dataset_locks)


def fetch_uploaded_parts(paths: StudyPaths) -> list[str]:
    """The journal parts shards uploaded, fetched into the local journal; their
    names."""
    if paths.remote is None:
        return []
    from . import mirror

    uploaded = mirror.remote_parts(paths)
    mirror.fetch_parts(paths, uploaded)
    return uploaded


def drop_uploaded_parts(paths: StudyPaths, names: Sequence[str]) -> None:
    """Delete uploaded journal parts once they are merged."""
    if paths.remote is None or not names:
        return
    from . import mirror

    mirror.drop_parts(paths, names)


def publish(paths: StudyPaths, *, since: float) -> None:
    """After a write: publish the stores' snapshot, and upload the dataset locks and
    the manifests written since `since`."""
    if paths.remote is None:
        return
    from . import mirror
    from .remote import storage_options_for
    from .snapshot import publish_snapshot

    publish_snapshot(paths.remote, storage_options=storage_options_for(paths.remote))
    manifests = (
        [p for p in paths.manifests.glob("*.json") if p.stat().st_mtime >= since]
        if paths.manifests.is_dir()
        else []
    )
    mirror.upload(paths, [paths.dataset_locks, *manifests])


def shard_uploader(paths: StudyPaths, prefix: str) -> PartUploader | None:
    """A shard of a study on object storage: fetch the dataset locks and whatever an
    earlier attempt of this shard uploaded (it resumes from there, on any node), then
    keep uploading its parts (named `prefix`...) while it runs; close it at the end."""
    if paths.remote is None:
        return None
    from . import mirror

    mirror.fetch_file(paths, paths.dataset_locks)
    mirror.fetch_own_parts(paths, prefix)
    return mirror.PartUploader(paths, prefix)
