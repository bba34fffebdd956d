"""The figures human labels add to `results`: each agreement row's grader kinds,
bootstrap CIs of kappa and the bias a - b, and the prediction-powered,
judge-corrected mean of each cell people labelled a sample of."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from .agreement_ci import agreement_interval
from .labels import HUMAN
from .ppi import ppi_mean
from .records import GradeCondition
from .results_agreement import scored_wide


def extend_agreement(
    rows: list[dict[str, Any]],
    wide: pd.DataFrame,
    grade: list[GradeCondition],
    *,
    seed: int = 0,
) -> None:
    """Add kind_a, kind_b, kappa_ci_low/high, bias and bias_ci_low/high to each
    agreement row; `wide` is `scored_wide` of the graded frame."""
    kinds = {c.id: c.kind for c in grade}
    for row in rows:
        x, y = wide[row["a"]].to_numpy(float), wide[row["b"]].to_numpy(float)
        row["kind_a"], row["kind_b"] = kinds.get(row["a"]), kinds.get(row["b"])
        row.update(asdict(agreement_interval(x, y, seed=seed)))


def corrected(frame: pd.DataFrame, grade: list[GradeCondition]) -> list[dict[str, Any]]:
    """Per (generate condition, machine grade condition, rater) with at least two
    labelled answers the machine also scored: the machine's mean over every answer it
    scored, corrected by the mean human - machine difference on the labelled ones
    (prediction-powered inference)."""
    humans = [c for c in grade if c.kind == HUMAN]
    machines = [c for c in grade if c.kind != HUMAN]
    if not humans or not machines:
        return []
    wide = scored_wide(frame)
    rows = []
    for gen_id, cell in wide.groupby(level="gen_condition_id", sort=True):
        for machine in (m for m in machines if m.id in cell.columns):
            judged = cell[machine.id].to_numpy(float)
            for human in (h for h in humans if h.id in cell.columns):
                row = _corrected_cell(judged, cell[human.id].to_numpy(float))
                if row is not None:
                    rows.append(
                        {
                            "gen_condition_id": gen_id,
                            "grade_condition_id": machine.id,
                            "rater": human.grader_name,
                            "human_condition_id": human.id,
                            **row,
                        }
                    )
    return rows


def _corrected_cell(judged: np.ndarray, human: np.ndarray) -> dict[str, Any] | None:
    both = ~np.isnan(judged) & ~np.isnan(human)
    if both.sum() < 2:
        return None
    result = ppi_mean(judged[~np.isnan(judged)], judged[both], human[both])
    return {
        "n_labelled": result.n_labelled,
        "n_judged": result.n_judged,
        "judge_mean": float(np.nanmean(judged)),
        "mean": result.mean,
        "se": result.se,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "method": "ppi",
    }
