"""An item's stored pairwise verdicts as `itemeval show` lists them."""

from __future__ import annotations

from typing import Any

from ...store import read_store
from ...study.load import Study


def item_verdicts(study: Study, item_id: str) -> list[dict[str, Any]]:
    """An item's stored pairwise verdicts, for `itemeval show`: who was shown first,
    who won (slugs), the reasoning, and whether either answer changed since."""
    table = read_store(
        study.paths,
        "pairwise",
        [*_SHOW_COLUMNS],
        where={"item_id": [item_id]},
    ).to_pylist()
    if not table:
        return []
    hashes = _current_hashes(study, item_id)
    slugs = {c.id: c.slug for c in [*study.generate, *study.pairwise]}
    rows = []
    for row in sorted(table, key=lambda r: tuple(str(r[k]) for k in _ORDER)):
        first = row["condition_a"] if row["order"] == 1 else row["condition_b"]
        rows.append(
            {
                **row,
                "grader": slugs.get(
                    row["grade_condition_id"], row["grade_condition_id"]
                ),
                "slug_a": slugs.get(row["condition_a"], row["condition_a"]),
                "slug_b": slugs.get(row["condition_b"], row["condition_b"]),
                "shown_first": slugs.get(first, first),
                "winner_slug": slugs.get(row["winner"], row["winner"]),
                "stale": hashes.get((row["condition_a"], row["epoch"]))
                != row["solution_hash_a"]
                or hashes.get((row["condition_b"], row["epoch"]))
                != row["solution_hash_b"],
            }
        )
    return rows


_SHOW_COLUMNS = (
    "grade_condition_id",
    "condition_a",
    "condition_b",
    "epoch",
    "order",
    "winner",
    "parse_error",
    "error",
    "reasoning",
    "solution_hash_a",
    "solution_hash_b",
)
_ORDER = ("grade_condition_id", "condition_a", "condition_b", "epoch", "order")


def _current_hashes(study: Study, item_id: str) -> dict[tuple[str, int], str]:
    table = read_store(
        study.paths,
        "solutions",
        ["condition_id", "epoch", "solution_hash"],
        where={"item_id": [item_id]},
    )
    keys = zip(
        table.column("condition_id").to_pylist(), table.column("epoch").to_pylist()
    )
    return dict(zip(keys, table.column("solution_hash").to_pylist()))
