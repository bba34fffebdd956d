"""Pure planning of pairwise verdicts: the cells each pair has, their stored state, the
ones to ask now."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..records import PAIRWISE_KEY, GradeCondition
from ..study import pairwise
from . import cells as plan

STATE_COLUMNS = [
    *PAIRWISE_KEY,
    "solution_hash_a",
    "solution_hash_b",
    "error",
    "parse_ok",
    "usd",
]
"""The pairwise store's columns the planner and status read."""
CELL_COLUMNS = [*PAIRWISE_KEY, "hash_a", "hash_b"]


def pair_cells(
    gradable: pd.DataFrame,
    condition: GradeCondition,
    gen_ids: Sequence[str],
) -> pd.DataFrame:
    """Every (pair, item, epoch, order) a pairwise condition asks: the items and epochs
    both conditions of a pair have a gradable solution for, with the two solutions'
    current hashes.

    `gradable` has (condition_id, item_id, epoch, solution_hash), as plan.gradable
    returns it."""
    frames = []
    for a, b in pairwise.pairs(list(gen_ids), condition.baseline):
        left = _side(gradable, a, "hash_a")
        right = _side(gradable, b, "hash_b")
        both = left.merge(right, on=["item_id", "epoch"], how="inner")
        if both.empty:
            continue
        frames.append(both.assign(condition_a=a, condition_b=b))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    cells = pd.concat(frames, ignore_index=True)
    cells["grade_condition_id"] = condition.id
    cells = _with_orders(cells, condition)
    return cells[CELL_COLUMNS].reset_index(drop=True)


def _side(gradable: pd.DataFrame, condition_id: str, hash_name: str) -> pd.DataFrame:
    rows = gradable[gradable["condition_id"] == condition_id]
    return rows[["item_id", "epoch", "solution_hash"]].rename(
        columns={"solution_hash": hash_name}
    )


def _with_orders(cells: pd.DataFrame, condition: GradeCondition) -> pd.DataFrame:
    """One row per order asked: both, or the one `orders: 1` draws from the cell's
    key."""
    keys = zip(
        cells["grade_condition_id"],
        cells["condition_a"],
        cells["condition_b"],
        cells["item_id"],
        cells["epoch"].astype(int),
    )
    orders = [pairwise.orders_for(key, condition.orders) for key in keys]
    cells = cells.assign(order=orders).explode("order")
    return cells.assign(order=cells["order"].astype("int64"))


def pair_state(cells: pd.DataFrame, stored: pd.DataFrame) -> pd.DataFrame:
    """Each cell with its `state`: done, parse_failed, stale (an answer changed), error
    or pending.

    A verdict is current only while both answers it was given are the stored ones."""
    extra = [c for c in stored.columns if c not in STATE_COLUMNS]  # they ride along
    verdicts = stored.reindex(columns=[*STATE_COLUMNS, *extra]).rename(
        columns={"error": "verdict_error"}
    )
    merged = cells.merge(verdicts.assign(asked=True), on=list(PAIRWISE_KEY), how="left")
    asked = merged["asked"].fillna(False).astype(bool)
    ok = asked & merged["verdict_error"].isna()
    current = (
        ok
        & (merged["solution_hash_a"] == merged["hash_a"])
        & (merged["solution_hash_b"] == merged["hash_b"])
    )
    parse_ok = merged["parse_ok"].fillna(True).astype(bool)
    merged["state"] = np.select(
        [current & parse_ok, current & ~parse_ok, ok & ~current, asked & ~ok],
        ["done", "parse_failed", "stale", "error"],
        default="pending",
    )
    return merged.drop(columns=["asked"])


def plan_pairs(
    state: pd.DataFrame, *, force: bool, only: Sequence[str] = ()
) -> pd.DataFrame:
    """The verdicts to ask now, by the same rule as every grade: parse failures are
    final, errors retried."""
    return plan.plan_grade(state, force=force, only=only)


def pair_counts(state: pd.DataFrame) -> pd.DataFrame:
    """Per pairwise condition: verdicts asked of it (`solutions`), done, parse_failed,
    stale, errors, pending, usd, as plan.grade_counts gives them for a grade
    condition."""
    return plan.grade_counts(state)
