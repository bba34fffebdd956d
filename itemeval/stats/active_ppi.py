"""Prediction-powered inference of a cell's mean from labels drawn actively: each
label drawn with a known probability, and the mean weighted by its inverse.

The design (`answer_probabilities`) draws the next answer to label, with replacement,
from every answer of the queue: an answer of stratum h (its cell and the judge's
verdict on it) with probability proportional to sqrt(m_h) / N_c, where m_h is the
mean squared human - judge difference seen in h so far, mixed with a uniform share so
every answer keeps a probability of at least share / N. This is the allocation that
minimises the summed variance of the cells' estimates (Zrnic & Candès 2024, "Active
statistical inference", ICML, eq. 6: the sampling rule proportional to the model's
expected error; Fisch et al. 2024, "Stratified prediction-powered inference", for
strata by the judge's verdict).

The estimate (`ipw_ppi_mean`) is PPI++ with inverse-probability weights (Angelopoulos,
Duchi & Zrnic 2023, "PPI++: Efficient prediction-powered inference"; Zrnic & Candès
2024 §3; the weights of sampling with replacement, Hansen & Hurwitz 1943): over T
draws, the t-th of answer i_t drawn with probability p_t,

    theta = lambda mean_N(f) + (1/T) sum_t 1[i_t in c] (Y - lambda f) / (N_c p_t)

each draw's term unbiased for the cell's mean of Y - lambda f given the draws before
it (a martingale, so p_t may depend on the labels before it). The labels are drawn
from the very answers the judge's mean is over, so that mean and the draws' mean
together stand for the N answers' Y: the variance is

    se^2 = Var(Y) / N + var_T(term) / T,

Var(Y) = lambda^2 var(f) + 2 lambda Cov(f, r) + Var(r) (r = Y - lambda f, its moments
weighted by the draws). lambda is the power tuning that minimises it, Cov(a, b) /
Var(b) of a = Y w and b = f w (PPI++ §2 with the judge's part known), kept in [0, 1].
The interval takes Student's t with one fewer degrees of freedom than the cell's
draws: where the judge is rarely wrong the draws' variance rests on a few errors.
Pure numpy, vectorised over leading axes (a simulation of many studies is one
call)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..lazy import lazy_import

sps = lazy_import("scipy.stats")  # loaded at its first use

LEVEL = 0.95
SHARE = 0.2
"""The uniform share of every draw: the least probability an answer keeps is SHARE/N."""
PRIOR_WEIGHT = 2.0
"""Pseudo-labels of the pooled m behind each stratum's own, so a stratum whose first
two labels agreed with the judge is not starved (its m would read 0)."""


@dataclass(frozen=True)
class ActiveCorrected:
    """An inverse-probability-weighted PPI++ mean with its interval (arrays when
    given stacked studies); `uniform_labels`: the labels a uniform queue over the same
    answers would need for this interval's width (`labels_needed_uniform`)."""

    mean: float | np.ndarray
    se: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    power: float | np.ndarray
    """lambda, the weight of the judge's mean (1: plain PPI; 0: labels alone)."""
    uniform_labels: float | np.ndarray
    """The labels a uniform queue over the same `pool` of answers would need for an
    interval this narrow here, with the same estimator and lambda."""
    draws: int
    n_judged: int


def answer_probabilities(
    size: np.ndarray,
    cell_size: np.ndarray,
    moment: np.ndarray,
    share: float = SHARE,
) -> np.ndarray:
    """The probability of drawing each single answer of each stratum (last axis):
    `size` answers in the stratum, `cell_size` in its cell, `moment` the stratum's
    m_h (`stratum_moments`). Sums, over the answers, to 1: sum(size * p) == 1."""
    size = np.asarray(size, dtype=float)
    weight = np.sqrt(np.maximum(moment, 0.0)) / np.asarray(cell_size, dtype=float)
    weight = np.where(size > 0, weight, 0.0)
    total = (size * weight).sum(axis=-1, keepdims=True)
    everyone = size.sum(axis=-1, keepdims=True)
    uniform = np.where(size > 0, 1.0 / everyone, 0.0)
    # all m_h 0 (every label so far agreed): nothing to prefer, so uniform
    active = np.where(total > 0, weight / np.where(total > 0, total, 1.0), uniform)
    return share * uniform + (1.0 - share) * active


def stratum_moments(
    squares: np.ndarray, counts: np.ndarray, prior: float
) -> np.ndarray:
    """m_h: each stratum's mean squared human - judge difference over its labels
    (`squares` summed, `counts` labels; last axis the strata), shrunk toward the
    pooled mean by PRIOR_WEIGHT pseudo-labels; the pool itself shrunk toward `prior`
    (a guess on the score's scale, (range/2)^2) by one."""
    squares = np.asarray(squares, dtype=float)
    counts = np.asarray(counts, dtype=float)
    pooled = (squares.sum(axis=-1, keepdims=True) + prior) / (
        counts.sum(axis=-1, keepdims=True) + 1.0
    )
    return (squares + PRIOR_WEIGHT * pooled) / (counts + PRIOR_WEIGHT)


@dataclass(frozen=True)
class Drawn:
    """Per draw (last axis, T of them, every cell's): `in_cell` whether it drew an
    answer of the cell estimated, `human` and `judge` its scores (anything where not
    in the cell), `weight` = 1 / (N_c p_t)."""

    in_cell: np.ndarray
    human: np.ndarray
    judge: np.ndarray
    weight: np.ndarray


def ipw_ppi_mean(
    judged: np.ndarray,
    drawn: Drawn,
    *,
    power: float | None = None,
    pool: int | None = None,
    level: float = LEVEL,
    bounds: tuple[float, float] | None = None,
) -> ActiveCorrected:
    """The corrected mean of one cell. `judged`: the judge's scores of the cell's N
    answers (last axis); `drawn`: the draws. `power`: lambda, tuned when None.
    `pool`: the answers the draws were made from, for `uniform_labels`. NaN when
    T < 2 or N < 2."""
    judged = np.asarray(judged, dtype=float)
    inside = np.asarray(drawn.in_cell, dtype=bool)
    big_n, t = judged.shape[-1], inside.shape[-1]
    if t < 2 or big_n < 2:
        nan = float("nan")
        return ActiveCorrected(nan, nan, nan, nan, nan, nan, t, big_n)
    w = np.where(inside, np.asarray(drawn.weight, dtype=float), 0.0)
    a = np.where(inside, np.asarray(drawn.human, dtype=float), 0.0) * w
    b = np.where(inside, np.asarray(drawn.judge, dtype=float), 0.0) * w
    tuned = _power(a, b) if power is None else np.full(a.shape[:-1], float(power))
    term = a - tuned[..., None] * b
    mean = tuned * judged.mean(axis=-1) + term.mean(axis=-1)
    spread = _human_variance(judged, a, b, w, tuned)
    se = np.sqrt(spread / big_n + term.var(axis=-1, ddof=1) / t)
    room = se**2 - spread / big_n
    uniform = _uniform_labels(a, b, w, tuned, room=room, cell=big_n, pool=pool)
    df = np.maximum(inside.sum(axis=-1) - 1, 1)  # the cell's draws, less one
    quantile = sps.t.ppf(0.5 + level / 2, df)
    low, high = mean - quantile * se, mean + quantile * se
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return ActiveCorrected(
        *(_scalar(v) for v in (mean, se, low, high, tuned, uniform)), t, big_n
    )


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """lambda minimising Var(a - lambda b): Cov(a, b) / Var(b), in [0, 1]; 1 (plain
    PPI) where Var(b) is 0."""
    da = a - a.mean(axis=-1, keepdims=True)
    db = b - b.mean(axis=-1, keepdims=True)
    cov, var = (da * db).sum(axis=-1), (db**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(var > 0, cov / np.where(var > 0, var, 1.0), 1.0)
    return np.clip(ratio, 0.0, 1.0)


def _human_variance(
    judged: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray, power: np.ndarray
) -> np.ndarray:
    """Var(Y) over the cell's answers, which is what the judge's mean of the same
    answers leaves uncertain: lambda^2 var(f) + 2 lambda Cov(f, r) + Var(r), r = Y -
    lambda f, the two moments of r weighted by the draws (Hansen & Hurwitz 1943)."""
    lam = power[..., None]
    f_bar = judged.mean(axis=-1)
    drawn_f = np.where(w > 0, b / np.where(w > 0, w, 1.0), 0.0)
    r = a - lam * b  # r_i * w_t
    first = r.mean(axis=-1)
    second = (r * (a / np.where(w > 0, w, 1.0) - lam * drawn_f)).mean(axis=-1)
    cross = (r * drawn_f).mean(axis=-1) - f_bar * first
    var_r = np.maximum(second - first**2, 0.0)
    total = power**2 * judged.var(axis=-1, ddof=1) + 2 * power * cross + var_r
    return np.maximum(total, 0.0)


def _uniform_labels(
    a: np.ndarray, b: np.ndarray, w: np.ndarray, power: np.ndarray, **given: Any
) -> np.ndarray:
    """The labels the same queue drawing uniformly (share 1) over `pool` answers
    takes before this cell's interval is as narrow: it needs S / room draws in the
    cell (S the cell's variance of r = Y - lambda f, its moments weighted by the
    draws, Hansen & Hurwitz 1943), pool / N_c times as many in all, and d draws
    over the pool label pool (1 - (1 - 1/pool)^d) distinct answers (a re-draw is
    free). NaN without a pool; 0 where no error was drawn in the cell."""
    room, cell, pool = given["room"], given["cell"], given["pool"]
    if not pool:
        return np.full(np.shape(room), np.nan)
    r = a - power[..., None] * b  # r_i * w_t
    plain = np.where(w > 0, r / np.where(w > 0, w, 1.0), 0.0)
    spread = np.maximum((r * plain).mean(axis=-1) - r.mean(axis=-1) ** 2, 0.0)
    # no error drawn (S 0): any labels reach it
    with np.errstate(divide="ignore", invalid="ignore"):
        draws = np.where(spread > 0, spread / np.where(room > 0, room, 0.0), 0.0)
    return pool * -np.expm1(draws * pool / cell * np.log1p(-1.0 / pool))


def _scalar(value: np.ndarray) -> float | np.ndarray:
    return float(value) if np.ndim(value) == 0 else value
