"""The sentence `results` and the report open with, per grade condition: which
generate condition scored best and whether its lead over the next one is more than
chance (the paired difference on the items both have, its 95% CI and the p-value
Holm-adjusted over the headlines), or that no difference is detectable.

Higher scores are taken as better. The two compared are chosen by their means, so the
p-value of a lead is a little optimistic with many conditions; a pre-registered pair
is `results --compare A B`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import stats
from .records import GradeCondition

ALPHA = 0.05


def headlines(
    item_scores: pd.DataFrame,
    cells: Sequence[dict[str, Any]],
    grade: Sequence[GradeCondition],
    names: dict[str, str],
) -> list[dict[str, Any]]:
    """One row per grade condition with a scored cell: the best generate condition,
    the next, their paired difference and the sentence that says it."""
    rows = [
        row
        for grader in grade
        if (row := _lead(item_scores, cells, grader.id)) is not None
    ]
    adjusted = stats.holm([row["p"] for row in rows])
    for row, p in zip(rows, adjusted):
        row["p_adjusted"] = p
        row["detectable"] = bool(p == p and p < ALPHA)
        row["text"] = sentence(row, names, {c.id: c.slug for c in grade})
    return rows


def _lead(
    item_scores: pd.DataFrame, cells: Sequence[dict[str, Any]], grade_id: str
) -> dict[str, Any] | None:
    ranked = sorted(
        (c for c in cells if c["grade_condition_id"] == grade_id and c["items"]),
        key=lambda c: -c["mean"],
    )
    if len(ranked) < 2:
        return _row(grade_id, ranked[0], None, None) if ranked else None
    best, runner_up = ranked[0], ranked[1]
    result = stats.paired(*_paired_scores(item_scores, grade_id, best, runner_up))
    if result.diff < 0:  # behind on the items both have (a tie, or fewer items)
        best, runner_up = runner_up, best
        result = stats.paired(*_paired_scores(item_scores, grade_id, best, runner_up))
    return _row(grade_id, best, runner_up, result)


def _row(grade_id, best, runner_up, result: stats.Comparison | None) -> dict:
    return {
        "grade_condition_id": grade_id,
        "best": best["gen_condition_id"],
        "best_mean": best["mean"],
        "runner_up": runner_up["gen_condition_id"] if runner_up else None,
        "runner_up_mean": runner_up["mean"] if runner_up else None,
        "n": result.n if result else 0,
        "diff": result.diff if result else None,
        "ci_low": result.ci_low if result else None,
        "ci_high": result.ci_high if result else None,
        "test": result.test if result else None,
        "p": result.p if result else float("nan"),
    }


def _paired_scores(item_scores, grade_id, best, runner_up) -> tuple[np.ndarray, ...]:
    """The two conditions' item scores, aligned by item (NaN where one lacks it)."""
    mine = item_scores[item_scores["grade_condition_id"] == grade_id]
    wide = mine.pivot_table(
        index="item_id", columns="gen_condition_id", values="score"
    ).reindex(columns=[best["gen_condition_id"], runner_up["gen_condition_id"]])
    return tuple(wide[column].to_numpy(dtype=float) for column in wide.columns)


def sentence(row: dict[str, Any], names: dict[str, str], slugs: dict[str, str]) -> str:
    """The headline as a reader would quote it."""
    grader = slugs.get(row["grade_condition_id"], row["grade_condition_id"])
    best = names.get(row["best"], row["best"])
    if row["runner_up"] is None:
        return f"{grader}: {best} scores {row['best_mean']:.3f} (the only condition)"
    runner_up = names.get(row["runner_up"], row["runner_up"])
    evidence = (
        f"{row['diff']:+.3f} on {row['n']} paired items, 95% CI "
        f"{_signed(row['ci_low'])} to {_signed(row['ci_high'])}, "
        f"Holm-adjusted p {_p(row['p_adjusted'])}"
    )
    if row["detectable"]:
        return (
            f"{grader}: {best} is best ({row['best_mean']:.3f}), ahead of "
            f"{runner_up} ({row['runner_up_mean']:.3f}) by {evidence}"
        )
    return (
        f"{grader}: no detectable difference between {best} "
        f"({row['best_mean']:.3f}) and the next, {runner_up} "
        f"({row['runner_up_mean']:.3f}): {evidence}"
    )


def _signed(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:+.3f}"


def _p(value: float) -> str:
    if value != value:
        return "undefined"
    return "< 0.001" if value < 0.001 else f"= {value:.3f}"
