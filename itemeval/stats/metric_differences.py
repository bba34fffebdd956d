"""metric(A) − metric(B) of two generate conditions on the items both have: the
figure of a difference, its bootstrap p-value, and Holm's adjustment over the pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .paired import holm


@dataclass
class Difference:
    """Two figures on the same items, as the figure of their difference."""

    first: Any
    second: Any

    @property
    def n(self) -> int:
        return min(self.first.n, self.second.n)

    @property
    def classes(self) -> tuple[str, ...]:
        return getattr(self.first, "classes", ())

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        return self.first.values(counts) - self.second.values(counts)


def bootstrap_p(draws: np.ndarray) -> float:
    """Two-sided p of "no difference" from the paired bootstrap's resampled
    differences: twice the smaller share of resamples on either side of 0, the
    smallest level at which the percentile interval leaves 0 out, so p < 0.05 where
    the 95% interval excludes 0. Counted with +1 (Davison & Hinkley 1997, §4.4), so
    2,000 resamples never claim p = 0. NaN when no resample defines the figure."""
    finite = draws[np.isfinite(draws)]
    if finite.size == 0:
        return float("nan")
    side = min(np.count_nonzero(finite <= 0), np.count_nonzero(finite >= 0))
    return float(min(1.0, 2 * (side + 1) / (finite.size + 1)))


def holm_per_metric(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`p_adjusted` on every difference row: Holm over the pairs of one grade
    condition, per metric (and class), as `--compare` adjusts the means' differences
    over the comparisons of each grade condition."""
    families: dict[tuple[str, str, Any], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["grade_condition_id"], row["metric"], row.get("class"))
        families.setdefault(key, []).append(row)
    for family in families.values():
        for row, p in zip(family, holm([row["p"] for row in family])):
            row["p_adjusted"] = p
    return rows
