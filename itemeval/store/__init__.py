"""The study's parquet stores: keyed atomic upserts and column-selective reads
(layout in README "Store layout")."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .backend import read_store, upsert, verify_store
    from .schemas import GRADES, ITEMS, SOLUTIONS, STORES
    from .table import PART_LIMIT, coerce_rows, partition_columns

__all__ = [
    "GRADES",
    "ITEMS",
    "PART_LIMIT",
    "SOLUTIONS",
    "STORES",
    "coerce_rows",
    "partition_columns",
    "read_store",
    "upsert",
    "verify_store",
]

# Re-exported on first use (PEP 562), because importing `store.files` or `store.lock`
# runs this file first, and they must not load pyarrow: `itemeval init --help` imports
# them and stays instant.
_HOMES = {
    "read_store": "backend",
    "upsert": "backend",
    "verify_store": "backend",
    "GRADES": "schemas",
    "ITEMS": "schemas",
    "SOLUTIONS": "schemas",
    "STORES": "schemas",
    "PART_LIMIT": "table",
    "coerce_rows": "table",
    "partition_columns": "table",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOMES[name]}", __name__), name)
