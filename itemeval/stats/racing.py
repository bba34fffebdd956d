"""Which conditions of a race can no longer be in the top K: one anytime-valid
confidence sequence per pair of conditions, the error split over the pairs.

Every pair (i, j) carries the empirical-Bernstein confidence sequence of
`stats.bernstein` on its paired item differences s_i - s_j, at alpha / P for the P =
k(k - 1)/2 pairs (Bonferroni), so with probability at least 1 - alpha every sequence
holds its pair's mean difference at every look at once, whatever the looks and
whenever a pair stops being observed. Condition j leaves when at least K others are
shown better than it (a lower bound of s_i - s_j above 0). On that event each one that
leaves has K conditions truly better than it, so it is in no top K; and the K that
remain are a top K (every one at least as good as every one that left). This is
racing as in Maron & Moore (1994), "Hoeffding races", NIPS 6, with the Hoeffding bound
replaced by the time-uniform sequence, so looking after every round costs nothing
(Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Ann. Statist. 49(2)). Means that tie are never separated: a
race among equals runs to its last item without a decision, which is right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from . import bernstein


@dataclass(frozen=True)
class PairBound:
    """The sequence of s_a - s_b after `items` paired items (a, b: column indices)."""

    a: int
    b: int
    items: int
    mean: float
    low: float
    high: float


def pair_alpha(alpha: float, conditions: int) -> float:
    """alpha over the k(k - 1)/2 pairs a race of `conditions` compares."""
    return alpha / max(math.comb(conditions, 2), 1)


def pair_bounds(scores: np.ndarray, alpha: float) -> list[PairBound]:
    """Each pair's sequence now: `scores` is items (in run order) x conditions in
    [0, 1], NaN where a condition has no score; a pair uses the items both have."""
    level = pair_alpha(alpha, scores.shape[1])
    found = []
    for a, b in combinations(range(scores.shape[1]), 2):
        both = np.isfinite(scores[:, a]) & np.isfinite(scores[:, b])
        d = scores[both, a] - scores[both, b]
        if d.size == 0:
            found.append(PairBound(a, b, 0, math.nan, -1.0, 1.0))
            continue
        low, high = bernstein.paired_sequence(d, level)
        found.append(
            PairBound(
                a, b, int(d.size), float(d.mean()), float(low[-1]), float(high[-1])
            )
        )
    return found


def lower_matrix(bounds: list[PairBound], conditions: int) -> np.ndarray:
    """L[i, j]: the lower bound of s_i - s_j (-1 on the diagonal)."""
    lower = np.full((conditions, conditions), -1.0)
    for bound in bounds:
        lower[bound.a, bound.b] = bound.low
        lower[bound.b, bound.a] = -bound.high
    return lower


def out_of_top(lower: np.ndarray, alive: np.ndarray, top: int) -> np.ndarray:
    """Which of the `alive` conditions leave now: those that at least `top` others
    are shown better than. Over any leading axes (races at once, in simulation).

    `lower` is (..., k, k) as `lower_matrix`; `alive` (..., k) booleans. If leaving
    would cut the field below `top` (only possible when a sequence has missed, the
    alpha event), nobody leaves: the race goes on rather than name fewer than K.
    """
    beaten_by = (lower > 0).sum(axis=-2)
    out = alive & (beaten_by >= top)
    left = alive.sum(axis=-1) - out.sum(axis=-1)
    return out & (left >= top)[..., None]


def settled(lower: np.ndarray) -> np.ndarray:
    """For a full ranking (`--top all`): the conditions whose place is known, every
    other one shown better or worse than it. Over any leading axes, as `out_of_top`.

    On the event that every sequence holds, each such pair is in its true order, so a
    settled condition needs no more items: its rank is 1 + the number shown better.
    """
    shown = (lower > 0) | (np.swapaxes(lower, -1, -2) > 0)
    k = lower.shape[-1]
    return (shown | np.eye(k, dtype=bool)).all(axis=-1)


def rank(lower: np.ndarray, j: int) -> int:
    """1 + the number of conditions shown better than condition j."""
    return 1 + int((lower[:, j] > 0).sum())
