"""The `pairwise` and `strengths` lists of `itemeval results`, from the current verdicts
in the store."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pandas as pd

from ..plan import pairwise_state
from ..records import GradeCondition
from ..stats import pairwise as pairwise_stats
from ..stats.length_control import pairwise_length_controlled
from ..store import read_store
from ..study.load import Study, extra_pairwise

VERDICT_COLUMNS = ("winner", "length_a", "length_b")


def pairwise_conditions(study: Study) -> list[GradeCondition]:
    """The study's pairwise judges, and those `grade --grader NAME` ran beside them."""
    extra = extra_pairwise(study.loaded, study.generate, list(study.config.graders))
    if not extra:
        return list(study.pairwise)
    stored = read_store(
        study.paths,
        "pairwise",
        ["grade_condition_id"],
        where={"grade_condition_id": [c.id for c in extra]},
    )
    asked = set(stored.column("grade_condition_id").to_pylist())
    return [*study.pairwise, *(c for c in extra if c.id in asked)]


def current_verdicts(
    study: Study,
    conditions: list[GradeCondition],
    items: Collection[str] | None = None,
) -> pd.DataFrame:
    """Valid verdicts on the answers stored now (no error, parsed, neither answer
    changed since)."""
    state = pairwise_state.state(
        study, study.generate, conditions, extra=VERDICT_COLUMNS
    )
    done = state[state["state"] == "done"]
    if items is not None:
        done = done[done["item_id"].isin(list(items))]
    return done.reset_index(drop=True)


def results_lists(
    study: Study,
    *,
    seed: int = 0,
    items: Collection[str] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(`pairwise` rows, `strengths` rows) of every pairwise condition."""
    conditions = pairwise_conditions(study)
    if not conditions:
        return [], []
    verdicts = current_verdicts(study, conditions, items)
    pairs, strengths = [], []
    for condition in conditions:
        own = verdicts[verdicts["grade_condition_id"] == condition.id]
        if own.empty:
            continue
        pairs += pair_rows(condition.id, own, seed=seed)
        strengths += strength_rows(condition.id, own, seed=seed)
    return pairs, strengths


def pair_rows(
    grade_condition_id: str, verdicts: pd.DataFrame, *, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per pair of conditions: A's win rate (ties half) and the judge's biases
    on that pair."""
    rows = []
    for (a, b), group in verdicts.groupby(["condition_a", "condition_b"], sort=True):
        result = pairwise_stats.pair_stats(group, seed=seed)
        controlled = pairwise_length_controlled(
            pairwise_stats.a_scores(group),
            group["length_a"],
            group["length_b"],
            group["order"],
        )
        rows.append(
            {
                "grade_condition_id": grade_condition_id,
                "a": a,
                "b": b,
                "n": result.n,
                "wins_a": result.wins_a,
                "wins_b": result.wins_b,
                "ties": result.ties,
                "win_rate": result.win_rate,
                "ci_low": result.ci_low,
                "ci_high": result.ci_high,
                "flip_rate": result.flip_rate,
                "both_orders": result.both_orders,
                "first_position_rate": result.first_position_rate,
                "length_corr": result.length_corr,
                "length_p": result.length_p,
                "flags": list(result.flags),
                "win_rate_lc": controlled.win_rate,
                "win_rate_lc_ci_low": controlled.ci_low,
                "win_rate_lc_ci_high": controlled.ci_high,
            }
        )
    return rows


def strength_rows(
    grade_condition_id: str, verdicts: pd.DataFrame, *, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per generate condition: its Bradley–Terry strength, interval and
    Elo-scale score."""
    conditions = sorted(set(verdicts["condition_a"]) | set(verdicts["condition_b"]))
    fit = pairwise_stats.strengths(verdicts, conditions, seed=seed)
    return [
        {
            "grade_condition_id": grade_condition_id,
            "gen_condition_id": condition,
            "strength": float(fit.strength[k]),
            "ci_low": float(fit.ci_low[k]),
            "ci_high": float(fit.ci_high[k]),
            "elo": float(fit.elo[k]),
        }
        for k, condition in enumerate(fit.conditions)
    ]
