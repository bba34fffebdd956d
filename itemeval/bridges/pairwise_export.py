"""The pairwise export: one row per stored verdict, with both answers, their conditions
and the item."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from ..store import read_store
from ..study.load import Study

_SIDE_COLUMNS = {
    "condition_slug": "slug",
    "model": "model",
    "prompt_name": "prompt",
    "model_config_name": "model_config",
    "solution": "answer",
    "solution_hash": "current_hash",
}
_SOLUTION_KEY = ["condition_id", "item_id", "epoch"]


def pairwise_long(study: Study) -> pd.DataFrame:
    """Every stored verdict (never aggregated): its key, winner (id and slug), the
    answer shown first, both answers as stored now, whether either changed since
    (`stale`), and the item."""
    verdicts = _frame(read_store(study.paths, "pairwise"))
    if verdicts.empty:
        return verdicts
    columns = [*_SOLUTION_KEY, *_SIDE_COLUMNS]
    solutions = _frame(read_store(study.paths, "solutions", columns))
    for side in ("a", "b"):
        renamed = solutions.rename(
            columns={k: f"{v}_{side}" for k, v in _SIDE_COLUMNS.items()}
        )
        verdicts = verdicts.merge(
            renamed,
            left_on=[f"condition_{side}", "item_id", "epoch"],
            right_on=_SOLUTION_KEY,
            how="left",
        ).drop(columns=["condition_id"])
    slugs = {c.id: c.slug for c in study.generate}
    verdicts["winner_slug"] = verdicts["winner"].map(lambda w: slugs.get(w, w))
    verdicts["shown_first"] = verdicts["condition_a"].where(
        verdicts["order"] == 1, verdicts["condition_b"]
    )
    verdicts["stale"] = (verdicts["solution_hash_a"] != verdicts["current_hash_a"]) | (
        verdicts["solution_hash_b"] != verdicts["current_hash_b"]
    )
    items = read_store(study.paths, "items", ["item_id", "input", "target"])
    verdicts = verdicts.merge(items.to_pandas(), on="item_id", how="left")
    order = ["grade_condition_id", "condition_a", "condition_b", "item_id", "epoch"]
    return verdicts.sort_values([*order, "order"], kind="stable").reset_index(drop=True)


def _frame(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
