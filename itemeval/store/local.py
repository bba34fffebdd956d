"""The local store backend: each store a symlink to an immutable version directory of
parquet parts (README "Store layout")."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from ..errors import StoreError
from ..paths import StudyPaths
from . import integrity
from .files import fsync_path
from .schemas import STORES
from .table import (
    PartitionPlan,
    check_columns,
    coerce_rows,
    last_per_key,
    merge_partition,
    partition_columns,
    read_dataset,
    readable_schema,
    split_partitions,
    wanted_partitions,
    with_key_defaults,
)

_PART = re.compile(r"^p-(?P<phash>[0-9a-f]{16})-v\d{6,}-\d+\.parquet$")
_VERSION = re.compile(r"^v(\d{6,})$")
# the study lock excludes other processes; this excludes our own threads
_WRITE_LOCK = threading.Lock()
_READ_ATTEMPTS = 3


def upsert(
    paths: StudyPaths, store: str, rows: pa.Table | Iterable[Mapping[str, Any]]
) -> int:
    """Insert or replace `rows` by key in one atomic step; returns the number of
    distinct keys written."""
    _, key = STORES[store]
    table = last_per_key(coerce_rows(store, rows), key)
    if table.num_rows == 0:
        return 0
    with _WRITE_LOCK:
        layout = _open_layout(paths, store)
        _sweep(layout, keep={layout.version, layout.version - 1})
        read_part = partial(_read_part, layout)
        plan = {
            phash: merge_partition(
                layout.parts.get(phash, []), new, key=key, read_part=read_part
            )
            for phash, new in split_partitions(table, partition_columns(store)).items()
        }
        _commit(layout, plan)
    return table.num_rows


def read_store(
    paths: StudyPaths,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
) -> pa.Table:
    """The store's rows (all columns when `columns` is None), optionally only rows whose
    columns take the given values.

    Only the part files and columns needed are read: filtering on every partition column
    (e.g. `where={"condition_id": ids}` for solutions) skips the other partitions' files
    entirely. A missing store reads as an empty table with the store's schema.
    """
    schema, _ = STORES[store]
    names = list(schema.names if columns is None else columns)
    check_columns(store, names)
    for _ in range(_READ_ATTEMPTS):
        try:
            return _read_snapshot(paths, store, names, where or {})
        except FileNotFoundError:
            # a writer garbage-collected the version we resolved: resolve the link again
            continue
    raise StoreError(
        f"{paths.store(store)} kept changing while being read; retry when the "
        "running command ends"
    )


def verify_store(paths: StudyPaths, store: str) -> int:
    """Check every part of a store parses with the right schema and no key repeats;
    returns its row count."""
    schema, key = STORES[store]
    layout = _open_layout(paths, store)
    keys = [
        _read_part(layout, name, key)
        for names in layout.parts.values()
        for name in names
    ]
    table = pa.concat_tables(keys) if keys else schema.empty_table().select(list(key))
    if last_per_key(table, key).num_rows != table.num_rows:
        raise StoreError(
            f"{layout.path} holds duplicate keys; it was not written by itemeval"
        )
    return table.num_rows


def check_store(paths: StudyPaths, store: str) -> None:
    """Refuse a damaged or incomplete store (its integrity record, names, sizes and
    checksums) without reading its rows."""
    layout = _open_layout(paths, store)
    for names in layout.parts.values():
        for name in names:
            _verify(layout, name)


# ---- layout: the symlink, its version directories and their part files


@dataclass(frozen=True)
class _Layout:
    """`solutions.parquet` is a symlink to `.solutions.versions/vNNNNNN/`, a directory
    of immutable parts.

    An upsert builds the next version directory (hard links for untouched parts, new
    parts written and fsynced) and commits by swapping the symlink with `os.replace`:
    readers see one whole version, and a writer killed at any instant leaves the
    previous one in place.
    """

    store: str
    path: Path  # the store path users read, a symlink
    versions: Path  # the directory of version directories beside it
    version: int  # 0 = the store does not exist yet
    parts: dict[str, list[str]]  # partition hash -> part file names
    committed: dict[str, dict[str, int]] | None = None
    """The version's integrity manifest (part -> size, crc32); None from before it."""

    @property
    def current(self) -> Path:
        return self.versions / f"v{self.version:06d}"


def _open_layout(paths: StudyPaths, store: str) -> _Layout:
    path = paths.store(store)
    versions = path.parent / f".{path.name.removesuffix('.parquet')}.versions"
    if not path.is_symlink():
        if path.exists():
            raise StoreError(
                f"{path} is not an itemeval store (expected a link into "
                f"{versions.name}/); "
                "itemeval will not overwrite it: move it aside and re-run"
            )
        return _Layout(store, path, versions, 0, {})
    target = os.readlink(path)
    match = _VERSION.match(Path(target).name)
    if Path(target).parent != Path(versions.name) or not match:
        raise StoreError(
            f"{path} links to {target}, not into {versions.name}/; move it "
            "aside and re-run"
        )
    layout = _Layout(store, path, versions, int(match.group(1)), {})
    for name in _part_names(path, target, layout.current):
        part = _PART.match(name)
        if not part:
            raise StoreError(
                f"{path / name} is not an itemeval part file; move it out of the store"
            )
        layout.parts.setdefault(part.group("phash"), []).append(name)
    committed = integrity.read_manifest(layout.current)
    if committed is None:
        integrity.check_present(path, layout.current, layout.version)
    else:
        every = [name for names in layout.parts.values() for name in names]
        integrity.check_names(path, layout.current, committed, every)
    return replace(layout, committed=committed)


def _part_names(path: Path, target: str, current: Path) -> list[str]:
    """The names in the version directory the store links to, sorted, hidden ones
    left out (as by every parquet reader)."""
    try:
        names = sorted(os.listdir(current))
    except FileNotFoundError as exc:
        if os.readlink(path) != target:
            # a writer committed and collected this version meanwhile: the reader
            # retries
            raise
        raise StoreError(
            f"{path} links to missing {target}: the store is damaged; move it "
            "aside and re-run"
        ) from exc
    return [name for name in names if not name.startswith((".", "_"))]


def _verify(layout: _Layout, name: str) -> None:
    if layout.committed is not None:
        integrity.check_part(layout.path, layout.current, layout.committed, name)


def _read_part(
    layout: _Layout, name: str, columns: Sequence[str] | None = None
) -> pa.Table:
    """One part file's columns (all of today's schema for None), after checking it is
    an itemeval part."""
    schema, _ = STORES[layout.store]
    _verify(layout, name)
    try:
        part = pq.ParquetFile(layout.current / name)
        physical = part.schema_arrow
        if not readable_schema(layout.store, physical):
            raise StoreError(
                f"{layout.path / name} does not have the columns and types of "
                "an itemeval store; move it away"
            )
        wanted = list(schema.names if columns is None else columns)
        table = part.read(columns=[name for name in wanted if name in physical.names])
        if table.num_columns == len(wanted):
            return table
        # A part written before some columns existed: they read as nulls (a key
        # column as its default).
        widened = pa.table(
            {
                name: table.column(name)
                if name in physical.names
                else pa.nulls(table.num_rows, schema.field(name).type)
                for name in wanted
            },
            schema=pa.schema([schema.field(name) for name in wanted]),
        )
        return with_key_defaults(layout.store, widened)
    except FileNotFoundError:
        raise  # a concurrent writer moved on: the reader resolves the link again
    except (pa.ArrowInvalid, OSError) as exc:
        raise StoreError(
            f"{layout.path / name} is not a readable parquet file ({exc}); move it away"
        ) from exc


# ---- commit: build the next version directory, then swap the link to it


def _commit(layout: _Layout, plan: dict[str, PartitionPlan]) -> None:
    version = layout.version + 1
    target = layout.versions / f"v{version:06d}"
    target.mkdir(parents=True)
    for phash, names in layout.parts.items():
        for name in plan[phash].keep if phash in plan else names:
            _link(layout.current / name, target / name)
    written = 0
    for phash, partition in plan.items():
        for table in partition.write:
            _write_part(table, target / f"p-{phash}-v{version:06d}-{written}.parquet")
            written += 1
    parts = [name for name in os.listdir(target) if _PART.match(name)]
    integrity.write_manifest(target, layout.committed, parts)
    fsync_path(target)
    integrity.mark_required(layout.versions, version)
    fsync_path(layout.versions)
    _swap_link(layout.path, target)
    _sweep(layout, keep={version, layout.version})


def _link(source: Path, dest: Path) -> None:
    try:
        os.link(source, dest)
    except OSError:
        # file systems without hard links: parts are immutable, a copy is as good
        shutil.copy2(source, dest)


def _write_part(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression="zstd")
    fsync_path(path)


def _swap_link(path: Path, target: Path) -> None:
    """Point the store path at `target` in one rename, so readers see the old version
    or the new one."""
    temp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    temp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, path.parent), temp)
    os.replace(temp, path)
    fsync_path(path.parent)


READER_GRACE_S = 300.0
"""How long a superseded version stays readable: a reader that resolved the store's
link just before a commit (pandas.read_parquet, DuckDB, a results command) must be
able to finish reading that version."""


def _sweep(layout: _Layout, keep: set[int]) -> None:
    """Remove superseded versions once they have been superseded for READER_GRACE_S
    (current and previous are always kept), and stray temp links. Parts are hard
    links shared between versions, so the grace costs only the rewritten parts' old
    copies."""
    for temp in layout.path.parent.glob(f".{layout.path.name}.tmp-*"):
        temp.unlink(missing_ok=True)
    if not layout.versions.is_dir():
        return
    entries = {
        int(match.group(1)): entry
        for entry in os.scandir(layout.versions)
        if (match := _VERSION.match(entry.name))
    }
    now, current = time.time(), max(keep)
    # before anything is removed
    superseded = {number: _superseded_at(entries, number) for number in entries}
    for number, entry in entries.items():
        # a killed writer's half-built version: no reader ever saw it
        never_committed = number > current
        if number in keep or (
            not never_committed and superseded[number] > now - READER_GRACE_S
        ):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)
    # anything else in the directory is debris of a crashed commit (but the record
    # of which versions must carry a manifest)
    for entry in os.scandir(layout.versions):
        if _VERSION.match(entry.name) or entry.name == integrity.SINCE:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)


def _superseded_at(entries: dict[int, os.DirEntry[str]], number: int) -> float:
    """When `number` stopped being current: the time its successor was made."""
    later = [n for n in entries if n > number]
    return (
        entries[min(later)].stat(follow_symlinks=False).st_mtime
        if later
        else time.time()
    )


# ---- reads: one version's wanted parts as a dataset


def _read_snapshot(
    paths: StudyPaths,
    store: str,
    names: list[str],
    where: Mapping[str, Collection[Any]],
) -> pa.Table:
    schema, _ = STORES[store]
    check_columns(store, list(where))
    layout = _open_layout(paths, store)
    wanted = wanted_partitions(store, layout.parts, where)
    names_read = [name for phash in wanted for name in layout.parts[phash]]
    for name in names_read:
        _verify(layout, name)
    files = [layout.current / name for name in names_read]
    if not files:
        return schema.empty_table().select(names)
    dataset = ds.dataset([str(path) for path in files], schema=schema, format="parquet")
    for fragment in dataset.get_fragments():
        _check_fragment(fragment, layout)
    return read_dataset(store, dataset, names, where)


def _check_fragment(fragment: ds.ParquetFileFragment, layout: _Layout) -> None:
    shown = layout.path / Path(fragment.path).name
    try:
        physical = fragment.physical_schema
    except pa.ArrowInvalid as exc:
        raise StoreError(
            f"{shown} is not a readable parquet file ({exc}); move it away"
        ) from exc
    if not readable_schema(layout.store, physical):
        raise StoreError(
            f"{shown} does not have the columns and types of an itemeval "
            "store; move it away"
        )
