"""Intervals of a mean over items: t, Wilson and the item bootstrap (reducers over
replications are in `reducers`, paired comparisons in `paired`, agreement between
graders and calibration in `agreement`). Pure functions over arrays, no I/O.

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
