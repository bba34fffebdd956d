"""`itemeval results`: the numbers a researcher reports, computed from the stores.

One frame holds every (grade condition × gradable solution) with its status and score;
the cells, marginals, paired comparisons, grader agreement and calibration are all
computed from it with `itemeval.stats`. Only grades of a solution's current text count;
stale ones are pending.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from ..plan import cascade_counts
from ..plan.draws import reducing_draws
from ..plan.items import choose_items
from ..plan.state import graded_extra_judges, shared_states, solution_state
from ..records import GradeCondition
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
from ..stages.reply_notes import same_reply_notes
from ..stats import intervals as stats
from ..stats import reducers
from ..stats.reducers import item_scores
from ..stats.scale_intervals import Bounds, grade_scales
from ..study.cell_names import cell_facets, cell_name, grader_facets
from ..study.load import Study
from . import criteria as criteria_results
from . import declared
from . import human as human_results
from . import pairwise as pairwise_results
from .active_labels import label_notes
from .agreement import agreement, calibration, scored_wide
from .cells import cell_rows, compared_pairs, comparison_rows, graded_frame, interval_of
from .facet_compare import (
    compared_facet,
    facet_comparison_rows,
    level_pairs,
    levels_of,
    unknown_names_levels,
    varying_facets,
)
from .facets import facet_levels, marginals, scale_label
from .headline import headlines
from .judges import judge_doubts
from .options import ResultsOptions, check_options


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
    with shared_states(), reducing_draws(options.draws):
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
        if reducers.is_passing(options.reducer)
        else given
    )
    cells = cell_rows(frame, items, study.generate, grade, options, scales)
    facets = cell_facets(study.generate)
    names = {gen_id: cell_name(levels) for gen_id, levels in facets.items()}
    slugs = {c.id: c.slug for c in [*study.generate, *grade, *study.pairwise]}
    corrected = typed(Corrected, human_results.corrected(frame, grade))
    figures = _figures_and_notes(study, frame, items, grade, options, scales)
    figures["notes"] = (*figures["notes"], *label_notes(corrected, slugs))
    block = declared.preregistration(study, options)
    report = ResultsReport(
        study=study.config.study,
        reducer=options.reducer,
        ci_method=options.ci,
        cells=typed(Cell, cells),
        comparisons=typed(
            Comparison, _comparisons(study, items, grade, options, block)
        ),
        agreement=typed(AgreementRow, _agreement(frame, grade, options, given)),
        calibration=typed(Calibration, calibration(frame, grade)),
        corrected=corrected,
        metrics=tuple(
            MetricRow.of(row) for row in _metrics(study, grade, items, options, frame)
        ),
        cascades=typed(Decided, cascade_counts.decided_counts(frame, grade)),
        slugs=slugs,
        headline=typed(
            Headline, _headlines(study, items, cells, grade, names, options.by)
        ),
        cell_facets=facets,
        grader_facets=grader_facets(grade),
        scales={g: scale_label(b) for g, b in given.items() if b is not None},
        **figures,
        **_pairwise_figures(study, options, chosen_ids),
    )
    return declared.mark(report, block, asked_compare=bool(options.compare))


def _headlines(study, items, cells, grade, names, by) -> list[dict[str, Any]]:
    """The headline rows: the facet asked for first (`--by model`), else the facet
    that varies most, then the conditions."""
    facets = {f: levels_of(study.generate, f) for f in varying_facets(study.generate)}
    asked = next((f for f in by if f in facets), None)
    rows = headlines(items, cells, grade, names, facets, asked)
    doubts = judge_doubts(
        study,
        grade,
        lambda: graded_frame(study, grade, all_draws=True),
        study.config.families,
    )
    for row in rows:
        row["doubt"] = doubt = doubts.get(row["grade_condition_id"])
        if doubt is not None:
            row["text"] += f" — under a doubted judge: {doubt} (results --judges)"
    return rows


def _comparisons(
    study: Study, items: pd.DataFrame, grade: list[GradeCondition], options, block
) -> list[dict[str, Any]]:
    """`--compare`: of generate conditions, or (`--by` a generate facet) of its
    levels; without it, the preregistration's declared pairs (Holm over them)."""
    if not options.compare:
        pairs = declared.declared_pairs(block)
        facet = block["analysis"]["by"] if block else None
        if not pairs or facet is None:
            return comparison_rows(items, pairs, grade) if pairs else []
        level_of = levels_of(study.generate, facet)
        return facet_comparison_rows(items, level_of, facet, pairs, grade)
    facet = compared_facet(study.generate, options)
    if facet is None:
        pairs = unknown_names_levels(study.generate, options, compared_pairs)
        return comparison_rows(items, pairs, grade)
    level_of = levels_of(study.generate, facet)
    levels = sorted(set(level_of.values()))
    pairs = level_pairs(levels, options.compare, facet)
    return facet_comparison_rows(items, level_of, facet, pairs, grade)


def _figures_and_notes(study, frame, items, grade, options, scales) -> dict[str, Any]:
    figures = _criteria_figures(study, frame, items, grade, options, scales)
    figures["notes"] = (
        *order_notes(study, frame),
        *figures["notes"],
        *input_notes(study),
        *same_reply_notes(study.paths, study.generate),
    )
    return figures


def order_notes(study: Study, frame: pd.DataFrame) -> list[str]:
    """What to run first when there is nothing to show yet."""
    config = study.loaded.path.name
    if not solution_state(study)["stored"].any():
        return [NOTHING_GENERATED.format(config=config)]
    if not (frame["status"] == "scored").any():
        return [NOTHING_GRADED.format(config=config)]
    return []


NOTHING_GENERATED = (
    "nothing generated yet: run `itemeval generate {config}`, then `itemeval grade "
    "{config}`; the tables below fill in as they do"
)
NOTHING_GRADED = (
    "nothing graded yet: run `itemeval grade {config}`; the tables below fill in as "
    "it does"
)


def input_notes(study: Study) -> list[str]:
    """What results says of answers written for an earlier version of their item:
    left out until generate runs them again, or (solvers.on_input_change: keep)
    counted and flagged."""
    merged = solution_state(study)
    changed = int(merged["input_changed"].fillna(False).astype(bool).sum())
    if not changed:
        return []
    if study.config.solvers.on_input_change == "keep":
        return [
            f"{changed} answer(s) counted here were written for an earlier version of "
            "their item (solvers.on_input_change: keep); export flags them "
            "input_changed"
        ]
    return [
        f"{changed} answer(s) were written for an earlier version of their item and "
        "are left out: run generate to answer the items as they are now"
    ]


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
    "returning a mapping (docs/guides/compare.md: Scores with several criteria)"
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
    return lambda values, bounds: interval_of(values, options, bounds)


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
    """Grader agreement, with the human-label figures (results/human.py) added;
    `scales`: each grade condition's (grade_scales), for its pass mark."""
    wide = scored_wide(frame)
    rows = agreement(wide, grade, options.threshold, scales)
    human_results.extend_agreement(rows, wide, grade, seed=options.seed)
    for row in rows:
        row["common_scale"] = _one_scale(scales.get(row["a"]), scales.get(row["b"]))
        if not row["common_scale"]:
            for key in _ON_ONE_SCALE:
                row[key] = None
    return rows


_ON_ONE_SCALE = (
    "exact",
    "exact_ci_low",
    "exact_ci_high",
    "bias",
    "bias_ci_low",
    "bias_ci_high",
)
"""The agreement figures that compare the scores themselves: only on one scale."""


def _one_scale(a: Bounds | None, b: Bounds | None) -> bool:
    """Two grade conditions' scales (grade_scales) are one when they read the same:
    "0–1" and "0–1", "up to 5" and "up to 5"."""
    if a is None or b is None:
        return True
    return scale_label(a) == scale_label(b)


def _metrics(study, grade, items, options, frame) -> list[dict[str, Any]]:
    """The declared global metrics (itemeval.metrics), per cell, per --by level and
    per --compare pair."""
    from .metric_rows import MetricOptions
    from .metrics import study_metrics

    if not study.config.metrics:
        return []

    levels = {}
    for facet in (f for f in options.by if f != "criterion"):
        column, mapping, per_grade = facet_levels(study, facet, grade)
        if per_grade:  # grade facets: a metric belongs to one grade condition
            levels[facet] = {"column": column, "levels": mapping}
    chosen = frozenset(frame["item_id"]) if options.sample is not None else None
    # metric(A) - metric(B) compares generate conditions, not a facet's levels
    wanted = (
        options.compare
        and options.metric_differences
        and compared_facet(study.generate, options) is None
    )
    pairs = compared_pairs(study.generate, options.compare) if wanted else []
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


# ---- cells
# --------------------------------------------------------------------------------------


# ---- paired comparisons
# --------------------------------------------------------------------------------------
