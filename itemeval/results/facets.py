"""The facets `results --by` groups by, and the marginal means per level of one.

A generate facet (model, prompt, model_config, solver) and an item metadata key have
levels within each grade condition; a grade facet (grader, rubric, scorer) has levels
across them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..records import GenerateCondition, GradeCondition
from ..stats.intervals import Interval
from ..stats.scale_intervals import Bounds
from ..study.load import Study

GEN_FACETS = {
    "model": "model",
    "prompt": "prompt",
    "model_config": "model_config_name",
    "solver": "solver",
}
GRADE_FACETS = {"grader": "grader_name", "rubric": "rubric", "scorer": "scorer"}


def marginals(
    study: Study,
    items: pd.DataFrame,
    facet: str,
    grade: list[GradeCondition],
    interval: Callable[[np.ndarray, Bounds | None], Interval],
    scales: dict[str, Bounds | None],
) -> list[dict[str, Any]]:
    """Per level of `facet`: each item's score averaged over the other facets, then
    the interval over items (`interval(values, the grade condition's scale)`;
    `scales` from scale_intervals.grade_scales)."""
    column, mapping, per_grade = facet_levels(study, facet, grade)
    frame = items.assign(level=items[column].map(mapping)).dropna(subset=["level"])
    groups = ["grade_condition_id", "level"] if per_grade else ["level"]
    rows: list[dict[str, Any]] = []
    if not per_grade:
        frame = split_mixed_scales(frame, scales)
    for key, group in frame.groupby(groups, sort=True):
        grade_id, level = key if per_grade else (None, key[0])
        result = interval(
            group.groupby("item_id")["score"].mean().to_numpy(dtype=float),
            scales.get(grade_id),
        )
        rows.append(
            {
                "facet": facet,
                "level": level,
                "grade_condition_id": grade_id,
                "items": result.n,
                "mean": result.mean,
                "se": result.se,
                "ci_low": result.ci_low,
                "ci_high": result.ci_high,
                "scale": _scale_of(group["grade_condition_id"], scales),
            }
        )
    return rows


def _scale_of(grade_ids: pd.Series, scales: dict[str, Bounds | None]) -> str | None:
    """The one scale the rows' grade conditions score on, or None."""
    labels = {scale_label(b) for g in set(grade_ids) if (b := scales.get(g))}
    return labels.pop() if len(labels) == 1 else None


def split_mixed_scales(
    frame: pd.DataFrame, scales: dict[str, Bounds | None]
) -> pd.DataFrame:
    """A grade-facet level whose grade conditions score on different scales (a
    judge's 0/1 rubric and its 1–5 one) split into a level per scale, "strict (scores
    up to 5)": an average of 0/1 and 1–5 scores means nothing. Levels on one scale
    stay as they are."""
    labels = {g: scale_label(bounds) for g, bounds in scales.items() if bounds}
    label = frame["grade_condition_id"].map(labels)
    mixed = label.groupby(frame["level"]).transform("nunique") > 1
    split = frame["level"].astype(str) + " (scores " + label.astype(str) + ")"
    return frame.assign(level=frame["level"].where(~mixed, split))


_TOPS = (1, 5, 10, 100)
"""The tops of the scales rubrics use: 0/1 (and shares), up to 5, 10 or 100."""


def scale_label(bounds: Bounds) -> str:
    """The scale scores live on, as read from them (no rubric declares one): the
    highest score rounded up to a usual top, so a 1–5 judge that never gave a 5 is on
    the same scale as one that did ("0–1", "up to 5", "up to 10", "-3 to 5")."""
    low, high = bounds
    top = next((t for t in _TOPS if high <= t), math.ceil(high))
    if low >= 0.0:
        return "0–1" if top == 1 else f"up to {top}"
    return f"{math.floor(low)} to {top}"


def facet_levels(
    study: Study, facet: str, grade: list[GradeCondition]
) -> tuple[str, dict[str, Any], bool]:
    """(the column of the item scores a facet reads, {value: level}, whether levels
    are within each grade condition)."""
    if facet in GEN_FACETS:
        return (
            "gen_condition_id",
            {c.id: facet_level(c, facet) for c in study.generate},
            True,
        )
    if facet in GRADE_FACETS:
        return (
            "grade_condition_id",
            {c.id: _grade_level(c, facet) for c in grade},
            False,
        )
    known = (
        set().union(*(item.metadata for item in study.items)) if study.items else set()
    )
    if facet not in known:
        facets = ", ".join([*GEN_FACETS, *GRADE_FACETS, *sorted(known)])
        raise ConfigError(f"--by: unknown facet {facet!r}; use one of {facets}")
    return (
        "item_id",
        {item.id: _scalar(item.metadata.get(facet)) for item in study.items},
        True,
    )


def facet_level(condition: GenerateCondition, facet: str) -> str:
    """A generate condition's level of `facet` (model, prompt, model_config or
    solver)."""
    return (
        condition.prompt.ref
        if facet == "prompt"
        else getattr(condition, GEN_FACETS[facet])
    )


def _grade_level(condition: GradeCondition, facet: str) -> str | None:
    if facet == "rubric":
        return condition.rubric.ref if condition.rubric else None
    if facet == "grader":
        return condition.grader_name or condition.scorer
    return condition.scorer


def _scalar(value: Any) -> Any:
    return (
        value
        if value is None or isinstance(value, (str, int, float, bool))
        else json.dumps(value)
    )
