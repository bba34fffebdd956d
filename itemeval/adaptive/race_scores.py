"""The scores a race decides on: which grade condition, and each condition's item
means on [0, 1] in the race's item order."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..records import GradeCondition, Item
from ..study.load import Study


def racing_condition(grade: list[GradeCondition]) -> GradeCondition:
    """The grade condition whose scores race: the first verifiable scorer, else the
    first judge (graded between rounds, before the next round is sent)."""
    for wanted in ("verifiable", "judge"):
        found = [c for c in grade if c.kind == wanted]
        if found:
            return found[0]
    raise ConfigError(
        "--race: the study has no verifiable scorer and no judge to race on; add "
        "facets.scorer (e.g. numeric) or facets.grader (a judge under graders:)"
    )


def score_range(grader: GradeCondition) -> tuple[float, float]:
    """The range the grader's scores are known in advance to lie in, which the
    confidence sequence needs: [0, 1] for a verifiable scorer, the rubric's scale
    ("score 1 to 10") for a judge."""
    if not grader.is_judge or grader.rubric is None:
        return 0.0, 1.0
    from ..results.labels import rubric_scale

    scale = rubric_scale(grader.rubric)
    return float(scale.low), float(scale.high)


def race_scores(
    study: Study, grader_id: str, ran: dict[str, int], items: list[Item]
) -> np.ndarray:
    """items x conditions (the keys of `ran`, in order) item means on [0, 1] by the
    grade condition `grader_id`; NaN where a condition has no score or past the
    `ran[condition]` items the race gave it (an eliminated condition's later ones)."""
    from ..results.cells import graded_frame
    from .sizing import score_matrix

    grader = next(c for c in study.grade if c.id == grader_id)
    slugs = {c.id: c.slug for c in study.generate}
    frame = graded_frame(study, [grader])
    frame = frame[frame["status"] == "scored"]
    ids = [item.id for item in items]
    low, high = score_range(grader)
    columns = []
    for condition, given in ran.items():
        scores = score_matrix(frame, condition, ids)
        if scores.size and np.isfinite(scores).any():
            seen = scores[np.isfinite(scores)]
            if seen.min() < low or seen.max() > high:
                raise ConfigError(
                    f"--race: {grader.slug} gave {slugs.get(condition, condition)} "
                    "scores "
                    f"from {seen.min():g} to {seen.max():g}, outside its scale "
                    f"[{low:g}, {high:g}]; a confidence sequence needs scores whose "
                    "range is known in advance (state it in the rubric, e.g. "
                    "'score 1 to 10')"
                )
        columns.append(_item_means(scores, len(ids), given))
    means = np.column_stack(columns) if columns else np.zeros((len(ids), 0))
    return (means - low) / (high - low)


def _item_means(scores: np.ndarray, items: int, ran: int) -> np.ndarray:
    """Replications averaged per item; NaN past the `ran` items the race gave it."""
    if scores.ndim != 2 or scores.shape[1] == 0:
        return np.full(items, np.nan)
    counts = np.isfinite(scores).sum(axis=1)
    means = np.where(
        counts > 0, np.nansum(scores, axis=1) / np.maximum(counts, 1), np.nan
    )
    means[ran:] = np.nan
    return means


def race_cells(
    study: Study, grader: GradeCondition, asked: dict[str, int], order: list[Item]
) -> tuple[int, float | None]:
    """The calls the race's cells hold in the store (each condition's answers on the
    `asked[condition]` first items of `order`, and their judge's grades when a judge
    races) and what they cost; None for the cost when a model is unpriced."""
    from ..store import read_store

    calls, usd = 0, 0.0
    columns = ["item_id", "usd"]
    solutions = read_store(study.paths, "solutions", ["condition_id", *columns])
    frames = [solutions.to_pandas().rename(columns={"condition_id": "gen_id"})]
    if grader.is_judge:
        grades = read_store(
            study.paths, "grades", ["gen_condition_id", "grade_condition_id", *columns]
        ).to_pandas()
        grades = grades[grades["grade_condition_id"] == grader.id]
        frames.append(grades.rename(columns={"gen_condition_id": "gen_id"}))
    for frame in frames:
        for condition, count in asked.items():
            ids = {item.id for item in order[:count]}
            own = frame[(frame["gen_id"] == condition) & frame["item_id"].isin(ids)]
            calls += len(own)
            priced = usd is not None and not own["usd"].isna().any()
            usd = usd + float(own["usd"].sum()) if priced else None
    return calls, usd
