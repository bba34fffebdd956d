"""The object-storage store backend: each store a Delta Lake table, written only by
keyed MERGE."""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError, StoreError
from .delta_integrity import record_delta, verify_delta
from .remote import storage_options_for
from .schemas import KEY_DEFAULTS, STORES
from .table import (
    check_columns,
    coerce_rows,
    last_per_key,
    partition_columns,
    read_dataset,
    readable_schema,
)

try:
    from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
    from deltalake.exceptions import CommitFailedError, DeltaError, TableNotFoundError
except ImportError as exc:  # an optional extra: only studies on object storage need it
    raise ConfigError(
        "a study on object storage keeps its stores as Delta Lake tables, "
        "which needs the "
        "deltalake package: pip install 'itemeval[delta]'"
    ) from exc

STORAGE_ERRORS: tuple[type[Exception], ...] = (OSError, DeltaError, pa.ArrowInvalid)
"""What reading or writing a table raises when the object store, the network or a
stored file is at fault."""

COMMIT_ATTEMPTS = 8
"""MERGEs tried before giving up. Each failed attempt means another writer committed
to the same partitions, so N writers racing for one partition all succeed within N
attempts; the rest is headroom."""
_BACKOFF_S = 0.2  # the first retry waits up to this, doubling per attempt...
_BACKOFF_MAX_S = (
    10.0  # ...up to this; full jitter keeps racing writers from retrying in lockstep
)


def upsert_delta(
    table_uri: str,
    store: str,
    rows: pa.Table | Iterable[Mapping[str, Any]],
    *,
    storage_options: dict[str, str] | None = None,
    app_id: str | None = None,
    app_version: int | None = None,
) -> int:
    """Insert or replace `rows` by key in one Delta commit; returns the number of
    distinct keys written.

    With `app_id` and `app_version` the commit also records that version for that app,
    and a table that already holds `app_version` (or later) for `app_id` is left alone
    and 0 returned: committing the same journal part twice writes it once.
    """
    _, key = STORES[store]
    table = last_per_key(coerce_rows(store, rows), key)
    if table.num_rows == 0:
        return 0
    options = (
        storage_options_for(table_uri) if storage_options is None else storage_options
    )
    transactions = _app_transactions(app_id, app_version)
    try:
        return _commit(table_uri, store, table, options, transactions)
    except STORAGE_ERRORS as exc:
        raise StoreError(
            f"cannot write the {store} table at {table_uri}: {exc}; check the "
            "URI, the credentials "
            "and that the object store is reachable, then re-run"
        ) from exc


def read_delta(
    table_uri: str,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
    storage_options: dict[str, str] | None = None,
) -> pa.Table:
    """The table's rows, like `local.read_store`: the store schema's types, a missing
    table read as empty.

    `where` pinning partition columns (e.g. `{"condition_id": ids}` for solutions) skips
    the other partitions' files. Columns the table predates read as nulls.
    """
    schema, _ = STORES[store]
    names = list(schema.names if columns is None else columns)
    check_columns(store, [*names, *(where or {})])
    options = (
        storage_options_for(table_uri) if storage_options is None else storage_options
    )
    try:
        table = open_delta(table_uri, options)
        if table is None:
            return schema.empty_table().select(names)
        pinned = {c: where[c] for c in partition_columns(store) if c in (where or {})}
        verify_delta(table, options, pinned)
        return scan_delta(table, store, names, where=where)
    except STORAGE_ERRORS as exc:
        raise StoreError(
            f"cannot read the {store} table at {table_uri}: {exc}; check the "
            "URI, the credentials "
            "and that the object store is reachable"
        ) from exc


def open_delta(table_uri: str, storage_options: dict[str, str]) -> DeltaTable | None:
    """The Delta table at `table_uri` at its latest version; None when there is none
    yet."""
    # Not DeltaTable.is_deltatable: on deltalake 1.6 against moto it hangs on a missing
    # table.
    try:
        return DeltaTable(table_uri, storage_options=storage_options)
    except TableNotFoundError:
        return None


def scan_delta(
    table: DeltaTable,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
) -> pa.Table:
    """The rows of this loaded version of a store's table: the columns asked,
    filtered by `where`."""
    schema, _ = STORES[store]
    names = list(schema.names if columns is None else columns)
    where = where or {}
    check_columns(store, names)
    check_columns(store, list(where))
    _check_table_schema(table, store)
    if any(len(values) == 0 for values in where.values()):
        return schema.empty_table().select(names)
    pinned = [
        (column, "in", list(where[column]))
        for column in partition_columns(store)
        if column in where
    ]
    # Reading with the store's schema gives its exact types, and nulls for columns the
    # table predates.
    dataset = table.to_pyarrow_dataset(
        schema=schema, file_pruning_predicate=pinned or None
    )
    return read_dataset(store, dataset, names, where)


def merge_predicate(
    store: str, table: pa.Table, target: Collection[str] | None = None
) -> str:
    """The MERGE condition for `table`'s rows: target partitions pinned to literal
    values, and keys equal.

    The literal IN lists are what delta-rs reads, and checks for conflicts: a concurrent
    MERGE into other partitions commits alongside this one, while one that wrote to
    these partitions makes this commit fail (and be retried) instead of being
    overwritten.
    """
    _, key = STORES[store]
    pinned = [
        f"t.{column} IN "
        f"({', '.join(_sql_literal(v) for v in _distinct(table, column))})"
        for column in partition_columns(store)
    ]
    return " AND ".join([*pinned, *(_key_equal(store, c, target) for c in key)])


def _key_equal(store: str, column: str, target: Collection[str] | None) -> str:
    """A key column's match; one the store gained later (KEY_DEFAULTS) holds its
    default in target rows that predate it, and a table without it at all holds
    only such rows (`target`: the table's column names, None for today's)."""
    if column not in KEY_DEFAULTS.get(store, {}):
        return f"t.{column} = s.{column}"
    default = _sql_literal(KEY_DEFAULTS[store][column])
    if target is not None and column not in target:
        return f"s.{column} = {default}"
    return f"coalesce(t.{column}, {default}) = s.{column}"


def _distinct(table: pa.Table, column: str) -> list[Any]:
    return sorted(pc.unique(table.column(column)).to_pylist())


def _sql_literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise StoreError(f"partition value {value!r} is neither text nor a whole number")


# ---- writes: create the table, or MERGE into it


def _create(
    table_uri: str,
    store: str,
    table: pa.Table,
    options: dict[str, str],
    transactions: list[Transaction],
) -> bool:
    """Create the table holding `table`'s rows; False when it exists, or another
    writer created it first."""
    if open_delta(table_uri, options) is not None:
        return False
    # No commit retries: a creator that lost the race for version 0 would otherwise
    # append its rows as version 1 without looking at keys, and two creators writing the
    # same key would leave duplicates.
    exclusive = CommitProperties(
        app_transactions=transactions or None, max_commit_retries=0
    )
    try:
        write_deltalake(
            table_uri,
            table,
            partition_by=list(partition_columns(store)) or None,
            mode="error",
            storage_options=options,
            commit_properties=exclusive,
        )
        return True
    except CommitFailedError:
        return False  # another writer committed version 0 while ours was being written
    except DeltaError:
        if open_delta(table_uri, options) is not None:
            return (
                False  # another writer's table appeared between our look and our write
            )
        raise


def _commit(
    table_uri: str,
    store: str,
    table: pa.Table,
    options: dict[str, str],
    transactions: list[Transaction],
) -> int:
    """`table` as the first version of the Delta table, or merged into it; the
    committed version's integrity recorded. Returns the rows written."""
    if _create(table_uri, store, table, options, transactions):
        written = table.num_rows
    else:
        written = _merge_with_retries(table_uri, store, table, options, transactions)
    committed = open_delta(table_uri, options)
    if committed is not None:
        record_delta(committed, options)
    return written


def _merge_with_retries(
    table_uri: str,
    store: str,
    table: pa.Table,
    options: dict[str, str],
    transactions: list[Transaction],
) -> int:
    commit = CommitProperties(app_transactions=transactions or None)
    for attempt in range(COMMIT_ATTEMPTS):
        if attempt:
            time.sleep(_backoff_s(attempt))
        current = _existing(table_uri, store, options)
        if _already_committed(current, transactions):
            return 0
        # a MERGE rewrites the files it touches: never from damaged ones
        touched = {c: _distinct(table, c) for c in partition_columns(store)}
        verify_delta(current, options, touched)
        names = pa.schema(current.schema().to_arrow()).names
        try:
            _merge(current, table, merge_predicate(store, table, names), commit)
            return table.num_rows
        except CommitFailedError:
            # another writer committed to our partitions first: merge again into its
            # version
            continue
    raise StoreError(
        f"gave up writing the {store} table at {table_uri} after "
        f"{COMMIT_ATTEMPTS} attempts, each "
        "beaten by another writer's commit to the same partitions; re-run when "
        "fewer writers run at once"
    )


def _existing(table_uri: str, store: str, options: dict[str, str]) -> DeltaTable:
    """The table's latest version, refused if gone or of another schema."""
    current = open_delta(table_uri, options)
    if current is None:
        raise StoreError(
            f"the {store} table at {table_uri} disappeared while being written; re-run"
        )
    _check_table_schema(current, store)
    return current


def _merge(
    current: DeltaTable, table: pa.Table, predicate: str, commit: CommitProperties
) -> None:
    """Insert or replace `table`'s rows by key in one commit."""
    (
        current.merge(
            table,
            predicate,
            source_alias="s",
            target_alias="t",
            merge_schema=True,
            commit_properties=commit,
        )
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )


def _backoff_s(attempt: int) -> float:
    return random.uniform(0.0, min(_BACKOFF_MAX_S, _BACKOFF_S * 2 ** (attempt - 1)))


def _app_transactions(app_id: str | None, app_version: int | None) -> list[Transaction]:
    if (app_id is None) != (app_version is None):
        raise ValueError("app_id and app_version go together")
    return [] if app_id is None else [Transaction(app_id=app_id, version=app_version)]


def _already_committed(table: DeltaTable, transactions: list[Transaction]) -> bool:
    for txn in transactions:
        committed = table.transaction_version(txn.app_id)
        if committed is not None and committed >= txn.version:
            return True
    return False


def _check_table_schema(table: DeltaTable, store: str) -> None:
    if not readable_schema(store, pa.schema(table.schema().to_arrow())):
        raise StoreError(
            f"{table.table_uri} does not have the columns and types of an "
            f"itemeval {store} table; "
            "move it away or point the study elsewhere"
        )
