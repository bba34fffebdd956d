"""How well grade conditions agree over the same solutions, and how well calibrated
the probability scorers are: two lists of `itemeval results`."""

from __future__ import annotations

import json
from dataclasses import asdict
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..scorers.registry import is_probability
from ..stats import agreement as stats


def agreement(
    wide: pd.DataFrame,
    grade: list[GradeCondition],
    threshold: float | None,
    scales: dict[str, tuple[float, float] | None] | None = None,
) -> list[dict]:
    """Each pair of grade conditions over the solutions both scored; `wide` is
    `scored_wide` of the graded frame. Each grader passes at `threshold`, else at
    the midpoint of its own scale (`scales`, grade_scales), else of the scores both
    gave."""
    rows = []
    for a, b in combinations([c.id for c in grade if c.id in wide.columns], 2):
        x, y = wide[a].to_numpy(dtype=float), wide[b].to_numpy(dtype=float)
        result = stats.agreement(x, y)
        if result.n == 0:
            continue
        both = ~(np.isnan(x) | np.isnan(y))
        shared = _midpoint(np.concatenate([x[both], y[both]]))
        cut_a, cut_b = (
            (threshold, threshold)
            if threshold is not None
            else (_cut(scales, a, shared), _cut(scales, b, shared))
        )
        if cut_a != cut_b and (scales or {}).get(a) == (scales or {}).get(b):
            cut_a = cut_b = shared  # one scale: one pass mark
        rows.append(
            {
                "a": a,
                "b": b,
                **asdict(result),
                "threshold": cut_a,
                "threshold_b": cut_b,
                "confusion": stats.threshold_confusion(x, y, cut_a, cut_b),
            }
        )
    return rows


def _cut(scales, grade_id: str, shared: float) -> float:
    scale = (scales or {}).get(grade_id)
    return shared if scale is None else float((scale[0] + scale[1]) / 2)


def scored_wide(frame: pd.DataFrame) -> pd.DataFrame:
    """Scores of current grades: a row per solution, a column per grade condition, the
    index the solution's generate condition. Built from integer codes (a pivot of a
    million string-keyed rows takes seconds)."""
    scored = frame[frame["status"] == "scored"]
    gen, gens = pd.factorize(scored["gen_condition_id"])
    item, _ = pd.factorize(scored["item_id"])
    epoch = scored["epoch"].to_numpy(dtype=np.int64)
    key = (gen * (item.max(initial=0) + 1) + item) * (epoch.max(initial=0) + 1) + epoch
    solutions, row = np.unique(key, return_inverse=True)
    grade, grades = pd.factorize(scored["grade_condition_id"])
    table = np.full((len(solutions), len(grades)), np.nan)
    table[row, grade] = scored["score"].to_numpy(dtype=float)
    first = np.zeros(len(solutions), dtype=np.int64)
    first[row] = gen
    index = pd.Index(np.asarray(gens)[first], name="gen_condition_id")
    return pd.DataFrame(table, index=index, columns=list(grades))


def _midpoint(values: np.ndarray) -> float:
    return float((values.min() + values.max()) / 2)


def calibration(frame: pd.DataFrame, grade: list[GradeCondition]) -> list[dict]:
    """For `risk` / `numeric_risk` with two options: P(positive option) against whether
    the target is positive.

    The target's class is not stored on a grade, but follows from it: the prediction is
    the positive option when P >= 0.5, and the grade says whether the prediction was the
    target.
    """
    probability_ids = {c.id for c in grade if is_probability(c.scorer)}
    rows = []
    scored = frame[
        (frame["status"] == "scored")
        & frame["grade_condition_id"].isin(probability_ids)
    ]
    for (gen_id, grade_id), group in scored.groupby(
        ["gen_condition_id", "grade_condition_id"], sort=False
    ):
        risk = group["score_metadata"].map(_risk_score).to_numpy(dtype=float)
        predicted_positive = risk >= 0.5
        outcome = np.where(
            group["score"].to_numpy() == 1.0, predicted_positive, ~predicted_positive
        ).astype(float)
        outcome[np.isnan(risk)] = np.nan
        result = stats.calibration(risk, outcome)
        if result.n:
            rows.append(
                {
                    "gen_condition_id": gen_id,
                    "grade_condition_id": grade_id,
                    **asdict(result),
                }
            )
    return rows


def _risk_score(metadata: Any) -> float:
    if not isinstance(metadata, str):
        return float("nan")
    value = json.loads(metadata).get("risk_score")
    return float(value) if isinstance(value, (int, float)) else float("nan")
