"""Each item's score in a cell: its graded replications reduced (`--reducer`)."""

from __future__ import annotations

import pandas as pd

from . import intervals as stats
from .scale_intervals import Bounds


def item_scores(
    frame: pd.DataFrame,
    reducer: str,
    scales: dict[str, Bounds | None] | None = None,
) -> pd.DataFrame:
    """One score per (generate condition, grade condition, item): its graded
    replications reduced; a replication is correct at the top of its grade
    condition's scale (`scales`, grade_scales; 1 without)."""
    scored = frame[frame["status"] == "scored"]
    keys = ["gen_condition_id", "grade_condition_id", "item_id"]
    if scored.empty:
        return pd.DataFrame(columns=[*keys, "score"])
    if reducer == "mean":
        reduced = scored.groupby(keys, sort=False)["score"].mean()
    else:
        parts = []
        for grade_id, group in scored.groupby("grade_condition_id", sort=False):
            scale = (scales or {}).get(grade_id)
            top = scale[1] if scale else 1.0
            parts.append(
                group.groupby(keys, sort=False)["score"].agg(
                    lambda s, top=top: stats.reduce_item(s.to_numpy(), reducer, top)
                )
            )
        reduced = pd.concat(parts)
    return reduced.reset_index()
