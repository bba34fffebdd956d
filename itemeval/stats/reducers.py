"""Replications reduced to one score per item: mean, median, mode, max, min, majority,
pass@K and at_least:K."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .intervals import NAN, observed
from .scale_intervals import Bounds

REDUCERS = ("mean", "median", "mode", "max", "min", "majority", "pass@K", "at_least:K")


def parse_reducer(spec: str) -> tuple[str, int | None]:
    """("mean", None), ("pass_at", 3) for "pass@3", ("at_least", 2) for "at_least:2";
    ValueError otherwise."""
    if spec in ("mean", "median", "mode", "max", "min", "majority"):
        return spec, None
    for prefix, name in (("pass@", "pass_at"), ("at_least:", "at_least")):
        if (
            spec.startswith(prefix)
            and spec[len(prefix) :].isdigit()
            and int(spec[len(prefix) :]) >= 1
        ):
            return name, int(spec[len(prefix) :])
    raise ValueError(
        f"unknown reducer {spec!r}: use one of {', '.join(REDUCERS)} (K a "
        "whole number >= 1)"
    )


PASSING = ("pass_at", "at_least", "majority")
"""Reducers that count correct replications: their item scores are 0/1 shares."""


def correct(values: np.ndarray, top: float = 1.0) -> np.ndarray:
    """A replication counts as correct when its score is full credit: the top of its
    grade condition's scale (1 on a 0/1 scale; 3 of a 0-3 criteria sum)."""
    return values >= top


def is_passing(reducer: str) -> bool:
    """Whether the reducer's item scores are 0/1 (or a share), whatever the scale."""
    return parse_reducer(reducer)[0] in PASSING


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k, 1 - C(n-c, k)/C(n, k); NaN when fewer than k replications
    were graded."""
    if n < k:
        return NAN
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def reduce_item(
    values: Sequence[float] | np.ndarray, reducer: str, top: float = 1.0
) -> float:
    """One item's score from its graded replications (missing ones dropped); NaN when
    none was graded. `top`: full credit on the scores' scale (see `correct`)."""
    name, k = parse_reducer(reducer)
    x = observed(values)
    if len(x) == 0:
        return NAN
    if name == "pass_at":
        return pass_at_k(len(x), int(correct(x, top).sum()), int(k))
    if name == "at_least":
        return float(correct(x, top).sum() >= int(k))
    if name == "majority":
        return float(correct(x, top).mean() > 0.5)
    if name == "mode":
        levels, counts = np.unique(x, return_counts=True)
        # ties: the smallest of the most frequent
        return float(levels[np.argmax(counts)])
    return float(
        {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}[name](x)
    )


def item_scores(
    frame: pd.DataFrame,
    reducer: str,
    scales: dict[str, Bounds | None] | None = None,
) -> pd.DataFrame:
    """One score per (generate condition, grade condition, item): its graded
    replications reduced; a replication is correct at the top of its grade
    condition's scale (`scales`, grade_scales; 1 without)."""
    scored = frame[frame["status"] == "scored"]
    keys = ["gen_condition_id", "grade_condition_id", "item_id"]
    if scored.empty:
        return pd.DataFrame(columns=[*keys, "score"])
    if reducer == "mean":
        reduced = scored.groupby(keys, sort=False)["score"].mean()
    else:
        parts = []
        for grade_id, group in scored.groupby("grade_condition_id", sort=False):
            scale = (scales or {}).get(grade_id)
            top = scale[1] if scale else 1.0
            parts.append(
                group.groupby(keys, sort=False)["score"].agg(
                    lambda s, top=top: reduce_item(s.to_numpy(), reducer, top)
                )
            )
        reduced = pd.concat(parts)
    return reduced.reset_index()
