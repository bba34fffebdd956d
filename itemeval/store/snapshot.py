"""Plain-parquet snapshots of a study's Delta tables, named in `latest.json`, for
readers that know no Delta."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Literal

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import StoreError
from .conditional import ConditionalObject, conditional_object
from .delta import STORAGE_ERRORS, open_delta, scan_delta
from .delta_integrity import verify_delta
from .remote import filesystem_for, join_uri, storage_options_for
from .schemas import STORES
from .table import check_columns, last_per_key, read_dataset

LATEST = "latest.json"
SNAPSHOTS = "snapshots"
ROW_GROUP_ROWS = 100_000
"""Rows per parquet row group: small enough that a reader filtering on condition ids
skips most of the file."""
_READ_ATTEMPTS = 3
_PUBLISH_ATTEMPTS = 5


class SnapshotEntry(BaseModel):
    """One store's snapshot: the Delta version it shows, its file relative to the
    study, its row count."""

    model_config = ConfigDict(extra="forbid")

    version: int
    path: str
    rows: int


class Latest(BaseModel):
    """`latest.json`: the snapshot of each store that readers should use now."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    published_at: str
    stores: dict[str, SnapshotEntry]


def publish_snapshot(
    study_uri: str,
    stores: Sequence[str] = ("items", "solutions", "grades", "pairwise"),
    *,
    storage_options: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Write each existing store's current Delta version as one parquet file, then name
    them in `latest.json`.

    `latest.json` is replaced by a single PUT, so a reader sees the previous snapshots
    or the new ones, never a mix; on S3 the PUT is conditional on the version read, so
    a slow publisher re-reads rather than overwrite a newer one. Each store keeps its
    current and previous files (a reader that has just read the old `latest.json`
    still finds its file); older ones are deleted. Returns the new `latest.json`
    document.
    """
    options = (
        storage_options_for(study_uri) if storage_options is None else storage_options
    )
    try:
        return _publish(study_uri, stores, options).model_dump()
    except STORAGE_ERRORS as exc:
        raise StoreError(
            f"cannot publish the snapshots of {study_uri}: {exc}; check the "
            "URI, the credentials "
            "and that the object store is reachable, then re-run"
        ) from exc


def read_snapshot(
    study_uri: str,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
    storage_options: dict[str, str] | None = None,
) -> pa.Table:
    """A store's rows as of the snapshot `latest.json` names, with `read_delta`'s
    contract; empty when none."""
    schema, _ = STORES[store]
    names = list(schema.names if columns is None else columns)
    check_columns(store, names)
    check_columns(store, list(where or {}))
    options = (
        storage_options_for(study_uri) if storage_options is None else storage_options
    )
    fs, root = filesystem_for(study_uri, options)
    try:
        # the snapshot is a copy: a damaged table is refused here as by every writer
        table = open_delta(join_uri(study_uri, store), options)
        if table is not None:
            verify_delta(table, options)
        rows = _read_named(fs, root, study_uri, store, names, where or {})
    except STORAGE_ERRORS as exc:
        raise StoreError(
            f"cannot read the {store} snapshot of {study_uri}: {exc}; check "
            "the URI, the credentials "
            "and that the object store is reachable"
        ) from exc
    if rows is None:
        raise StoreError(
            f"the snapshots of {study_uri} kept changing while being read; retry "
            "when the commits end"
        )
    return rows


def _read_named(
    fs: Any,
    root: str,
    study_uri: str,
    store: str,
    names: list[str],
    where: Mapping[str, Collection[Any]],
) -> pa.Table | None:
    """The rows of the snapshot `latest.json` names (empty when none), reading
    `latest.json` again when that snapshot is gone; None when it kept changing."""
    schema, _ = STORES[store]
    for _ in range(_READ_ATTEMPTS):
        latest = _read_latest(fs, root, study_uri)
        entry = latest.stores.get(store) if latest else None
        if entry is None:
            return schema.empty_table().select(names)
        try:
            # The store's schema gives its exact types, and nulls for columns the
            # snapshot predates.
            dataset = ds.dataset(
                f"{root}/{entry.path}",
                schema=schema,
                format="parquet",
                filesystem=fs,
            )
            return read_dataset(store, dataset, names, where)
        except FileNotFoundError:
            # two newer snapshots were published since we read latest.json: read it
            # again
            continue
    return None


def read_latest(
    study_uri: str, *, storage_options: dict[str, str] | None = None
) -> Latest | None:
    """The study's `latest.json`; None before the first snapshot."""
    options = (
        storage_options_for(study_uri) if storage_options is None else storage_options
    )
    return _read_latest(*filesystem_for(study_uri, options), study_uri)


def _publish(study_uri: str, stores: Sequence[str], options: dict[str, str]) -> Latest:
    fs, root = filesystem_for(study_uri, options)
    fresh = {
        store: entry
        for store in stores
        if (entry := _publish_store(fs, root, study_uri, store, options)) is not None
    }
    index = conditional_object(study_uri, options, LATEST)
    for _ in range(_PUBLISH_ATTEMPTS):
        previous, etag = _read_versioned(fs, root, study_uri, index)
        latest = Latest(
            published_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            stores=_newest(previous, fresh),
        )
        if _put_latest(fs, root, index, latest, etag):
            break
    else:
        raise StoreError(
            f"{join_uri(study_uri, LATEST)} kept changing while this command "
            "published its snapshots (other machines are publishing); the tables "
            "hold every row, and the next command to write publishes again"
        )
    for store, entry in latest.stores.items():
        _remove_older(fs, root, store, current=entry.version)
    return latest


def _newest(
    previous: Latest | None, fresh: Mapping[str, SnapshotEntry]
) -> dict[str, SnapshotEntry]:
    """Each store's newer snapshot of the published and ours: never step back
    behind one a concurrent publisher made newer."""
    entries = dict(previous.stores) if previous else {}
    for store, entry in fresh.items():
        older = entries.get(store)
        if older is None or entry.version >= older.version:
            entries[store] = entry
    return entries


def _read_versioned(
    fs: Any, root: str, study_uri: str, index: ConditionalObject | None
) -> tuple[Latest | None, str | None]:
    """`latest.json` and, on S3, the ETag to publish over (None: there is none)."""
    if index is None:
        return _read_latest(fs, root, study_uri), None
    current = index.read()
    if current is None:
        return None, None
    return _parse_latest(current.body, study_uri), current.etag


def _put_latest(
    fs: Any,
    root: str,
    index: ConditionalObject | None,
    latest: Latest,
    etag: str | None,
) -> bool:
    """One PUT: readers see the old index or the new, never half. On S3 it holds
    only if `latest.json` is still the version read (a slower publisher read before a
    newer one was published); whether it was written."""
    body = latest.model_dump_json(indent=2).encode()
    if index is None:
        fs.pipe_file(f"{root}/{LATEST}", body)
        return True
    written = index.create(body) if etag is None else index.replace(body, etag)
    return written is not None


def _read_latest(fs: Any, root: str, study_uri: str) -> Latest | None:
    try:
        return _parse_latest(fs.cat_file(f"{root}/{LATEST}"), study_uri)
    except FileNotFoundError:
        return None


def _parse_latest(data: bytes, study_uri: str) -> Latest:
    try:
        return Latest.model_validate_json(data)
    except ValidationError as exc:
        raise StoreError(
            f"{join_uri(study_uri, LATEST)} is not an itemeval snapshot index ({exc}); "
            "move it away and publish again"
        ) from exc


def snapshot_path(store: str, version: int) -> str:
    """Where a store's snapshot of one Delta version lives, relative to the study."""
    return f"{SNAPSHOTS}/{store}-v{version}.parquet"


def _publish_store(
    fs: Any, root: str, study_uri: str, store: str, options: dict[str, str]
) -> SnapshotEntry | None:
    """This store's snapshot of its current version, written unless it already was;
    None for no table."""
    table = open_delta(join_uri(study_uri, store), options)
    if table is None:
        return None
    version = table.version()
    path = snapshot_path(store, version)
    target = f"{root}/{path}"
    # objects appear whole on S3, so an existing file is a finished one
    if fs.exists(target):
        return SnapshotEntry(
            version=version,
            path=path,
            rows=pq.read_metadata(target, filesystem=fs).num_rows,
        )
    rows = scan_delta(table, store)
    _, key = STORES[store]
    if last_per_key(rows, key).num_rows != rows.num_rows:
        raise StoreError(
            f"the {store} table of {study_uri} holds duplicate keys at version "
            f"{version}, so it was "
            "written by something other than itemeval's MERGE; no snapshot was "
            "published"
        )
    pq.write_table(
        rows, target, filesystem=fs, compression="zstd", row_group_size=ROW_GROUP_ROWS
    )
    return SnapshotEntry(version=version, path=path, rows=rows.num_rows)


def _remove_older(fs: Any, root: str, store: str, *, current: int) -> None:
    """Delete this store's snapshot files older than the one before `current`."""
    name = re.compile(rf"^{re.escape(store)}-v(\d+)\.parquet$")
    try:
        listed = fs.ls(f"{root}/{SNAPSHOTS}", detail=False)
    except FileNotFoundError:
        return
    versions = {
        int(match.group(1)): path
        for path in listed
        if (match := name.match(path.rsplit("/", 1)[-1]))
    }
    older = sorted(version for version in versions if version < current)
    if len(older) > 1:
        fs.rm([versions[version] for version in older[:-1]])
