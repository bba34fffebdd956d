"""`results --variance`: the G-study of the study's scores — how much of their
variance each facet holds, how reliably the study ranks its models, and what other
designs would cost and give.

The facets are those with two levels or more: the item, the generate facets (model,
prompt, model_config), the replication (epoch), the judge (judge conditions sharing
a rubric) and the draw. The design must be crossed; items lacking a cell are left
out (`stats.variance_components.crossed_array`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..stats.g_study import D_FACETS, d_study, g_coefficient, table_groups
from ..stats.variance_components import anova_components, crossed_array, shares
from ..study.load import Study
from .judges import scored

FACETS = (
    "item",
    "model",
    "prompt",
    "model_config",
    "solver",
    "replication",
    "judge",
    "draw",
)


def graded_conditions(grade: list[GradeCondition]) -> list[GradeCondition]:
    """The conditions the G-study reads: the judges of the rubric most judges
    share (they are its judge facet), else the first other grade condition."""
    judges: dict[str, list[GradeCondition]] = {}
    for condition in grade:
        if condition.kind == "judge":
            rubric = condition.rubric.ref if condition.rubric else ""
            judges.setdefault(rubric, []).append(condition)
    if judges:
        return max(judges.values(), key=len)
    others = [c for c in grade if c.kind in ("verifiable", "model_graded", "cascade")]
    return others[:1]


def facet_frame(study: Study, rows: pd.DataFrame, chosen: list[GradeCondition]):
    """One row per score with a column per facet (those of two levels or more)."""
    by_id = {c.id: c for c in study.generate}
    gen = rows["gen_condition_id"].map
    judge_of = {c.id: c.grader_model or c.slug for c in chosen}
    long = pd.DataFrame(
        {
            "item": rows["item_id"],
            "model": gen({i: c.model for i, c in by_id.items()}),
            "prompt": gen({i: c.prompt.ref for i, c in by_id.items()}),
            "model_config": gen({i: c.model_config_name for i, c in by_id.items()}),
            "solver": gen({i: c.solver for i, c in by_id.items()}),
            "replication": rows["epoch"],
            "judge": rows["grade_condition_id"].map(judge_of),
            "draw": rows["draw"],
            "score": rows["score"],
        }
    ).dropna()
    facets = tuple(f for f in FACETS if long[f].nunique() > 1)
    return long, facets


def design_calls(study: Study, sizes: dict[str, int]) -> tuple[int, int]:
    """A design's generate calls (items × prompts × replications × the study's
    models, configs and solvers) and judge calls (× judges × draws)."""
    models = len({c.model for c in study.generate})
    configs = len({(c.model_config_name, c.solver) for c in study.generate})
    answers = sizes["item"] * sizes["prompt"] * sizes["replication"] * models * configs
    return answers, answers * sizes["judge"] * sizes["draw"]


def call_price(study: Study, per_call: tuple[float | None, float | None]):
    """usd of a design at the observed usd per answer and per judge grade; where a
    call was never priced, the number of calls stands in (`priced` is then false)."""
    generate_usd, grade_usd = per_call

    def price(sizes: dict[str, int]) -> float:
        answers, grades = design_calls(study, sizes)
        if generate_usd is None or grade_usd is None:
            return float(answers + grades)
        return answers * generate_usd + grades * grade_usd

    return price


def d_choices(sizes: dict[str, int]) -> dict[str, list[int]]:
    """The numbers a D-study tries: of items, the study's and multiples; of each
    other facet the study has, 1 to a few (a facet it lacks stays at 1)."""
    items = sizes.get("item", 1)
    choices = {"item": sorted({items, 2 * items, 5 * items, 10 * items})}
    for facet in D_FACETS[1:]:
        if facet in sizes:
            choices[facet] = sorted({1, 2, 3, 5, sizes[facet]})
    return choices


def variance_report(
    study: Study,
    frame: pd.DataFrame,
    grade: list[GradeCondition],
    *,
    price: Callable[[dict[str, int]], float] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """`rows` (component, variance, share, ci_low, ci_high of the share), the
    `g_coefficient` of the model ranking and the D-study's `designs`; `price`: usd
    of a design (default `call_price` at the study's observed usd per call)."""
    chosen = graded_conditions(grade)
    rows = scored(frame)
    rows = rows[rows["grade_condition_id"].isin([c.id for c in chosen])]
    long, facets = facet_frame(study, rows, chosen)
    out: dict[str, Any] = {"grading": [c.slug for c in chosen], "facets": list(facets)}
    if "item" not in facets or len(facets) < 2:
        return out | {"rows": [], "g_coefficient": None, "designs": []}
    try:
        scores = crossed_array(long, facets)
    except ValueError as exc:  # two conditions the facets cannot tell apart
        return out | {
            "rows": [],
            "g_coefficient": None,
            "designs": [],
            "note": str(exc),
        }
    if scores.shape[0] < 2:
        note = "No G-study: fewer than two items have a score in every cell."
        return out | {"rows": [], "g_coefficient": None, "designs": [], "note": note}
    fit = anova_components(scores, facets)
    table = shares(fit, table_groups(fit), seed=seed)
    priced = True
    if price is None:
        per_call = observed_usd(study)
        priced, price = None not in per_call, call_price(study, per_call)
    designs = d_study(fit, d_choices(dict(zip(facets, fit.sizes))), price)
    g = g_coefficient(fit)
    return out | {
        "items": int(fit.sizes[0]),
        "rows": [_share_row(row) for row in table],
        "g_coefficient": None if np.isnan(g) else g,
        "priced": priced,
        "designs": [_design_row(study, d, priced) for d in designs],
    }


def _share_row(row) -> dict[str, Any]:
    return {
        "component": row.component,
        "variance": row.variance,
        "variance_ci_low": row.variance_ci[0],
        "variance_ci_high": row.variance_ci[1],
        "share": row.share,
        "ci_low": row.share_ci[0],
        "ci_high": row.share_ci[1],
    }


def _design_row(study: Study, design, priced: bool) -> dict[str, Any]:
    row = asdict(design)
    sizes = row.pop("sizes")
    names = {"item": "items", "prompt": "prompts", "replication": "replications"}
    names |= {"draw": "draws", "judge": "judges"}
    g = row["g"]
    row |= {"g": None if g != g else g, "calls": sum(design_calls(study, sizes))}
    return (
        {names[f]: sizes[f] for f in D_FACETS}
        | row
        | {"usd": row["usd"] if priced else None}
    )


def observed_usd(study: Study) -> tuple[float | None, float | None]:
    """The mean usd of a stored answer and of a stored judge grade (None where no
    call was priced)."""
    from ..store import read_store

    answers = read_store(study.paths, "solutions", ["usd"]).column("usd")
    grades = read_store(
        study.paths, "grades", ["usd"], where={"grade_kind": ["judge"]}
    ).column("usd")
    return _mean(answers.to_pylist()), _mean(grades.to_pylist())


def _mean(values: list[float | None]) -> float | None:
    priced = [v for v in values if v is not None]
    return float(np.mean(priced)) if priced else None
