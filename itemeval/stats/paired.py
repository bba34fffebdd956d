"""Paired comparisons of two conditions over the items both have: the mean difference
with its interval, McNemar's exact test or the paired t-test, and Holm's adjustment
across pairs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..lazy import lazy_import
from .intervals import LEVEL, NAN, is_binary, t_interval

# scipy.special, not scipy.stats (see intervals)
special = lazy_import("scipy.special")


@dataclass(frozen=True)
class Comparison:
    n: int
    diff: float
    se: float
    ci_low: float
    ci_high: float
    correlation: float
    test: str
    p: float


def paired(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    level: float = LEVEL,
) -> Comparison:
    """A - B on the items both have: mean difference, paired SE and t interval,
    Pearson correlation of item scores, and a p-value: exact McNemar for 0/1 scores,
    the paired t-test otherwise."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    a, b = a[both], b[both]
    interval = t_interval(a - b, level)
    correlation = _pearson(a, b)
    if len(a) == 0:
        return Comparison(0, NAN, NAN, NAN, NAN, NAN, "none", NAN)
    if is_binary(a) and is_binary(b):
        return Comparison(
            interval.n,
            interval.mean,
            interval.se,
            interval.ci_low,
            interval.ci_high,
            correlation,
            "mcnemar_exact",
            mcnemar_exact(a, b),
        )
    p = _paired_t_p(a - b) if len(a) > 1 else NAN
    return Comparison(
        interval.n,
        interval.mean,
        interval.se,
        interval.ci_low,
        interval.ci_high,
        correlation,
        "paired_t",
        p,
    )


def within_range(result: Comparison, scores: np.ndarray) -> Comparison:
    """`result` with its interval cut to ± the range of `scores` (every score of the
    grader): a difference of scores lies there, and a t interval on a few items (2
    items: t with 1 df) ran far past it (-4.64 to +4.89 for 0/1 scores)."""
    finite = scores[np.isfinite(scores)]
    if not finite.size:
        return result
    width = float(finite.max() - finite.min())
    low, high = result.ci_low, result.ci_high
    return replace(
        result,
        ci_low=max(low, -width) if np.isfinite(low) else low,
        ci_high=min(high, width) if np.isfinite(high) else high,
    )


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (1.0 when there are
    none)."""
    only_a = int(((a == 1) & (b == 0)).sum())
    only_b = int(((a == 0) & (b == 1)).sum())
    if only_a + only_b == 0:
        return 1.0
    return float(min(1.0, 2 * special.bdtr(min(only_a, only_b), only_a + only_b, 0.5)))


def paired_p_values(
    columns: np.ndarray, pairs: Sequence[tuple[int, int]]
) -> np.ndarray:
    """The p-value `paired` gives each pair of `columns` (items × conditions, NaN
    where a condition lacks an item), without its interval and correlation: the
    differences per pair in numpy, then every pair's exact McNemar or paired t
    p-value in one scipy call, so a family of hundreds of pairs costs milliseconds.
    """
    columns = np.asarray(columns, dtype=float)
    out = np.full(len(pairs), NAN)
    binary, t, df, only = [], [], [], []
    for index, (i, j) in enumerate(pairs):
        a, b = _both(columns, i, j)
        if is_binary(a) and is_binary(b) and len(a):
            binary.append(index)
            only.append((int((a > b).sum()), int((b > a).sum())))
        elif len(a) > 1:
            t.append((index, _t(a - b)))
            df.append(len(a) - 1)
    if binary:
        counts = np.array(only)
        low, total = counts.min(axis=1), counts.sum(axis=1)
        p = np.minimum(1.0, 2 * special.bdtr(low, np.maximum(total, 1), 0.5))
        out[binary] = np.where(total == 0, 1.0, p)
    if t:
        index, value = zip(*t)
        out[list(index)] = 2 * special.stdtr(df, -np.abs(value))
    return out


def paired_many(
    columns: np.ndarray, pairs: Sequence[tuple[int, int]], level: float = LEVEL
) -> list[Comparison]:
    """`paired(columns[:, i], columns[:, j])` for every pair, its quantiles and
    p-values taken in one scipy call each (a report's every pair of 20 conditions
    under 5 graders is 950 comparisons)."""
    columns = np.asarray(columns, dtype=float)
    p = paired_p_values(columns, pairs)
    parts = []
    for i, j in pairs:
        a, b = _both(columns, i, j)
        d = a - b
        n = len(d)
        se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else NAN
        test = (
            "none"
            if n == 0
            else ("mcnemar_exact" if is_binary(a) and is_binary(b) else "paired_t")
        )
        parts.append((n, float(d.mean()) if n else NAN, se, _pearson(a, b), test))
    dfs = np.array([max(n - 1, 1) for n, *_ in parts], dtype=float)
    quantiles = special.stdtrit(dfs, 0.5 + level / 2) if parts else []
    return [
        Comparison(
            n,
            diff,
            se,
            diff - q * se if n > 1 else NAN,
            diff + q * se if n > 1 else NAN,
            correlation,
            test,
            float(p_value) if n else NAN,
        )
        for (n, diff, se, correlation, test), q, p_value in zip(parts, quantiles, p)
    ]


def _both(columns: np.ndarray, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns i and j on the items both have."""
    a, b = columns[:, i], columns[:, j]
    both = ~(np.isnan(a) | np.isnan(b))
    return a[both], b[both]


def _paired_t_p(differences: np.ndarray) -> float:
    """The two-sided p of the paired t-test (scipy's ttest_rel) on the differences."""
    t = _t(differences)
    return float(2 * special.stdtr(len(differences) - 1, -abs(t))) if t == t else NAN


def _t(differences: np.ndarray) -> float:
    """The paired t statistic of the differences (at least two)."""
    sd = differences.std(ddof=1)
    if not sd:
        return _flat(differences)
    return float(differences.mean() / (sd / math.sqrt(len(differences))))


def _flat(differences: np.ndarray) -> float:
    """t of differences that do not vary: infinite (p 0) unless they are all 0 (no
    t, p undefined), as scipy's ttest_rel has it."""
    mean = differences.mean()
    return NAN if mean == 0 else math.copysign(math.inf, mean)


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return NAN
    return float(np.corrcoef(a, b)[0, 1])


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order; missing p-values stay
    missing and do not count."""
    p = np.asarray(pvalues, dtype=float)
    present = np.flatnonzero(~np.isnan(p))
    adjusted = np.full(len(p), NAN)
    m = len(present)
    order = present[np.argsort(p[present], kind="stable")]
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()
