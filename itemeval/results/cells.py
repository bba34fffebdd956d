"""The figures of each cell (generate condition × grade condition): the graded frame,
one row per grade condition and gradable solution; each cell's item mean with its
interval; and paired comparisons of generate conditions over the items both have."""

from __future__ import annotations

from dataclasses import asdict
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..plan.state import grade_state
from ..records import GenerateCondition, GradeCondition
from ..stats import intervals as stats
from ..stats import paired as paired_tests
from ..stats.scale_intervals import Bounds, bounded_interval
from ..study.grid import pick_condition
from ..study.load import Study
from ..wide import categories, coded, pivot_mean
from .options import ResultsOptions

STATUSES = ("scored", "parse_failure", "error", "pending")


_STATUS = {"done": 0, "parse_failed": 1, "error": 2}
"""`status`'s grade states as results counts them (indices into STATUSES): a stale
grade (of an older text) is pending."""


def graded_frame(
    study: Study, grade: list[GradeCondition], *, all_draws: bool = False
) -> pd.DataFrame:
    """Columns: gen_condition_id, grade_condition_id, item_id, epoch, status (scored,
    parse_failure, error, pending), score (of scored grades only), score_metadata;
    with `all_draws`, a row per judge draw and its `draw` (the reliability card reads
    them), else each answer's draws reduced to one grade. The ids and the status are
    categoricals (their values sorted)."""
    state = grade_state(
        study, grade, extra=("score", "score_metadata"), all_draws=all_draws
    )
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
    )[
        [
            *_KEYS,
            "epoch",
            *(["draw"] if all_draws and "draw" in state else []),
            "status",
            "score",
            "score_metadata",
        ]
    ]


_KEYS = ("gen_condition_id", "grade_condition_id", "item_id")


def interval_of(
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


def cell_rows(
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
            interval_of(values, options, scales.get(key[1]))
            for key, values in zip(keys, scores)
        ]
    # a rater's unlabelled answers are not grades owed: nothing is pending there
    raters = {g.id for g in grade if g.kind == "human"}
    rows = []
    for key, values, interval in zip(keys, scores, intervals):
        count = counts.loc[key] if key in counts.index else pd.Series(dtype=int)
        if key[1] in raters:
            count = count.drop("pending", errors="ignore")
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


def compared_pairs(
    generate: list[GenerateCondition], selectors: tuple[str, ...]
) -> list[tuple[str, str]]:
    if selectors == ("all",):
        return [(a.id, b.id) for a, b in combinations(generate, 2)]
    chosen = [pick_condition(generate, s, "--compare") for s in selectors]
    return [(chosen[0], chosen[1])]


def comparison_rows(
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
        results = paired_tests.paired_many(
            scores.to_numpy(dtype=float), [(at[a], at[b]) for a, b in kept]
        )
        values = scores.to_numpy(dtype=float)
        rows += [
            {
                "grade_condition_id": grader.id,
                "a": a,
                "b": b,
                **asdict(paired_tests.within_range(result, values)),
            }
            for (a, b), result in zip(kept, results)
        ]
    for grade_id in dict.fromkeys(row["grade_condition_id"] for row in rows):
        family = [row for row in rows if row["grade_condition_id"] == grade_id]
        for row, p in zip(family, paired_tests.holm([row["p"] for row in family])):
            row["p_adjusted"] = p
            row["facet"] = None
    return rows
