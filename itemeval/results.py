"""`itemeval results`: the numbers a researcher reports, computed from the stores.

One frame holds every (grade condition × gradable solution) with its status and score;
the cells, marginals, paired comparisons, grader agreement and calibration are all
computed from it with `itemeval.stats`. Only grades of a solution's current text count;
stale ones are pending.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from . import cascade_counts, criteria_results, human_results, pairwise_results, stats
from .cell_names import cell_facets, cell_name
from .errors import ConfigError
from .grid import matches
from .headline import headlines
from .plan import choose_items
from .records import GenerateCondition, GradeCondition
from .scale_intervals import Bounds, bounded_interval, grade_scales
from .scorers.registry import is_probability
from .state import grade_state, graded_extra_judges
from .study import Study

GEN_FACETS = {"model": "model", "prompt": "prompt", "model_config": "model_config_name"}
GRADE_FACETS = {"grader": "grader_name", "rubric": "rubric", "scorer": "scorer"}


@dataclass(frozen=True)
class ResultsOptions:
    reducer: str = "mean"
    ci: str = "auto"
    """auto: Wilson for 0/1 item scores, else the bounded Wilson interval
    (itemeval.scale_intervals); or t, wilson, bootstrap."""
    seed: int = 0
    by: tuple[str, ...] = ()
    compare: tuple[str, ...] = ()
    """Two generate conditions (id, id prefix or slug), or ("all",)."""
    threshold: float | None = None
    sample: int | None = None
    """Only a random subset of this many items (drawn with `seed`, stratified by
    `stratify`)."""
    stratify: str | None = None
    ids: tuple[str, ...] = ()
    """Only the items with these ids (`--items`)."""


@dataclass
class ResultsReport:
    study: str
    reducer: str
    ci_method: str
    cells: list[dict[str, Any]] = field(default_factory=list)
    marginals: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    agreement: list[dict[str, Any]] = field(default_factory=list)
    calibration: list[dict[str, Any]] = field(default_factory=list)
    corrected: list[dict[str, Any]] = field(default_factory=list)
    """Judge means corrected by human labels (itemeval.human_results)."""
    pairwise: list[dict[str, Any]] = field(default_factory=list)
    strengths: list[dict[str, Any]] = field(default_factory=list)
    criteria: list[dict[str, Any]] = field(default_factory=list)
    """Per (cell, criterion) of grades with several criteria (SPEC §20)."""
    criteria_agreement: list[dict[str, Any]] = field(default_factory=list)
    """Agreement of two grade conditions on each criterion both scored."""
    metrics: list[dict[str, Any]] = field(default_factory=list)
    """Global metrics per cell and per --by level, when the study declares any."""
    cascades: list[dict[str, Any]] = field(default_factory=list)
    """Per cascade cell: how many graded solutions each stage decided."""
    slugs: dict[str, str] = field(default_factory=dict)
    headline: list[dict[str, Any]] = field(default_factory=list)
    """Per grade condition: the best generate condition and its lead (headline.py)."""
    cell_facets: dict[str, dict[str, str]] = field(default_factory=dict)
    """Generate condition id -> {facet: level} of the facets that vary (cell_names)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: numpy scalars as Python numbers, NaN (undefined) as None."""
        return _clean(asdict(self))


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def check_options(options: ResultsOptions) -> None:
    try:
        stats.parse_reducer(options.reducer)
    except ValueError as exc:
        raise ConfigError(f"--reducer: {exc}") from None
    if options.ci not in ("auto", *stats.INTERVALS):
        raise ConfigError(
            f"--ci: unknown method {options.ci!r}; use auto, t, wilson or bootstrap"
        )
    if options.compare and options.compare != ("all",) and len(options.compare) != 2:
        raise ConfigError(
            "--compare: name two generate conditions (id, id prefix or slug), or `all`"
        )


def grade_conditions(study: Study) -> list[GradeCondition]:
    """The grade conditions results covers: the study's, and the extra judges `grade
    --grader` has run."""
    from .labels import human_conditions

    return study.grade + graded_extra_judges(study) + human_conditions(study)


def study_results(
    study: Study, options: ResultsOptions, frame: pd.DataFrame | None = None
) -> ResultsReport:
    """Every figure of `itemeval results` for the study's grid, from its stores (or
    an already read `graded_frame`)."""
    check_options(options)
    grade = grade_conditions(study)
    frame = graded_frame(study, grade) if frame is None else frame
    chosen_ids = None
    if options.sample is not None or options.ids:
        chosen = choose_items(
            study.items,
            sample=options.sample,
            seed=options.seed,
            stratify=options.stratify,
            ids=options.ids,
        )
        chosen_ids = [item.id for item in chosen]
        frame = frame[frame["item_id"].isin(chosen_ids)]
    report = ResultsReport(
        study=study.config.study,
        reducer=options.reducer,
        ci_method=options.ci,
        slugs={c.id: c.slug for c in [*study.generate, *grade]},
    )
    items = item_scores(frame, options.reducer)
    report.cells = _cells(frame, items, study.generate, grade, options)
    report.cell_facets = cell_facets(study.generate)
    report.headline = headlines(
        items,
        report.cells,
        grade,
        {gid: cell_name(facets) for gid, facets in report.cell_facets.items()},
    )

    def interval(values: np.ndarray) -> stats.Interval:
        return _interval(values, options)

    long = criteria_results.scored_criteria(frame)
    report.criteria = criteria_results.criteria_cells(long, interval)
    for facet in options.by:
        report.marginals += (
            criteria_results.criteria_marginals(long, interval)
            if facet == "criterion"
            else _marginals(study, items, facet, grade, options)
        )
    if options.compare:
        report.comparisons = _comparisons(
            items, _compared(study.generate, options.compare), grade
        )
    report.agreement = _agreement(frame, grade, options.threshold)
    human_results.extend_agreement(report.agreement, frame, grade, seed=options.seed)
    report.corrected = human_results.corrected(frame, grade)
    report.criteria_agreement = criteria_results.criteria_agreement(long)
    report.calibration = _calibration(frame, grade)
    report.cascades = cascade_counts.decided_counts(frame, grade)
    report.pairwise, report.strengths = pairwise_results.results_lists(
        study, seed=options.seed, items=chosen_ids
    )
    report.slugs.update({c.id: c.slug for c in study.pairwise})
    if study.config.metrics:
        report.metrics = _metrics(study, grade, items, options, frame)
    return report


def _metrics(study, grade, items, options, frame) -> list[dict[str, Any]]:
    """The declared global metrics (itemeval.metrics), per cell, per --by level and
    per --compare pair."""
    from .metrics import MetricOptions, study_metrics

    levels = {}
    for facet in (f for f in options.by if f != "criterion"):
        column, mapping, per_grade = _facet_levels(study, facet, grade)
        if per_grade:  # grade facets: a metric belongs to one grade condition
            levels[facet] = {"column": column, "levels": mapping}
    chosen = frozenset(frame["item_id"]) if options.sample is not None else None
    # a named pair only: `all` would be k(k-1)/2 paired bootstraps per metric (the
    # report compares all, and must stay quick on a million grades)
    named = options.compare and options.compare != ("all",)
    pairs = _compared(study.generate, options.compare) if named else []
    return study_metrics(
        study,
        grade,
        items,
        MetricOptions(seed=options.seed, items=chosen),
        levels,
        pairs,
    )


# ---- the frame: one row per (grade condition × gradable solution)
# -----------------------------------------------

_STATUS = {"done": "scored", "parse_failed": "parse_failure", "error": "error"}
"""`status`'s grade states as results counts them: a stale grade (of an older text)
is pending."""


def graded_frame(study: Study, grade: list[GradeCondition]) -> pd.DataFrame:
    """Columns: gen_condition_id, grade_condition_id, item_id, epoch, status (scored,
    parse_failure, error, pending), score (of scored grades only), score_metadata."""
    state = grade_state(study, grade, extra=("score", "score_metadata"))
    status = state["state"].map(_STATUS).fillna("pending")
    scored = (status == "scored") & state["score"].notna()
    return state.assign(
        status=status.where(scored | (status != "scored"), "pending"),
        score=state["score"].where(scored),
    )[
        [
            "gen_condition_id",
            "grade_condition_id",
            "item_id",
            "epoch",
            "status",
            "score",
            "score_metadata",
        ]
    ]


def item_scores(frame: pd.DataFrame, reducer: str) -> pd.DataFrame:
    """One score per (generate condition, grade condition, item): its graded
    replications reduced."""
    scored = frame[frame["status"] == "scored"]
    keys = ["gen_condition_id", "grade_condition_id", "item_id"]
    if scored.empty:
        return pd.DataFrame(columns=[*keys, "score"])
    if reducer == "mean":
        reduced = scored.groupby(keys, sort=False)["score"].mean()
    else:
        reduced = scored.groupby(keys, sort=False)["score"].agg(
            lambda s: stats.reduce_item(s.to_numpy(), reducer)
        )
    return reduced.reset_index()


def _interval(
    values: np.ndarray, options: ResultsOptions, bounds: Bounds | None = None
) -> stats.Interval:
    method = options.ci
    if method == "auto":  # never off the scores' scale
        return bounded_interval(values, bounds)
    finite = values[~np.isnan(values)]
    if method == "wilson" and not stats.is_binary(finite):
        # Wilson is for 0/1 item scores only; the cell says which method it used
        method = "t"
    if method == "bootstrap":
        return stats.bootstrap_interval(values, seed=options.seed)
    return stats.INTERVALS[method](values)


# ---- cells
# --------------------------------------------------------------------------------------


def _cells(
    frame: pd.DataFrame,
    items: pd.DataFrame,
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
    options: ResultsOptions,
) -> list[dict[str, Any]]:
    counts = (
        frame.groupby(["gen_condition_id", "grade_condition_id", "status"])
        .size()
        .unstack(fill_value=0)
    )
    by_cell = {
        key: group["score"].to_numpy(dtype=float)
        for key, group in items.groupby(
            ["gen_condition_id", "grade_condition_id"], sort=False
        )
    }
    rows, scales = [], grade_scales(items)
    for condition in generate:
        for grader in grade:
            key = (condition.id, grader.id)
            count = counts.loc[key] if key in counts.index else pd.Series(dtype=int)
            scores = by_cell.get(key, np.array([]))
            interval = _interval(scores, options, scales.get(grader.id))
            grades, failures = (
                int(count.get("scored", 0)),
                int(count.get("parse_failure", 0)),
            )
            rows.append(
                {
                    "gen_condition_id": condition.id,
                    "grade_condition_id": grader.id,
                    "items": int(np.count_nonzero(~np.isnan(scores))),
                    "grades": grades,
                    "pending": int(count.get("pending", 0)),
                    "errors": int(count.get("error", 0)),
                    "parse_failures": failures,
                    "parse_failure_rate": failures / (grades + failures)
                    if grades + failures
                    else None,
                    "mean": interval.mean,
                    "se": interval.se,
                    "ci_low": interval.ci_low,
                    "ci_high": interval.ci_high,
                    "reducer": options.reducer,
                    "ci_method": interval.method,
                }
            )
    return rows


# ---- marginals
# --------------------------------------------------------------------------------------


def _marginals(
    study: Study,
    items: pd.DataFrame,
    facet: str,
    grade: list[GradeCondition],
    options: ResultsOptions,
) -> list[dict[str, Any]]:
    """Per level of `facet`: each item's score averaged over the other facets, then
    the interval over items."""
    column, mapping, per_grade = _facet_levels(study, facet, grade)
    frame = items.assign(level=items[column].map(mapping)).dropna(subset=["level"])
    groups = ["grade_condition_id", "level"] if per_grade else ["level"]
    rows, scales = [], grade_scales(items)
    for key, group in frame.groupby(groups, sort=True):
        grade_id, level = key if per_grade else (None, key[0])
        interval = _interval(
            group.groupby("item_id")["score"].mean().to_numpy(dtype=float),
            options,
            scales.get(grade_id),
        )
        rows.append(
            {
                "facet": facet,
                "level": level,
                "grade_condition_id": grade_id,
                "items": interval.n,
                "mean": interval.mean,
                "se": interval.se,
                "ci_low": interval.ci_low,
                "ci_high": interval.ci_high,
            }
        )
    return rows


def _facet_levels(
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
    """A generate condition's level of `facet` (model, prompt or model_config)."""
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


# ---- paired comparisons
# --------------------------------------------------------------------------------------


def _compared(
    generate: list[GenerateCondition], selectors: tuple[str, ...]
) -> list[tuple[str, str]]:
    if selectors == ("all",):
        return [(a.id, b.id) for a, b in combinations(generate, 2)]
    chosen = []
    for selector in selectors:
        found = [c for c in generate if matches(c, selector)]
        if len(found) != 1:
            known = ", ".join(c.slug for c in generate)
            what = "no" if not found else "more than one"
            raise ConfigError(
                f"--compare: {what} generate condition matches {selector!r} "
                f"(conditions: {known})"
            )
        chosen.append(found[0].id)
    return [(chosen[0], chosen[1])]


def _comparisons(
    items: pd.DataFrame, pairs: list[tuple[str, str]], grade: list[GradeCondition]
) -> list[dict]:
    """A - B per grade condition on the items both have; Holm over all comparisons of
    the run."""
    table = items.pivot_table(
        index=["grade_condition_id", "item_id"],
        columns="gen_condition_id",
        values="score",
    )
    rows = []
    for grader in grade:
        if grader.id not in table.index.get_level_values(0):
            continue
        scores = table.loc[grader.id]
        for a, b in pairs:
            if a not in scores or b not in scores:
                continue
            result = stats.paired(
                scores[a].to_numpy(dtype=float), scores[b].to_numpy(dtype=float)
            )
            rows.append(
                {"grade_condition_id": grader.id, "a": a, "b": b, **asdict(result)}
            )
    adjusted = stats.holm([row["p"] for row in rows])
    for row, p in zip(rows, adjusted):
        row["p_adjusted"] = p
    return rows


# ---- agreement between grade conditions over the same solutions
# ------------------------------------------------


def _agreement(
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


# ---- calibration of probability scorers
# ------------------------------------------------------------------------


def _calibration(frame: pd.DataFrame, grade: list[GradeCondition]) -> list[dict]:
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
