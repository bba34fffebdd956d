"""The statistics behind `itemeval results`: intervals, reducers over replications and
paired comparisons (agreement between graders and calibration are in
`agreement_stats`). Pure functions over arrays, no I/O.

NaN marks a missing score (a parse failure, an error, an ungraded cell); every function
drops it where the quantity is defined on observed values only, and returns NaN where a
quantity is undefined (one item has no standard error; one class has no AUC) rather than
raising.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..lazy import lazy_import

# scipy.special, not scipy.stats: the same functions scipy.stats' t, norm and binom
# call, at a third of the import (results starts ~1 s sooner on a slow machine)
special = lazy_import("scipy.special")  # loaded at its first use

LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2_000
NAN = float("nan")


def one_blas_thread(function):
    """Run `function` with numpy's BLAS on one thread.

    The bootstraps are thousands of small matrix-vector products over a 32 MB weight
    matrix: OpenBLAS' second thread spins between them, which cost 5x the CPU of one
    thread (7.2 ms against 1.4 ms per product) and no wall time (issue 27). Each
    output element is summed by one thread either way, so the figures are the same.
    """

    @functools.wraps(function)
    def limited(*args, **kwargs):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return limited


@dataclass(frozen=True)
class Interval:
    """A mean with its standard error and confidence interval, over `n` units
    (items)."""

    n: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    method: str


def observed(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """The values as floats without the missing ones."""
    array = np.asarray(values, dtype=float)
    return array[~np.isnan(array)]


# ---- intervals over items
# --------------------------------------------------------------------------------------


def t_interval(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> Interval:
    """Mean, SE = sd/sqrt(n) and Student-t interval with n-1 degrees of freedom."""
    x = observed(values)
    n = len(x)
    if n == 0:
        return Interval(0, NAN, NAN, NAN, NAN, "t")
    mean = float(x.mean())
    if n == 1:
        return Interval(1, mean, NAN, NAN, NAN, "t")
    se = float(x.std(ddof=1) / math.sqrt(n))
    half = float(special.stdtrit(n - 1, 0.5 + level / 2)) * se
    return Interval(n, mean, se, mean - half, mean + half, "t")


def is_binary(values: np.ndarray) -> bool:
    return bool(np.isin(values, (0.0, 1.0)).all())


def wilson_interval(
    values: Sequence[float] | np.ndarray, level: float = LEVEL
) -> Interval:
    """Wilson score interval for the share of 1s among 0/1 values; SE is s/√n, as
    every cell's (README "Results")."""
    x = observed(values)
    n = len(x)
    if n == 0:
        return Interval(0, NAN, NAN, NAN, NAN, "wilson")
    if not is_binary(x):
        raise ValueError(
            "the Wilson interval needs 0/1 scores; use the t or bootstrap interval"
        )
    p = float(x.mean())
    z = float(special.ndtri(0.5 + level / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else NAN
    return Interval(n, p, se, centre - half, centre + half, "wilson")


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    level: float = LEVEL,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap over items (resampled with replacement); SE is the sd of the
    resampled means.

    The resamples of n items depend only on (n, resamples, seed), so cells of the same
    size share them (common random numbers) and each set is drawn once per process.
    """
    [interval] = bootstrap_intervals([values], level, resamples=resamples, seed=seed)
    return interval


def bootstrap_intervals(
    cells: Sequence[Sequence[float] | np.ndarray],
    level: float = LEVEL,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> list[Interval]:
    """`bootstrap_interval` of each cell. Cells of the same size share one draw and
    are resampled by one matrix product: a grid of 100 cells of 2,000 items read the
    32 MB of weights once instead of 100 times (0.3 s)."""
    observed_cells = [observed(values) for values in cells]
    by_size: dict[int, list[int]] = {}
    for k, x in enumerate(observed_cells):
        by_size.setdefault(len(x), []).append(k)
    intervals: dict[int, Interval] = {}
    quantiles = [0.5 - level / 2, 0.5 + level / 2]
    for n, members in by_size.items():
        if n == 0:
            for k in members:
                intervals[k] = Interval(0, NAN, NAN, NAN, NAN, "bootstrap")
            continue
        stacked = np.column_stack([observed_cells[k] for k in members])
        means = resample_weights(n, resamples, seed) @ stacked
        lows, highs = np.quantile(means, quantiles, axis=0)
        spread = means.std(axis=0, ddof=1) if n > 1 else np.full(len(members), NAN)
        for column, k in enumerate(members):
            intervals[k] = Interval(
                n,
                float(observed_cells[k].mean()),
                float(spread[column]),
                float(lows[column]),
                float(highs[column]),
                "bootstrap",
            )
    return [intervals[k] for k in range(len(cells))]


@functools.lru_cache(maxsize=8)
def resample_weights(n: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples × n): how often each item is drawn in each resample, divided by n."""
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offsets = (np.arange(resamples) * n)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=resamples * n).reshape(
        resamples, n
    )
    return counts / n


INTERVALS = {
    "t": t_interval,
    "wilson": wilson_interval,
    "bootstrap": bootstrap_interval,
}


# ---- reducing replications to one score per item
# ---------------------------------------------------------------

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
        return float(
            levels[np.argmax(counts)]
        )  # ties: the smallest of the most frequent
    return float(
        {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}[name](x)
    )


# ---- paired comparisons
# --------------------------------------------------------------------------------------


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
