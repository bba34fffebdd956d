"""Reading each store once: inside `reading_once()`, reads come from one full read."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

_TABLES: contextvars.ContextVar[dict[tuple[str, str], pa.Table] | None] = (
    contextvars.ContextVar("itemeval_store_memo", default=None)
)


@contextlib.contextmanager
def reading_once() -> Iterator[dict[tuple[str, str], pa.Table]]:
    """Within the block, a store is read in full the first time and never again.

    For a caller that builds several views of a study (`itemeval.frames`): the views
    then agree row for row even while a run writes, and object storage is read once.
    Yields the tables read, keyed (study root, store).
    """
    tables: dict[tuple[str, str], pa.Table] = {}
    token = _TABLES.set(tables)
    try:
        yield tables
    finally:
        _TABLES.reset(token)


def active() -> bool:
    return _TABLES.get() is not None


def served(
    key: tuple[str, str],
    read: Callable[[], pa.Table],
    columns: Sequence[str] | None,
    where: Mapping[str, Collection[Any]] | None,
) -> pa.Table:
    """The rows and columns asked for, from the block's one full read of the store."""
    tables = _TABLES.get()
    assert tables is not None
    if key not in tables:
        tables[key] = read()
    table = tables[key]
    for column, values in (where or {}).items():
        wanted = pa.array(list(values), type=table.schema.field(column).type)
        table = table.filter(pc.is_in(table[column], value_set=wanted))
    return table if columns is None else table.select(list(columns))
