"""An anytime-valid confidence sequence for the mean paired difference of two
conditions, and its decision.

The method is a betting confidence sequence of Waudby-Smith & Ramdas (2023), "Estimating
means of bounded random variables by betting", JRSS-B 86(1): for each candidate mean m,
a bettor stakes a predictable fraction lambda_t(m) of its capital on X_t - m; the
capital K_t(m) is a nonnegative martingale when m is the true mean, so by Ville's
inequality the set {m : K_t(m) < 1/alpha} misses the true mean at any time with
probability at most alpha. The bets are their aGRAPA strategy (the approximate
growth-rate-adaptive bet lambda = (mu - m) / (sigma^2 + (mu - m)^2) from the running
mean and variance, truncated to [-c/(1-m), c/m] with c = 1/2), which adapts to the
variance and the size of the difference. It needs only bounded scores, no distributional
assumption, and holds uniformly over time: one may look after every round and stop.

The item differences D = A - B lie in [-1, 1]; the sequence is computed for X = (D + 1)
/ 2 in [0, 1] on a grid of candidate means and mapped back; each look keeps the running
intersection of all earlier sets (still valid, never wider). Arrays in, small values
out, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TRUNCATION = 0.5
GRID = 1001
"""Candidate mean differences -1..1 in steps of 0.002 (odd, so 0 is on the grid)."""
DECISIONS = ("a_better", "b_better", "equivalent", "undecided")


@dataclass(frozen=True)
class Look:
    """The confidence sequence after `items` paired differences."""

    items: int
    low: float
    high: float
    mean: float
    decision: str


def _before(values: np.ndarray, prior: float) -> np.ndarray:
    """values[..., t-1] at position t: what was known before observation t."""
    first = np.full(values.shape[:-1] + (1,), prior)
    return np.concatenate([first, values[..., :-1]], axis=-1)


def log_capital(x: np.ndarray, means: np.ndarray) -> np.ndarray:
    """log K_t(m) for x in [0, 1] along the last axis; shape x.shape + means.shape.

    The running mean and variance are regularised (a prior point at 1/2 with variance
    1/4), and each bet uses only the observations before it (predictable), as the
    martingale needs.
    """
    m = np.asarray(means, dtype=float)
    t = np.arange(1, x.shape[-1] + 1)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    var = (0.25 + np.cumsum((x - mean) ** 2, axis=-1)) / (t + 1)
    gap = _before(mean, 0.5)[..., None] - m
    bet = gap / (_before(var, 0.25)[..., None] + gap**2)
    low = -TRUNCATION / np.maximum(1 - m, 1e-12)
    bet = np.clip(bet, low, TRUNCATION / np.maximum(m, 1e-12))
    return np.cumsum(np.log1p(bet * (x[..., None] - m)), axis=-2)


def _unit(differences: np.ndarray) -> np.ndarray:
    d = np.asarray(differences, dtype=float)
    if d.size and (np.nanmin(d) < -1 - 1e-9 or np.nanmax(d) > 1 + 1e-9):
        raise ValueError("paired differences must lie in [-1, 1] (scores in [0, 1])")
    return (np.clip(d, -1, 1) + 1) / 2


def sequence(differences: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, ...]:
    """(low, high) of the confidence sequence after each difference, in their order."""
    x = _unit(differences)
    if x.size == 0:
        return np.array([]), np.array([])
    grid = np.linspace(0, 1, GRID)
    kept = log_capital(x, grid) < math.log(1 / alpha)
    kept = np.logical_and.accumulate(kept, axis=0)
    any_kept = kept.any(axis=1)
    low = np.where(any_kept, grid[np.argmax(kept, axis=1)], np.nan)
    high = np.where(any_kept, grid[GRID - 1 - np.argmax(kept[:, ::-1], axis=1)], np.nan)
    return 2 * low - 1, 2 * high - 1


def decide(low: float, high: float, margin: float | None) -> str:
    """a_better / b_better when the sequence excludes 0; equivalent inside +-margin."""
    if low > 0:
        return "a_better"
    if high < 0:
        return "b_better"
    if margin is not None and -margin < low and high < margin:
        return "equivalent"
    return "undecided"


def look(
    differences: np.ndarray, alpha: float = 0.05, margin: float | None = None
) -> Look:
    """The sequence after all of `differences` (in run order) and its decision."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        return Look(0, -1.0, 1.0, math.nan, "undecided")
    low, high = sequence(d, alpha)
    return Look(
        len(d),
        float(low[-1]),
        float(high[-1]),
        float(d.mean()),
        decide(float(low[-1]), float(high[-1]), margin),
    )


def stopping_items(
    differences: np.ndarray, alpha: float, round_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """For many comparisons at once (rows), looking after every `round_size` items: the
    items each ran before the sequence excluded 0 (or all of them), and whether it did.

    Only the candidate mean 0 matters for that decision, so this needs no grid: it is
    what the false-positive and saving simulations use.
    """
    x = _unit(differences)
    capital = log_capital(x, np.array([0.5]))[..., 0]
    looks = np.arange(round_size - 1, x.shape[-1], round_size)
    if looks[-1] != x.shape[-1] - 1:
        looks = np.append(looks, x.shape[-1] - 1)
    # as `sequence`'s running intersection: 0 once excluded, at any item, stays excluded
    reached = np.maximum.accumulate(capital, axis=-1)[:, looks]
    rejected = reached >= math.log(1 / alpha)
    decided = rejected.any(axis=1)
    first = np.where(decided, looks[np.argmax(rejected, axis=1)] + 1, x.shape[-1])
    return first, decided
