"""The corrected means of a rater who labelled from the active queue: each cell's
judge mean corrected by the labels, weighted by the inverse of the probability each
was drawn with (stats/active_ppi.py), and the labels a uniform queue would have
needed for the same width."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..stats.active_ppi import Drawn, ipw_ppi_mean
from ..stats.scale_intervals import Bounds

KEY = ["gen_condition_id", "item_id", "epoch"]
METHOD = "ppi++-ipw"
WEAK = 0.9
"""A judge leaving more than this share of the labels' own variance (se^2 over the
labels-alone se^2) barely helps: `results` says so."""


@dataclass(frozen=True)
class Draws:
    """One rater's recorded draws, in no particular order (the estimate does not need
    one): the drawn answer's key and human score, and its weight 1 / (N_c p)."""

    keys: pd.DataFrame
    human: np.ndarray
    weight: np.ndarray
    pool: int


def rater_draws(frame: pd.DataFrame, human: GradeCondition) -> Draws | None:
    """The active draws on the rater's current labels; None for a uniform queue's."""
    mine = frame[
        (frame["grade_condition_id"] == human.id) & (frame["status"] == "scored")
    ]
    keys, scores, weights, pools = [], [], [], []
    for row in mine[[*KEY, "score", "score_metadata"]].itertuples(index=False):
        for draw in _draws(row.score_metadata):
            keys.append((row.gen_condition_id, row.item_id, int(row.epoch)))
            scores.append(float(row.score))
            weights.append(1.0 / (float(draw["n_cell"]) * float(draw["p"])))
            pools.append(int(draw["pool"]))
    if not keys:
        return None
    return Draws(
        pd.DataFrame(keys, columns=KEY),
        np.array(scores),
        np.array(weights),
        max(pools),
    )


def _draws(meta: Any) -> list[dict[str, Any]]:
    if not isinstance(meta, str) or '"draws"' not in meta:
        return []
    found = json.loads(meta).get("draws")
    return [d for d in found if _usable(d)] if isinstance(found, list) else []


def _usable(draw: Any) -> bool:
    try:
        return float(draw["p"]) > 0 and int(draw["n_cell"]) > 0 and "pool" in draw
    except (TypeError, KeyError, ValueError):
        return False


def active_rows(
    frame: pd.DataFrame,
    human: GradeCondition,
    machines: list[tuple[GradeCondition, Bounds | None]],
    draws: Draws,
) -> list[dict[str, Any]]:
    """Per (cell, machine grade condition) the rater's labels measure: the corrected
    mean of the cell; a machine that did not score every answer drawn in the cell
    corrects nothing there."""
    scored = frame[frame["status"] == "scored"]
    taken = len(draws.keys.drop_duplicates())
    rows = []
    for machine, bounds in machines:
        scores = (
            scored[scored["grade_condition_id"] == machine.id]
            .groupby(KEY)["score"]
            .mean()
        )
        drawn = scores.reindex(pd.MultiIndex.from_frame(draws.keys)).to_numpy(float)
        for gen_id, judged in scores.groupby(level="gen_condition_id", sort=True):
            inside = (draws.keys["gen_condition_id"] == gen_id).to_numpy()
            if inside.sum() < 2 or np.isnan(drawn[inside]).any():
                continue
            row = _cell(judged.to_numpy(float), inside, drawn, draws, bounds, taken)
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


def _cell(judged, inside, drawn, draws: Draws, bounds, taken) -> dict[str, Any]:
    these = Drawn(inside, draws.human, np.where(inside, drawn, 0.0), draws.weight)
    result = ipw_ppi_mean(judged, these, pool=draws.pool, bounds=bounds)
    alone = ipw_ppi_mean(judged, these, power=0.0)
    return {
        "n_labelled": len(draws.keys[inside].drop_duplicates()),
        "n_judged": result.n_judged,
        "judge_mean": float(np.mean(judged)),
        "mean": result.mean,
        "se": result.se,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "method": METHOD,
        "design": "active",
        "labels_saved": int(round(result.uniform_labels)) - taken,
        "labels_only_se": alone.se,
    }


def label_notes(rows: list[Any], slugs: dict[str, str]) -> list[str]:
    """A note per rater who labelled from the active queue (their own figures are
    not the cells'), and per (judge, rater) whose corrected intervals are barely
    narrower than the labels' own: the judge agrees too little with the rater for
    PPI (or the active queue) to save many labels."""
    active = sorted({row.rater for row in rows if row.design == "active"})
    return (
        [
            f"corrected: {rater} labelled from the active queue, which draws where the "
            "judge errs more often: the human-" + rater + " means, agreement and "
            "comparisons weigh every label alike, so read the corrected means (design "
            "active) for the cells"
            for rater in active
        ]
        + _weak(rows, slugs)
        + _no_width(rows, slugs)
    )


def _no_width(rows: list[Any], slugs: dict[str, str]) -> list[str]:
    """A corrected interval of zero width: the labels met no disagreement and the
    judge's scores do not vary, which the interval cannot tell from certainty."""
    found: dict[str, list[tuple[str, int]]] = {}
    for row in rows:
        if row.ci_low is not None and row.ci_low == row.ci_high:
            found.setdefault(row.rater, []).append(
                (slugs.get(row.gen_condition_id, row.gen_condition_id), row.n_labelled)
            )
    return [
        f"corrected: in {', '.join(cell for cell, _ in cells)} the interval has zero "
        f"width: every one of {rater}'s labels there agrees with the judge and the "
        "judge's scores do not vary, so PPI sees no error; with n labels a "
        f"disagreement rate up to about 3/n (here up to "
        f"{3 / min(n for _, n in cells):.0%}) is not ruled out at 95% (the rule of "
        "three): label more answers before trusting it"
        for rater, cells in found.items()
    ]


def _weak(rows: list[Any], slugs: dict[str, str]) -> list[str]:
    weak: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if row.se is None or not row.labels_only_se:
            continue
        if (row.se / row.labels_only_se) ** 2 > WEAK:
            weak.setdefault((row.grade_condition_id, row.rater), []).append(
                slugs.get(row.gen_condition_id, row.gen_condition_id)
            )
    return [
        f"corrected: judge {slugs.get(judge, judge)} is too weak for {rater}'s labels "
        f"to gain much from it in {', '.join(cells)} (its corrected interval is "
        f"under {1 - WEAK**0.5:.0%} narrower than the labels' alone): check the "
        "rubric, or expect to need nearly as many labels as without a judge"
        for (judge, rater), cells in weak.items()
    ]
