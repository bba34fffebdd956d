"""Per-criterion figures of `results` and the export: grades' criteria unfolded to one
row per (grade, criterion), then cells, `--by criterion` and agreement per criterion."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..scorers.criteria import criteria_of
from ..stats import agreement as agreement_stats
from ..stats import intervals as stats
from ..stats.scale_intervals import Bounds, scales_by
from .facets import scale_label

KEY = ["gen_condition_id", "grade_condition_id", "item_id", "epoch"]


def criteria_long(
    frame: pd.DataFrame,
    *,
    keep: tuple[str, ...] = (),
    among: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per (grade, criterion) of the grades that kept criteria (only the rows
    `among` marks, when given): the grade's key, `criterion`, `value`, and the `keep`
    columns."""
    columns = [*KEY, *keep, "criterion", "value"]
    if frame.empty or "score_metadata" not in frame:
        return pd.DataFrame(columns=columns)
    meta = frame["score_metadata"]
    present = meta.notna().to_numpy(copy=True)  # most grades keep none: test those only
    if among is not None:
        present &= among
    has = np.zeros(len(frame), dtype=bool)
    has[present] = meta[present].str.contains('"criteria"', regex=False).to_numpy()
    rows = frame[has]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    unfolded = rows["score_metadata"].map(lambda m: list(criteria_of(m).items()))
    long = rows[[*KEY, *keep]].assign(pairs=unfolded.to_numpy()).explode("pairs")
    long = long.dropna(subset=["pairs"])
    long["criterion"] = long["pairs"].map(lambda p: p[0])
    long["value"] = long["pairs"].map(lambda p: float(p[1]))
    return long.drop(columns="pairs").reset_index(drop=True)[columns]


def scored_criteria(frame: pd.DataFrame) -> pd.DataFrame:
    """The criteria of the grades results counts (scored, current)."""
    # marked, not filtered first: a million-row copy for the few grades with criteria
    return criteria_long(frame, among=(frame["status"] == "scored").to_numpy())


Interval = Callable[[np.ndarray, Bounds | None], stats.Interval]
"""The interval of item values on a scale."""


def criterion_scales(long: pd.DataFrame) -> dict[tuple[str, str], Bounds | None]:
    """Each (grade condition, criterion)'s scale from every value it was given, as the
    cells' scale comes from every score (scale_intervals.grade_scales): a criterion
    scored 0-2 keeps 0-2 in a cell whose item means reach only 1.5."""
    return scales_by(long, ["grade_condition_id", "criterion"], "value")


def criteria_cells(long: pd.DataFrame, interval: Interval) -> list[dict[str, Any]]:
    """Per (cell, criterion): the mean over items of each item's mean value."""
    rows = []
    groups = ["gen_condition_id", "grade_condition_id", "criterion"]
    scales = criterion_scales(long)
    for (gen_id, grade_id, criterion), group in long.groupby(groups, sort=True):
        result = interval(
            group.groupby("item_id")["value"].mean().to_numpy(float),
            scales.get((grade_id, criterion)),
        )
        rows.append(
            {
                "gen_condition_id": gen_id,
                "grade_condition_id": grade_id,
                "criterion": criterion,
                **_figures(result),
            }
        )
    return rows


def criteria_marginals(long: pd.DataFrame, interval: Interval) -> list[dict[str, Any]]:
    """`--by criterion`: per grade condition and criterion, each item's value averaged
    over the generate conditions and replications, then the interval over items."""
    rows = []
    scales = criterion_scales(long)
    for (grade_id, criterion), group in long.groupby(
        ["grade_condition_id", "criterion"], sort=True
    ):
        per_item = group.groupby(["item_id", "gen_condition_id"])["value"].mean()
        result = interval(
            per_item.groupby("item_id").mean().to_numpy(float),
            scales.get((grade_id, criterion)),
        )
        rows.append(
            {
                "facet": "criterion",
                "level": criterion,
                "grade_condition_id": grade_id,
                **_figures(result),
                "scale": _label(scales.get((grade_id, criterion))),
            }
        )
    return rows


def _label(bounds: Any) -> str | None:
    return scale_label(bounds) if bounds else None


def _figures(result: stats.Interval) -> dict[str, Any]:
    return {
        "items": result.n,
        "mean": result.mean,
        "se": result.se,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
    }


def criteria_agreement(long: pd.DataFrame) -> list[dict[str, Any]]:
    """Agreement of every two grade conditions on each criterion both scored, over the
    same (solution, replication)s."""
    rows = []
    for criterion, group in long.groupby("criterion", sort=True):
        wide = group.pivot_table(
            index=["gen_condition_id", "item_id", "epoch"],
            columns="grade_condition_id",
            values="value",
        )
        for a, b in combinations(sorted(wide.columns), 2):
            result = agreement_stats.agreement(
                wide[a].to_numpy(float), wide[b].to_numpy(float)
            )
            if result.n:
                rows.append({"a": a, "b": b, "criterion": criterion, **asdict(result)})
    return rows
