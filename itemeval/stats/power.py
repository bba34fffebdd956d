"""Power of a paired comparison of two conditions, from the variance components of their
item scores.

Arrays in, small frozen values out, no I/O. The model behind every figure: one
condition's score of item i on replication r is `mu + u_i + e_ir`, with `u_i` the item's
own level (variance `between`) and `e_ir` the replication noise (variance `within`). An
item's mean over R replications then has variance `between + within / R`, and the paired
difference of two conditions on one item has variance `between_a + between_b - 2 cov +
(within_a + within_b) / R`, `cov` being the covariance of the two conditions' item
levels (replication noise is independent across conditions).

Two closed forms (so no simulation is needed for either design):
- **paired t** on the item means: the noncentral-t power statsmodels' `TTestPower`
  computes.
- **McNemar** (one replication, 0/1 scores): Connor (1987), "Sample size for testing
  differences in proportions for the paired-sample design", Biometrics 43(1): power of
  the asymptotic McNemar test = Phi((|D| sqrt(n) - z sqrt(psi)) / sqrt(psi - D^2)), psi
  the share of discordant pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..lazy import lazy_import

sps = lazy_import("scipy.stats")  # loaded at its first use

MAX_ITEMS = 10_000_000
"""The search for a number of items stops here: past it a design is out of reach."""
DEFAULT_REPLICATIONS = (1, 2, 3, 5, 10)


@dataclass(frozen=True)
class Components:
    """One condition's item scores split into between- and within-item variance."""

    items: int
    mean: float
    between: float
    within: float
    replications: float
    """The mean number of replications per item the components were estimated from."""


@dataclass(frozen=True)
class PairedDesign:
    """What the power of comparing conditions A and B depends on."""

    a: Components
    b: Components
    covariance: float
    """Covariance of the two conditions' item levels (the between-item parts)."""
    binary: bool
    """Every score is 0 or 1: with one replication the comparison is McNemar's."""
    discordant: float
    """Share of (item, replication) pairs where A and B disagree; NaN unless binary."""
    items: int
    """Items both conditions have scores for."""

    @property
    def correlation(self) -> float:
        scale = math.sqrt(self.a.between * self.b.between)
        return float(np.clip(self.covariance / scale, -1, 1)) if scale > 0 else math.nan

    def difference_variance(self, replications: int) -> float:
        """Variance of one item's difference of means over `replications` each."""
        between = self.a.between + self.b.between - 2 * self.covariance
        return max(between, 0.0) + (self.a.within + self.b.within) / replications


@dataclass(frozen=True)
class Option:
    """One way to reach the power: this many items, each run this many times."""

    items: int
    replications: int
    power: float
    method: str
    """`paired_t` or `mcnemar`: the closed form the power comes from."""
    usd: float | None
    """Projected spend of both conditions' cells (generate, grade); None: unpriced."""
    feasible: bool
    """The study has that many items."""


def components(scores: np.ndarray) -> Components:
    """One-way random-effects variance components by the method of moments (ANOVA
    estimator).

    `scores` is items x replications with NaN for a missing replication; items with no
    score are dropped. `within` pools each item's replication variance (ddof 1);
    `between` is the variance of the item means less the share of `within` those means
    still carry (floored at 0).
    """
    scores = np.asarray(scores, dtype=float)
    scores = scores[~np.isnan(scores).all(axis=1)]
    counts = (~np.isnan(scores)).sum(axis=1)
    means = np.nanmean(scores, axis=1) if len(scores) else np.array([])
    if len(means) == 0:
        return Components(0, math.nan, math.nan, math.nan, math.nan)
    freedom = int((counts - 1).sum())
    squares = np.nansum((scores - means[:, None]) ** 2)
    within = float(squares / freedom) if freedom > 0 else 0.0
    spread = float(means.var(ddof=1)) if len(means) > 1 else 0.0
    between = max(spread - within * float(np.mean(1 / counts)), 0.0)
    return Components(
        len(means), float(means.mean()), between, within, float(counts.mean())
    )


def paired_design(a: np.ndarray, b: np.ndarray) -> PairedDesign:
    """The design of comparing A and B from their items x replications scores.

    Row i of `a` and of `b` is the same item; NaN marks a missing score.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a).all(axis=1) | np.isnan(b).all(axis=1))
    a, b = a[both], b[both]
    mean_a, mean_b = np.nanmean(a, axis=1), np.nanmean(b, axis=1)
    covariance = float(np.cov(mean_a, mean_b)[0, 1]) if len(mean_a) > 1 else 0.0
    observed = np.concatenate([a[~np.isnan(a)], b[~np.isnan(b)]])
    binary = bool(len(observed)) and bool(np.isin(observed, (0.0, 1.0)).all())
    width = min(a.shape[1], b.shape[1])
    pairs = ~(np.isnan(a[:, :width]) | np.isnan(b[:, :width]))
    discordant = (
        float((a[:, :width] != b[:, :width])[pairs].mean())
        if binary and pairs.any()
        else math.nan
    )
    return PairedDesign(
        components(a), components(b), covariance, binary, discordant, int(both.sum())
    )


def paired_t_power(effect: float, items: int, alpha: float = 0.05) -> float:
    """Two-sided paired t-test power at standardised effect `effect` (as TTestPower)."""
    if items < 2:
        return math.nan
    freedom = items - 1
    critical = sps.t.isf(alpha / 2, freedom)
    shift = effect * math.sqrt(items)
    # scipy's far tail of the noncentral t can come back NaN where it is ~0
    upper = float(np.nan_to_num(sps.nct.sf(critical, freedom, shift)))
    lower = float(np.nan_to_num(sps.nct.cdf(-critical, freedom, shift)))
    return upper + lower


def mcnemar_power(
    difference: float, discordant: float, items: int, alpha: float = 0.05
) -> float:
    """Power of the two-sided asymptotic McNemar test (Connor 1987).

    `discordant` is the share of items where the two disagree under the alternative; it
    can be no smaller than |difference|, so a smaller one is raised to it.
    """
    if items < 1:
        return math.nan
    delta = abs(difference)
    psi = max(discordant, delta)
    z = sps.norm.isf(alpha / 2)
    spread = math.sqrt(max(psi - delta * delta, 1e-12))
    return float(sps.norm.cdf((delta * math.sqrt(items) - z * math.sqrt(psi)) / spread))


def items_for_power(power: Callable[[int], float], target: float) -> int | None:
    """The fewest items (>= 2) whose power reaches `target`; None past MAX_ITEMS.

    Power grows with items in both closed forms, so a doubling search then bisection
    finds it.
    """
    low, high = 1, 2
    while not power(high) >= target:
        low, high = high, high * 2
        if high > MAX_ITEMS:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if power(middle) >= target else (middle, high)
    return high


def option_power(
    design: PairedDesign, detect: float, items: int, replications: int, alpha: float
) -> tuple[float, str]:
    """(power, method) of `items` x `replications` to detect a difference `detect`."""
    if design.binary and replications == 1:
        return mcnemar_power(detect, design.discordant, items, alpha), "mcnemar"
    sd = math.sqrt(design.difference_variance(replications))
    effect = abs(detect) / sd if sd > 0 else math.inf
    return paired_t_power(effect, items, alpha), "paired_t"


@dataclass(frozen=True)
class Supply:
    """What an option is priced and bounded by: `usd_per_cell` the projected cost of
    one (item, replication) of both conditions, generate and grade; `available` the
    study's items (more is not feasible without more data)."""

    usd_per_cell: float | None = None
    available: int | None = None


def options(
    design: PairedDesign,
    detect: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    replications: tuple[int, ...] = DEFAULT_REPLICATIONS,
    supply: Supply = Supply(),
) -> list[Option]:
    """For each number of replications, the fewest items that reach `power`, with its
    spend."""
    usd_per_cell, available = supply.usd_per_cell, supply.available
    found = []
    for r in replications:
        n = items_for_power(
            lambda k: option_power(design, detect, k, r, alpha)[0], power
        )
        if n is None:
            continue
        reached, method = option_power(design, detect, n, r, alpha)
        usd = None if usd_per_cell is None else n * r * usd_per_cell
        feasible = available is None or n <= available
        found.append(Option(n, r, reached, method, usd, feasible))
    return found


def recommended(found: list[Option]) -> Option | None:
    """The cheapest feasible option: least spend, else fewest cells, then fewest
    items."""
    feasible = [o for o in found if o.feasible] or found
    if not feasible:
        return None
    return min(
        feasible,
        key=lambda o: (
            o.usd if o.usd is not None else math.inf,
            o.items * o.replications,
            o.items,
        ),
    )
