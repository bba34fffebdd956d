"""A scorer entry's `reference:` column: what it compares with instead of the target."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..errors import ConfigError
from ..records import Item
from . import ScoreContext


def check_reference(column: str, metadata_columns: list[str], where: str) -> None:
    """A reference must be an item column the study maps, so every item carries it."""
    if column not in metadata_columns:
        known = ", ".join(metadata_columns) or "none"
        raise ConfigError(
            f"{where}: reference {column!r} is not an item column; add it to "
            f"benchmark.mapping.metadata (mapped columns: {known})"
        )


def reference_targets(item: Item, column: str | None) -> tuple[str, ...]:
    """The acceptable answers an entry compares with: the item's targets, or its
    `reference` column's value (a list is several references; null or "" none)."""
    if column is None:
        return item.targets
    value: Any = item.metadata.get(column)
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(_text(v) for v in value if v is not None and _text(v) != "")
    text = _text(value)
    return (text,) if text != "" else ()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def with_reference(
    context: ScoreContext, item: Item, column: str | None
) -> ScoreContext:
    """The item's scoring context with the entry's reference as its targets."""
    if column is None:
        return context
    return replace(context, targets=reference_targets(item, column))
