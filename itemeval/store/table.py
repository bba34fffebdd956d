"""What a keyed store write means, in pure arrow: which rows, in which partitions,
merged into which parts."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import StoreError
from ..hashing import canonical_json, sha256_hex
from .schemas import KEY_DEFAULTS, PARTITIONS, STORES

PART_LIMIT = 8
"""A partition holding more parts than this after an upsert gets its smallest parts
merged."""

ReadPart = Callable[[str, Sequence[str] | None], pa.Table]
"""Reads one named part of a partition: the given columns, or all of them for None."""


def partition_columns(store: str) -> tuple[str, ...]:
    """Key columns that pick a row's part files: all but the trailing (item_id,
    epoch) ones."""
    if store in PARTITIONS:
        return PARTITIONS[store]
    _, key = STORES[store]
    return key[:-2] if len(key) > 2 else ()


def readable_schema(store: str, physical: pa.Schema) -> bool:
    """Whether a part written with `physical` belongs to this store: its schema, or an
    earlier one.

    Columns are only ever added to a store, so a part written by an earlier itemeval has
    a subset of today's columns with today's types, and reads with nulls in the columns
    it lacks.
    """
    schema, key = STORES[store]
    if not set(key) - set(KEY_DEFAULTS.get(store, {})) <= set(physical.names):
        return False
    return all(
        schema.get_field_index(field.name) >= 0
        and schema.field(field.name).type.equals(field.type)
        for field in physical
    )


# ---- coercion: any input rows -> a table with exactly the store's schema


def coerce_rows(store: str, rows: pa.Table | Iterable[Mapping[str, Any]]) -> pa.Table:
    """Rows as a table of exactly the store's schema: missing columns null, unknown
    columns an error."""
    schema, key = STORES[store]
    if not isinstance(rows, pa.Table):
        rows = list(rows)
    given = (
        rows.column_names
        if isinstance(rows, pa.Table)
        else {name for row in rows for name in row}
    )
    unknown = sorted(set(given) - set(schema.names))
    if unknown:
        raise StoreError(
            f"unknown column(s) {', '.join(unknown)} for the {store} store; "
            f"known: {', '.join(schema.names)}"
        )
    arrays = [_coerce_column(rows, field) for field in schema]
    table = with_key_defaults(store, pa.Table.from_arrays(arrays, schema=schema))
    for name in key:
        if table.column(name).null_count:
            raise StoreError(
                f"rows for the {store} store need a value in key column {name}"
            )
    return table


def with_key_defaults(store: str, table: pa.Table) -> pa.Table:
    """The table with its store's later key columns (KEY_DEFAULTS) filled where a row
    predates them."""
    for name, value in KEY_DEFAULTS.get(store, {}).items():
        at = table.schema.get_field_index(name)
        if at >= 0 and table.column(at).null_count:
            filled = pc.fill_null(table.column(at), value)
            table = table.set_column(at, table.schema.field(at), filled)
    return table


def _coerce_column(
    rows: pa.Table | list[Mapping[str, Any]], field: pa.Field
) -> pa.Array:
    try:
        if isinstance(rows, pa.Table):
            if field.name not in rows.column_names:
                return pa.nulls(rows.num_rows, field.type)
            return pc.cast(rows.column(field.name).combine_chunks(), field.type)
        values = [_plain_value(row.get(field.name), field.type) for row in rows]
        return pa.array(values, type=field.type)
    except (
        pa.ArrowInvalid,
        pa.ArrowTypeError,
        TypeError,
        ValueError,
        OverflowError,
    ) as exc:
        raise StoreError(
            f"column {field.name} cannot be stored as {field.type}: {exc}"
        ) from exc


def _plain_value(value: Any, typ: pa.DataType) -> Any:
    """JSON-shaped values to what arrow takes without guessing: ISO strings to UTC
    datetimes, 3.0 to 3."""
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


def last_per_key(table: pa.Table, key: Sequence[str]) -> pa.Table:
    """The table without repeated keys, keeping each key's last row and the rows'
    order."""
    indexed = table.append_column("_row", pa.array(range(table.num_rows), pa.int64()))
    last = indexed.group_by(list(key), use_threads=False).aggregate([("_row", "max")])[
        "_row_max"
    ]
    if len(last) == table.num_rows:
        return table
    return table.take(last.take(pc.sort_indices(last)))


# ---- partitions: rows grouped by their partition columns, each group named by a hash


def split_partitions(table: pa.Table, columns: Sequence[str]) -> dict[str, pa.Table]:
    """The table's rows grouped by their values of `columns`, keyed by partition
    hash."""
    if not columns:
        return {partition_hash(()): table}
    indexed = table.append_column("_row", pa.array(range(table.num_rows), pa.int64()))
    groups = indexed.group_by(list(columns), use_threads=False).aggregate(
        [("_row", "list")]
    )
    return {
        partition_hash(tuple(group[name] for name in columns)): table.take(
            group["_row_list"]
        )
        for group in groups.to_pylist()
    }


def partition_hash(values: tuple[Any, ...]) -> str:
    """The 16-hex name of the partition holding rows with these partition-column
    values."""
    return sha256_hex(canonical_json(list(values)))[:16]


def wanted_partitions(
    store: str, present: Collection[str], where: Mapping[str, Collection[Any]]
) -> list[str]:
    """Partition hashes among `present` worth reading: all, unless `where` pins every
    partition column."""
    columns = partition_columns(store)
    if not columns or not all(column in where for column in columns):
        return list(present)
    combos: list[tuple[Any, ...]] = [()]
    for column in columns:
        combos = [combo + (value,) for combo in combos for value in where[column]]
    return [
        phash
        for phash in {partition_hash(combo) for combo in combos}
        if phash in present
    ]


# ---- reads: which columns and rows


def check_columns(store: str, names: Sequence[str]) -> None:
    """Refuse column names the store does not have."""
    unknown = sorted(set(names) - set(STORES[store][0].names))
    if unknown:
        raise StoreError(f"unknown column(s) {', '.join(unknown)} in the {store} store")


def read_dataset(
    store: str,
    dataset: Any,
    names: Sequence[str],
    where: Mapping[str, Collection[Any]],
) -> pa.Table:
    """The rows of a pyarrow dataset read with the store's schema: the columns asked,
    filtered by `where`, a row that predates a key column holding its default."""
    filtered = where_filter(store, where)
    return with_key_defaults(
        store, dataset.to_table(columns=list(names), filter=filtered)
    )


def where_filter(
    store: str, where: Mapping[str, Collection[Any]]
) -> pc.Expression | None:
    """A dataset filter keeping rows whose every `where` column takes one of its
    values; None for no filter."""
    schema, _ = STORES[store]
    defaults = KEY_DEFAULTS.get(store, {})
    expression = None
    for column, values in where.items():
        field = pc.field(column)
        if column in defaults:  # a part from before the column holds only nulls
            field = pc.coalesce(field, pa.scalar(defaults[column], pa.int64()))
        test = field.isin(pa.array(list(values), schema.field(column).type))
        expression = test if expression is None else expression & test
    return expression


# ---- the merge: new rows into one partition's parts


@dataclass
class PartitionPlan:
    """How one partition's next version is made from its current parts."""

    keep: list[str]
    """Existing part names carried over unchanged."""
    write: list[pa.Table]
    """Tables to write as new parts."""


def merge_partition(
    names: list[str], new: pa.Table, *, key: Sequence[str], read_part: ReadPart
) -> PartitionPlan:
    """Carry over the parts no new key touches; rewrite the others without those
    keys; compact."""
    new_keys = new.select(list(key))
    sizes: dict[str, int] = {}
    rewritten: list[pa.Table] = []
    for name in names:
        keys = read_part(name, key)
        hit = hit_mask(keys, new_keys)
        if not pc.any(hit).as_py():
            sizes[name] = keys.num_rows
        else:
            rewritten.append(read_part(name, None).filter(pc.invert(hit)))
    fresh = pa.concat_tables([*rewritten, new])
    group = compaction_group(sizes, fresh.num_rows)
    merged = [read_part(name, None) for name in group if name]
    keep = [name for name in sizes if name not in group]
    if "" in group:  # the fresh part is among the smallest: merge into it
        return PartitionPlan(keep, [pa.concat_tables([*merged, fresh])])
    return PartitionPlan(keep, [fresh, pa.concat_tables(merged)] if merged else [fresh])


def hit_mask(keys: pa.Table, new_keys: pa.Table) -> pa.Array:
    """True for each row of `keys` whose key is among `new_keys`."""
    indexed = keys.append_column("_row", pa.array(range(keys.num_rows), pa.int64()))
    hits = indexed.join(
        new_keys, keys=keys.column_names, join_type="left semi", use_threads=False
    )["_row"]
    return pc.is_in(indexed["_row"], value_set=hits.combine_chunks())


def compaction_group(sizes: dict[str, int], fresh_rows: int) -> list[str]:
    """Names of the smallest parts to merge ("" = the fresh part) so at most PART_LIMIT
    remain.

    The group grows while its merged size would reach the next part's, so parts form
    size tiers and each row is rewritten O(log n) times rather than at every compaction.
    """
    entries = sorted(
        [(rows, name) for name, rows in sizes.items()] + [(fresh_rows, "")]
    )
    count = len(entries) - PART_LIMIT + 1
    if count <= 1:
        return []
    while (
        count < len(entries)
        and sum(rows for rows, _ in entries[:count]) >= entries[count][0]
    ):
        count += 1
    return [name for _, name in entries[:count]]
