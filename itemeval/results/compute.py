"""`itemeval results`: the numbers a researcher reports, computed from the stores.

One frame holds every (grade condition × gradable solution) with its status and score;
the cells, marginals, paired comparisons, grader agreement and calibration are all
computed from it with `itemeval.stats`. Only grades of a solution's current text count;
stale ones are pending.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..plan import cascade_counts
from ..plan.cells import choose_items
from ..plan.state import grade_state, graded_extra_judges, shared_states
from ..records import GenerateCondition, GradeCondition
from ..result_values import (
    AgreementRow,
    Calibration,
    Cell,
    Comparison,
    Corrected,
    CriterionAgreement,
    CriterionCell,
    Decided,
    Headline,
    Marginal,
    MetricRow,
    PairRow,
    ResultsReport,
    Strength,
    typed,
)
from ..stats import intervals as stats
from ..stats.item_scores import item_scores
from ..stats.scale_intervals import Bounds, bounded_interval, grade_scales
from ..study.cell_names import cell_facets, cell_name, grader_facets
from ..study.grid import matches
from ..study.load import Study
from ..wide import categories, coded, pivot_mean
from . import criteria as criteria_results
from . import human as human_results
from . import pairwise as pairwise_results
from .agreement import agreement, calibration, scored_wide
from .facets import facet_levels, marginals
from .headline import headlines


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
    metric_differences: bool = True
    """metric(A) − metric(B) per compared pair (a paired bootstrap each); the report,
    which compares all pairs for the means, leaves them out."""


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


@stats.one_blas_thread
def study_results(
    study: Study, options: ResultsOptions, frame: pd.DataFrame | None = None
) -> ResultsReport:
    """Every figure of `itemeval results` for the study's grid, from its stores (or
    an already read `graded_frame`); the grades joined with the solutions once for the
    cells and the metrics."""
    with shared_states():
        return _study_results(study, options, frame)


def _study_results(
    study: Study, options: ResultsOptions, frame: pd.DataFrame | None
) -> ResultsReport:
    check_options(options)
    grade = grade_conditions(study)
    frame = graded_frame(study, grade) if frame is None else frame
    given = grade_scales(frame)  # the scores given anywhere in the study
    chosen_ids = _chosen(study, options)
    if chosen_ids is not None:
        frame = frame[frame["item_id"].isin(chosen_ids)]
    items = item_scores(frame, options.reducer, given)
    scales = (  # of the item scores: shares of correct replications lie in 0 to 1
        {grade_id: (0.0, 1.0) for grade_id in given}
        if stats.is_passing(options.reducer)
        else given
    )
    cells = _cells(frame, items, study.generate, grade, options, scales)
    facets = cell_facets(study.generate)
    names = {gen_id: cell_name(levels) for gen_id, levels in facets.items()}
    pairs = _compared(study.generate, options.compare) if options.compare else []
    return ResultsReport(
        study=study.config.study,
        reducer=options.reducer,
        ci_method=options.ci,
        cells=typed(Cell, cells),
        comparisons=typed(
            Comparison, _comparisons(items, pairs, grade) if pairs else []
        ),
        agreement=typed(AgreementRow, _agreement(frame, grade, options, given)),
        calibration=typed(Calibration, calibration(frame, grade)),
        corrected=typed(Corrected, human_results.corrected(frame, grade)),
        metrics=tuple(
            MetricRow.of(row) for row in _metrics(study, grade, items, options, frame)
        ),
        cascades=typed(Decided, cascade_counts.decided_counts(frame, grade)),
        slugs={c.id: c.slug for c in [*study.generate, *grade, *study.pairwise]},
        headline=typed(Headline, headlines(items, cells, grade, names)),
        cell_facets=facets,
        grader_facets=grader_facets(grade),
        **_criteria_figures(study, frame, items, grade, options, scales),
        **_pairwise_figures(study, options, chosen_ids),
    )


def _criteria_figures(study, frame, items, grade, options, scales) -> dict[str, Any]:
    """The marginals (a `--by` facet may be `criterion`) and the per-criterion rows."""
    long = criteria_results.scored_criteria(frame)
    interval = _scaled(options)
    cells = criteria_results.criteria_cells(long, interval)
    return {
        "marginals": typed(
            Marginal, _marginals(study, items, long, grade, options, scales)
        ),
        "criteria": typed(CriterionCell, cells),
        "criteria_agreement": typed(
            CriterionAgreement, criteria_results.criteria_agreement(long)
        ),
        "notes": (NO_CRITERIA,) if "criterion" in options.by and not cells else (),
    }


NO_CRITERIA = (
    "--by criterion: no grade of this study scores criteria yet; a rubric declares "
    "them in its front matter (criteria: [...]), an inspect or user scorer by "
    "returning a mapping (README: Scores with several criteria)"
)


def _pairwise_figures(
    study: Study, options: ResultsOptions, chosen_ids: list[str] | None
) -> dict[str, Any]:
    pairwise, strengths = pairwise_results.results_lists(
        study, seed=options.seed, items=chosen_ids
    )
    return {
        "pairwise": typed(PairRow, pairwise),
        "strengths": typed(Strength, strengths),
    }


def _chosen(study: Study, options: ResultsOptions) -> list[str] | None:
    """The ids of `--sample` / `--items`, or None: every item."""
    if options.sample is None and not options.ids:
        return None
    chosen = choose_items(
        study.items,
        sample=options.sample,
        seed=options.seed,
        stratify=options.stratify,
        ids=options.ids,
    )
    return [item.id for item in chosen]


def _scaled(
    options: ResultsOptions,
) -> Callable[[np.ndarray, Bounds | None], stats.Interval]:
    """The interval of values on a given scale (None: the values' own)."""
    return lambda values, bounds: _interval(values, options, bounds)


def _marginals(
    study: Study,
    items: pd.DataFrame,
    long: pd.DataFrame,
    grade: list[GradeCondition],
    options: ResultsOptions,
    scales: dict[str, Bounds | None],
) -> list[dict[str, Any]]:
    """The marginal means of every `--by` facet, in the order asked."""
    rows: list[dict[str, Any]] = []
    for facet in options.by:
        rows += (
            criteria_results.criteria_marginals(long, _scaled(options))
            if facet == "criterion"
            else marginals(study, items, facet, grade, _scaled(options), scales)
        )
    return rows


def _agreement(
    frame: pd.DataFrame,
    grade: list[GradeCondition],
    options: ResultsOptions,
    scales: dict[str, Bounds | None],
) -> list[dict[str, Any]]:
    """Grader agreement, with the human-label figures (human_results) added;
    `scales`: each grade condition's (grade_scales), for its pass mark."""
    wide = scored_wide(frame)
    rows = agreement(wide, grade, options.threshold, scales)
    human_results.extend_agreement(rows, wide, grade, seed=options.seed)
    return rows


def _metrics(study, grade, items, options, frame) -> list[dict[str, Any]]:
    """The declared global metrics (itemeval.metrics), per cell, per --by level and
    per --compare pair."""
    from .metrics import MetricOptions, study_metrics

    if not study.config.metrics:
        return []

    levels = {}
    for facet in (f for f in options.by if f != "criterion"):
        column, mapping, per_grade = facet_levels(study, facet, grade)
        if per_grade:  # grade facets: a metric belongs to one grade condition
            levels[facet] = {"column": column, "levels": mapping}
    chosen = frozenset(frame["item_id"]) if options.sample is not None else None
    wanted = options.compare and options.metric_differences
    pairs = _compared(study.generate, options.compare) if wanted else []
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

STATUSES = ("scored", "parse_failure", "error", "pending")
_STATUS = {"done": 0, "parse_failed": 1, "error": 2}
"""`status`'s grade states as results counts them (indices into STATUSES): a stale
grade (of an older text) is pending."""


def graded_frame(study: Study, grade: list[GradeCondition]) -> pd.DataFrame:
    """Columns: gen_condition_id, grade_condition_id, item_id, epoch, status (scored,
    parse_failure, error, pending), score (of scored grades only), score_metadata.
    The ids and the status are categoricals (their values sorted)."""
    state = grade_state(study, grade, extra=("score", "score_metadata"))
    # per distinct state, not per row: a million rows hold five states
    codes, states = pd.factorize(state["state"])
    lookup = np.array([_STATUS.get(s, 3) for s in states], dtype=np.int64)
    status = lookup[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    scored = state["score"].notna().to_numpy()
    status[(status == 0) & ~scored] = 3  # scored without a score: still to grade
    # the keys and the status as categoricals: results groups and pivots this frame
    # a dozen ways, and each would hash a million strings again
    return state.assign(
        **{key: categories(state[key]) for key in _KEYS},
        status=pd.Series(coded(status, STATUSES), index=state.index),
        score=state["score"].where(status == 0),
    )[[*_KEYS[:2], _KEYS[2], "epoch", "status", "score", "score_metadata"]]


_KEYS = ("gen_condition_id", "grade_condition_id", "item_id")


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
    scales: dict[str, Bounds | None],
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
    keys = [(condition.id, grader.id) for condition in generate for grader in grade]
    scores = [by_cell.get(key, np.array([])) for key in keys]
    if options.ci == "bootstrap":  # the cells of one size resampled together
        intervals = stats.bootstrap_intervals(scores, seed=options.seed)
    else:
        intervals = [
            _interval(values, options, scales.get(key[1]))
            for key, values in zip(keys, scores)
        ]
    rows = []
    for key, values, interval in zip(keys, scores, intervals):
        count = counts.loc[key] if key in counts.index else pd.Series(dtype=int)
        rows.append(_cell(key, count, values, interval, options.reducer))
    return rows


def _cell(
    key: tuple[str, str],
    count: pd.Series,
    scores: np.ndarray,
    interval: stats.Interval,
    reducer: str,
) -> dict[str, Any]:
    """A cell's row: its grades by status and its item-mean's interval."""
    grades, failures = int(count.get("scored", 0)), int(count.get("parse_failure", 0))
    return {
        "gen_condition_id": key[0],
        "grade_condition_id": key[1],
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
        "reducer": reducer,
        "ci_method": interval.method,
    }


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
    """A - B per grade condition on the items both have; Holm over the comparisons of
    each grade condition (each grader is its own measurement: adjusting across them
    would count one question once per grader)."""
    table = pivot_mean(
        items, ["grade_condition_id", "item_id"], "gen_condition_id", "score"
    )
    rows = []
    for grader in grade:
        if grader.id not in table.index.get_level_values(0):
            continue
        scores = table.loc[grader.id]
        at = {name: k for k, name in enumerate(scores.columns)}
        kept = [(a, b) for a, b in pairs if a in at and b in at]
        results = stats.paired_many(
            scores.to_numpy(dtype=float), [(at[a], at[b]) for a, b in kept]
        )
        rows += [
            {"grade_condition_id": grader.id, "a": a, "b": b, **asdict(result)}
            for (a, b), result in zip(kept, results)
        ]
    for grade_id in dict.fromkeys(row["grade_condition_id"] for row in rows):
        family = [row for row in rows if row["grade_condition_id"] == grade_id]
        for row, p in zip(family, stats.holm([row["p"] for row in family])):
            row["p_adjusted"] = p
    return rows
