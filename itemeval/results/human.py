"""The figures human labels add to `results`: each agreement row's grader kinds,
bootstrap CIs of kappa and the bias a - b, and the prediction-powered,
judge-corrected mean of each cell people labelled a sample of (uniformly, or from the
active queue)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..stats.agreement_ci import agreement_interval
from ..stats.ppi import ppi_mean
from ..stats.scale_intervals import Bounds, scale_of
from .active_labels import active_rows, rater_draws
from .agreement import scored_wide
from .labels import HUMAN


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
    (prediction-powered inference); a rater who labelled from the active queue by
    the draws' inverse probabilities (results/active_labels.py)."""
    humans = [c for c in grade if c.kind == HUMAN]
    machines = [c for c in grade if c.kind != HUMAN]
    if not humans or not machines:
        return []
    wide = scored_wide(frame)
    scales = {c: scale_of(wide[c].to_numpy(float)) for c in wide.columns}
    drawn = {h.id: rater_draws(frame, h) for h in humans}
    uniform = [h for h in humans if drawn[h.id] is None]
    rows = _uniform_rows(wide, machines, uniform, scales)
    for human in (h for h in humans if drawn[h.id] is not None):
        measured = [
            (m, _union(scales.get(m.id), scales.get(human.id)))
            for m in machines
            if m.id in wide.columns and _same_quantity(m, human, scales)
        ]
        rows += active_rows(frame, human, measured, drawn[human.id])
    return rows


def _uniform_rows(wide, machines, humans, scales) -> list[dict[str, Any]]:
    rows = []
    for gen_id, cell in wide.groupby(level="gen_condition_id", sort=True):
        for machine in (m for m in machines if m.id in cell.columns):
            judged = cell[machine.id].to_numpy(float)
            for human in (h for h in humans if h.id in cell.columns):
                if not _same_quantity(machine, human, scales):
                    continue
                bounds = _union(scales[machine.id], scales[human.id])
                row = _corrected_cell(judged, cell[human.id].to_numpy(float), bounds)
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


def _same_quantity(
    machine: GradeCondition, human: GradeCondition, scales: dict[str, Any]
) -> bool:
    """Whether the rater's labels measure what the machine scores, so one corrects
    the other: a judge under the rubric the rater labelled against; a grader without
    a rubric (a scorer) when both score on the same scale. A 0/1 rater never
    corrects a 0-6 criteria judge."""
    rubric = machine.rubric
    if rubric is not None:
        return human.rubric is not None and rubric.hash == human.rubric.hash
    return scales.get(machine.id) == scales.get(human.id)


def _union(a: Bounds | None, b: Bounds | None) -> Bounds | None:
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), max(a[1], b[1])


def _corrected_cell(
    judged: np.ndarray, human: np.ndarray, bounds: Bounds | None
) -> dict[str, Any] | None:
    both = ~np.isnan(judged) & ~np.isnan(human)
    if both.sum() < 2:
        return None
    result = ppi_mean(
        judged[~np.isnan(judged)], judged[both], human[both], bounds=bounds
    )
    return {
        "n_labelled": result.n_labelled,
        "n_judged": result.n_judged,
        "judge_mean": float(np.nanmean(judged)),
        "mean": result.mean,
        "se": result.se,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "method": "ppi",
        "design": "uniform",
        "labels_saved": 0,
        "labels_only_se": float(np.std(human[both], ddof=1) / np.sqrt(both.sum())),
    }
