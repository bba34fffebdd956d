"""The items store: the study's items, written only when one is new or changed."""

from __future__ import annotations

from typing import Any

from ..hashing import canonical_json
from ..paths import StudyPaths
from ..records import Item
from . import read_store, upsert


def item_row(item: Item) -> dict[str, Any]:
    """One items.parquet row."""
    return {
        "item_id": item.id,
        "dataset_id": item.dataset_id,
        "dataset_revision": item.dataset_revision,
        "row_index": item.row,
        "input": item.input,
        "target": item.target,
        "targets": list(item.targets),
        "choices": list(item.choices) or None,
        "grading_scheme": item.grading_scheme,
        "metadata": canonical_json(item.metadata),
    }


def write_items(paths: StudyPaths, items: list[Item]) -> None:
    """Upsert the items when any is new or changed, so a re-run of a complete study
    writes nothing."""
    columns = ["item_id", "dataset_revision", "input", "target", "targets", "choices"]
    stored = read_store(paths, "items", columns).to_pylist()
    known = {
        _item_key(
            row["item_id"],
            row["dataset_revision"],
            row["input"],
            row["target"],
            row["targets"],
            row["choices"],
        )
        for row in stored
    }
    changed = [
        item_row(i)
        for i in items
        if _item_key(
            i.id, i.dataset_revision, i.input, i.target, i.targets, i.choices or None
        )
        not in known
    ]
    if changed:
        upsert(paths, "items", changed)


def _item_key(*values: Any) -> tuple[Any, ...]:
    # Rows stored before targets and choices were columns read them as null, so they are
    # rewritten once.
    return tuple(tuple(v) if isinstance(v, list | tuple) else v for v in values)
