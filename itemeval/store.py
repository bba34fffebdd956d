"""The study's parquet stores: keyed atomic upserts and column-selective reads (layout in README "Store layout")."""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from .errors import StoreError
from .hashing import canonical_json, sha256_hex
from .paths import StudyPaths
from .schemas import STORES

PART_LIMIT = 8
"""A partition holding more parts than this after an upsert gets its smallest parts merged."""

_PART = re.compile(r"^p-(?P<phash>[0-9a-f]{16})-v\d{6,}-\d+\.parquet$")
_VERSION = re.compile(r"^v(\d{6,})$")
_WRITE_LOCK = threading.Lock()  # the study lock excludes other processes; this excludes our own threads
_READ_ATTEMPTS = 3


def partition_columns(store: str) -> tuple[str, ...]:
    """Key columns that pick a row's part files: all but the trailing (item_id, epoch) ones."""
    _, key = STORES[store]
    return key[:-2] if len(key) > 2 else ()


def upsert(paths: StudyPaths, store: str, rows: pa.Table | Iterable[Mapping[str, Any]]) -> int:
    """Insert or replace `rows` by key in one atomic step; returns the number of distinct keys written."""
    table = _last_per_key(coerce_rows(store, rows), STORES[store][1])
    if table.num_rows == 0:
        return 0
    with _WRITE_LOCK:
        layout = _open_layout(paths, store)
        _sweep(layout, keep={layout.version, layout.version - 1})
        plan = {
            phash: _merge_partition(layout, layout.parts.get(phash, []), new)
            for phash, new in _split_partitions(table, partition_columns(store)).items()
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
    """The store's rows (all columns when `columns` is None), optionally only rows whose columns take the given values.

    Only the part files and columns needed are read: filtering on every partition column (e.g.
    `where={"condition_id": ids}` for solutions) skips the other partitions' files entirely.
    A missing store reads as an empty table with the store's schema.
    """
    schema, _ = STORES[store]
    names = list(schema.names if columns is None else columns)
    _check_columns(store, names)
    for _ in range(_READ_ATTEMPTS):
        try:
            return _read_snapshot(paths, store, names, where or {})
        except FileNotFoundError:
            continue  # a writer garbage-collected the version we resolved: resolve the link again
    raise StoreError(f"{paths.store(store)} kept changing while being read; retry when the running command ends")


def verify_store(paths: StudyPaths, store: str) -> int:
    """Check every part of a store parses with the right schema and no key repeats; returns its row count."""
    schema, key = STORES[store]
    layout = _open_layout(paths, store)
    keys = [_read_part(layout, name, key) for names in layout.parts.values() for name in names]
    table = pa.concat_tables(keys) if keys else schema.empty_table().select(list(key))
    if _last_per_key(table, key).num_rows != table.num_rows:
        raise StoreError(f"{layout.path} holds duplicate keys; it was not written by itemeval")
    return table.num_rows


# ---- coercion: any input rows -> a table with exactly the store's schema


def coerce_rows(store: str, rows: pa.Table | Iterable[Mapping[str, Any]]) -> pa.Table:
    """Rows as a table of exactly the store's schema: missing columns null, unknown columns an error."""
    schema, key = STORES[store]
    if not isinstance(rows, pa.Table):
        rows = list(rows)
    given = rows.column_names if isinstance(rows, pa.Table) else {name for row in rows for name in row}
    unknown = sorted(set(given) - set(schema.names))
    if unknown:
        raise StoreError(f"unknown column(s) {', '.join(unknown)} for the {store} store; known: {', '.join(schema.names)}")
    arrays = [_coerce_column(rows, field) for field in schema]
    table = pa.Table.from_arrays(arrays, schema=schema)
    for name in key:
        if table.column(name).null_count:
            raise StoreError(f"rows for the {store} store need a value in key column {name}")
    return table


def _coerce_column(rows: pa.Table | list[Mapping[str, Any]], field: pa.Field) -> pa.Array:
    try:
        if isinstance(rows, pa.Table):
            if field.name not in rows.column_names:
                return pa.nulls(rows.num_rows, field.type)
            return pc.cast(rows.column(field.name).combine_chunks(), field.type)
        values = [_plain_value(row.get(field.name), field.type) for row in rows]
        return pa.array(values, type=field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as exc:
        raise StoreError(f"column {field.name} cannot be stored as {field.type}: {exc}") from exc


def _plain_value(value: Any, typ: pa.DataType) -> Any:
    """JSON-shaped values to what arrow takes without guessing: ISO strings to UTC datetimes, 3.0 to 3."""
    if value is None:
        return None
    if pa.types.is_timestamp(typ):
        stamp = datetime.fromisoformat(value) if isinstance(value, str) else value
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)
    if pa.types.is_integer(typ) and isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number")
        return int(value)
    return value


def _last_per_key(table: pa.Table, key: Sequence[str]) -> pa.Table:
    """The table without repeated keys, keeping each key's last row and the rows' order."""
    indexed = table.append_column("_row", pa.array(range(table.num_rows), pa.int64()))
    last = indexed.group_by(list(key), use_threads=False).aggregate([("_row", "max")])["_row_max"]
    if len(last) == table.num_rows:
        return table
    return table.take(last.take(pc.sort_indices(last)))


def _split_partitions(table: pa.Table, columns: Sequence[str]) -> dict[str, pa.Table]:
    if not columns:
        return {_partition_hash(()): table}
    indexed = table.append_column("_row", pa.array(range(table.num_rows), pa.int64()))
    groups = indexed.group_by(list(columns), use_threads=False).aggregate([("_row", "list")])
    return {
        _partition_hash(tuple(group[name] for name in columns)): table.take(group["_row_list"])
        for group in groups.to_pylist()
    }


def _partition_hash(values: tuple[Any, ...]) -> str:
    return sha256_hex(canonical_json(list(values)))[:16]


# ---- layout: the symlink, its version directories and their part files


@dataclass(frozen=True)
class _Layout:
    """`solutions.parquet` is a symlink to `.solutions.versions/vNNNNNN/`, a directory of immutable parts.

    An upsert builds the next version directory (hard links for untouched parts, new parts written
    and fsynced) and commits by swapping the symlink with `os.replace`: readers see one whole
    version, and a writer killed at any instant leaves the previous one in place.
    """

    store: str
    path: Path  # the store path users read, a symlink
    versions: Path  # the directory of version directories beside it
    version: int  # 0 = the store does not exist yet
    parts: dict[str, list[str]]  # partition hash -> part file names

    @property
    def current(self) -> Path:
        return self.versions / f"v{self.version:06d}"


def _open_layout(paths: StudyPaths, store: str) -> _Layout:
    path = paths.store(store)
    versions = path.parent / f".{path.name.removesuffix('.parquet')}.versions"
    if not path.is_symlink():
        if path.exists():
            raise StoreError(f"{path} is not an itemeval store (expected a link into {versions.name}/); "
                             "itemeval will not overwrite it: move it aside and re-run")
        return _Layout(store, path, versions, 0, {})
    target = os.readlink(path)
    match = _VERSION.match(Path(target).name)
    if Path(target).parent != Path(versions.name) or not match:
        raise StoreError(f"{path} links to {target}, not into {versions.name}/; move it aside and re-run")
    layout = _Layout(store, path, versions, int(match.group(1)), {})
    try:
        names = sorted(os.listdir(layout.current))
    except FileNotFoundError as exc:
        if os.readlink(path) != target:
            raise  # a writer committed and collected this version meanwhile: the reader retries
        raise StoreError(f"{path} links to missing {target}: the store is damaged; move it aside and re-run") from exc
    for name in names:
        if name.startswith((".", "_")):
            continue  # hidden names are skipped by every parquet reader
        part = _PART.match(name)
        if not part:
            raise StoreError(f"{path / name} is not an itemeval part file; move it out of the store")
        layout.parts.setdefault(part.group("phash"), []).append(name)
    return layout


def _read_part(layout: _Layout, name: str, columns: Sequence[str] | None = None) -> pa.Table:
    """One part file's columns, after checking it is parquet with exactly the store's schema."""
    schema, _ = STORES[layout.store]
    try:
        part = pq.ParquetFile(layout.current / name)
        if not part.schema_arrow.equals(schema):
            raise StoreError(f"{layout.path / name} does not have the columns and types of an itemeval store; move it away")
        return part.read(columns=None if columns is None else list(columns))
    except FileNotFoundError:
        raise  # a concurrent writer moved on: the reader resolves the link again
    except (pa.ArrowInvalid, OSError) as exc:
        raise StoreError(f"{layout.path / name} is not a readable parquet file ({exc}); move it away") from exc


# ---- the upsert: merge new rows into a partition, then commit a new version


@dataclass
class _PartitionPlan:
    keep: list[str]  # existing part names carried over unchanged
    write: list[pa.Table]  # tables to write as new parts


def _merge_partition(layout: _Layout, names: list[str], new: pa.Table) -> _PartitionPlan:
    """Carry over the parts no new key touches; rewrite the others without those keys; compact."""
    _, key = STORES[layout.store]
    new_keys = new.select(list(key))
    sizes: dict[str, int] = {}
    rewritten: list[pa.Table] = []
    for name in names:
        keys = _read_part(layout, name, key)
        hit = _hit_mask(keys, new_keys)
        if not pc.any(hit).as_py():
            sizes[name] = keys.num_rows
        else:
            rewritten.append(_read_part(layout, name).filter(pc.invert(hit)))
    fresh = pa.concat_tables([*rewritten, new])
    group = _compaction_group(sizes, fresh.num_rows)
    merged = [_read_part(layout, name) for name in group if name]
    keep = [name for name in sizes if name not in group]
    if "" in group:  # the fresh part is among the smallest: merge into it
        return _PartitionPlan(keep, [pa.concat_tables([*merged, fresh])])
    return _PartitionPlan(keep, [fresh, pa.concat_tables(merged)] if merged else [fresh])


def _hit_mask(keys: pa.Table, new_keys: pa.Table) -> pa.Array:
    """True for each row of `keys` whose key is among `new_keys`."""
    indexed = keys.append_column("_row", pa.array(range(keys.num_rows), pa.int64()))
    hits = indexed.join(new_keys, keys=keys.column_names, join_type="left semi", use_threads=False)["_row"]
    return pc.is_in(indexed["_row"], value_set=hits.combine_chunks())


def _compaction_group(sizes: dict[str, int], fresh_rows: int) -> list[str]:
    """Names of the smallest parts to merge ("" = the fresh part) so at most PART_LIMIT remain.

    The group grows while its merged size would reach the next part's, so parts form size tiers
    and each row is rewritten O(log n) times rather than at every compaction.
    """
    entries = sorted([(rows, name) for name, rows in sizes.items()] + [(fresh_rows, "")])
    count = len(entries) - PART_LIMIT + 1
    if count <= 1:
        return []
    while count < len(entries) and sum(rows for rows, _ in entries[:count]) >= entries[count][0]:
        count += 1
    return [name for _, name in entries[:count]]


def _commit(layout: _Layout, plan: dict[str, _PartitionPlan]) -> None:
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
    fsync_path(target)
    fsync_path(layout.versions)
    _swap_link(layout.path, target)
    _sweep(layout, keep={version, layout.version})


def _link(source: Path, dest: Path) -> None:
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)  # file systems without hard links: parts are immutable, a copy is as good


def _write_part(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression="zstd")
    fsync_path(path)


def _swap_link(path: Path, target: Path) -> None:
    """Point the store path at `target` in one rename, so readers see the old version or the new one."""
    temp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    temp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, path.parent), temp)
    os.replace(temp, path)
    fsync_path(path.parent)


def _sweep(layout: _Layout, keep: set[int]) -> None:
    """Remove versions other than `keep` (current and previous, which a reader may still be using) and stray temp links."""
    for temp in layout.path.parent.glob(f".{layout.path.name}.tmp-*"):
        temp.unlink(missing_ok=True)
    if not layout.versions.is_dir():
        return
    for entry in os.scandir(layout.versions):
        match = _VERSION.match(entry.name)
        if match and int(match.group(1)) in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)


def fsync_path(path: Path) -> None:
    """Flush a file's or a directory's content to the disk (a directory's: its new entries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---- reads


def _check_columns(store: str, names: Sequence[str]) -> None:
    unknown = sorted(set(names) - set(STORES[store][0].names))
    if unknown:
        raise StoreError(f"unknown column(s) {', '.join(unknown)} in the {store} store")


def _read_snapshot(paths: StudyPaths, store: str, names: list[str], where: Mapping[str, Collection[Any]]) -> pa.Table:
    schema, _ = STORES[store]
    _check_columns(store, list(where))
    layout = _open_layout(paths, store)
    files = [layout.current / name for phash in _wanted_partitions(layout, where) for name in layout.parts[phash]]
    if not files:
        return schema.empty_table().select(names)
    dataset = ds.dataset([str(path) for path in files], schema=schema, format="parquet")
    for fragment in dataset.get_fragments():
        _check_fragment(fragment, layout)
    expression = None
    for column, values in where.items():
        test = pc.field(column).isin(pa.array(list(values), schema.field(column).type))
        expression = test if expression is None else expression & test
    return dataset.to_table(columns=names, filter=expression)


def _wanted_partitions(layout: _Layout, where: Mapping[str, Collection[Any]]) -> list[str]:
    """Partition hashes worth reading: all, unless `where` pins every partition column."""
    columns = partition_columns(layout.store)
    if not columns or not all(column in where for column in columns):
        return list(layout.parts)
    combos: list[tuple[Any, ...]] = [()]
    for column in columns:
        combos = [combo + (value,) for combo in combos for value in where[column]]
    return [phash for phash in {_partition_hash(combo) for combo in combos} if phash in layout.parts]


def _check_fragment(fragment: ds.ParquetFileFragment, layout: _Layout) -> None:
    shown = layout.path / Path(fragment.path).name
    try:
        physical = fragment.physical_schema
    except pa.ArrowInvalid as exc:
        raise StoreError(f"{shown} is not a readable parquet file ({exc}); move it away") from exc
    if not physical.equals(STORES[layout.store][0]):
        raise StoreError(f"{shown} does not have the columns and types of an itemeval store; move it away")
