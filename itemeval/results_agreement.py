"""How well grade conditions agree over the same solutions, and how well calibrated
the probability scorers are: two lists of `itemeval results`."""

from __future__ import annotations

import json
from dataclasses import asdict
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from . import agreement_stats as stats
from .records import GradeCondition
from .scorers.registry import is_probability


def agreement(
    frame: pd.DataFrame, grade: list[GradeCondition], threshold: float | None
) -> list[dict]:
    scored = frame[frame["status"] == "scored"]
    wide = scored.pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_id",
        values="score",
    )
    rows = []
    for a, b in combinations([c.id for c in grade if c.id in wide.columns], 2):
        x, y = wide[a].to_numpy(dtype=float), wide[b].to_numpy(dtype=float)
        result = stats.agreement(x, y)
        if result.n == 0:
            continue
        both = ~(np.isnan(x) | np.isnan(y))
        cut = (
            threshold
            if threshold is not None
            else _midpoint(np.concatenate([x[both], y[both]]))
        )
        rows.append(
            {
                "a": a,
                "b": b,
                **asdict(result),
                "threshold": cut,
                "confusion": stats.threshold_confusion(x, y, cut),
            }
        )
    return rows


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
