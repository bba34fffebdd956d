"""Agreement between two graders of the same solutions, and the calibration of a
probability scorer: pure functions over arrays, no I/O. NaN marks a missing score and
is dropped where a quantity is defined on observed values only (see `stats`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .intervals import NAN

# ---- agreement between two graders of the same solutions
# -------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    n: int
    exact: float
    spearman: float
    kappa_quadratic: float
    alpha_interval: float


def agreement(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray
) -> Agreement:
    """How two graders agree on the solutions both scored."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    a, b = a[both], b[both]
    n = len(a)
    if n == 0:
        return Agreement(0, NAN, NAN, NAN, NAN)
    spearman = (
        NAN
        if n < 2 or np.ptp(a) == 0 or np.ptp(b) == 0
        else float(np.corrcoef(average_ranks(a), average_ranks(b))[0, 1])
    )
    return Agreement(
        n,
        float((a == b).mean()),
        spearman,
        quadratic_kappa(np.rint(a), np.rint(b)),
        krippendorff_alpha_interval(a, b),
    )


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average (scipy's rankdata): Spearman's rho is
    Pearson's r of these."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    average = (starts + ends + 1) / 2  # the mean of ranks start+1 .. end
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(average, ends - starts)
    return ranks


def quadratic_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa with quadratic weights over the sorted labels either grader used
    (as scikit-learn)."""
    labels = np.unique(np.concatenate([a, b]))
    k = len(labels)
    if k < 2:
        return NAN
    # counted by bincount: np.add.at took 16 ms per pair on 200,000 solutions
    cell = np.searchsorted(labels, a) * k + np.searchsorted(labels, b)
    observed_counts = np.bincount(cell, minlength=k * k).reshape(k, k).astype(float)
    expected = (
        np.outer(observed_counts.sum(axis=1), observed_counts.sum(axis=0))
        / observed_counts.sum()
    )
    index = np.arange(k)
    weights = (index[:, None] - index[None, :]) ** 2
    return float(1 - (weights * observed_counts).sum() / (weights * expected).sum())


def krippendorff_alpha_interval(a: np.ndarray, b: np.ndarray) -> float:
    """Krippendorff's alpha, interval metric, for two coders who both coded every
    unit."""
    values = np.concatenate([a, b])
    total = len(values)
    if total < 2:
        return NAN
    # each unit's two ordered pairs, m_u - 1 = 1
    disagreement_observed = float(((a - b) ** 2).sum()) * 2 / total
    centred = values - values.mean()
    # sum over i != j of (v_i - v_j)^2
    all_pairs = 2 * total * float((centred**2).sum())
    disagreement_expected = all_pairs / (total * (total - 1))
    if disagreement_expected == 0:
        return NAN
    return 1 - disagreement_observed / disagreement_expected


def threshold_confusion(
    a: np.ndarray, b: np.ndarray, threshold: float, threshold_b: float | None = None
) -> dict[str, int]:
    """Counts of (a >= threshold, b >= threshold_b) on the solutions both scored
    (`threshold_b` defaults to `threshold`)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    cut_b = threshold if threshold_b is None else threshold_b
    pa, pb = a[both] >= threshold, b[both] >= cut_b
    return {
        "both_pass": int((pa & pb).sum()),
        "a_only": int((pa & ~pb).sum()),
        "b_only": int((~pa & pb).sum()),
        "both_fail": int((~pa & ~pb).sum()),
    }


# ---- calibration of probability scorers
# ------------------------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    n: int
    ece: float
    ece_equal_mass: float
    brier: float
    auc: float
    reliability: list[dict[str, float]]
    """Equal-width bins that hold predictions: mean predicted probability, observed
    rate, count."""


def calibration(
    probabilities: Sequence[float] | np.ndarray,
    outcomes: Sequence[float] | np.ndarray,
    bins: int = 10,
) -> Calibration:
    """ECE (equal-width and equal-mass bins), Brier score, ROC AUC and reliability
    points of P(positive)."""
    p, y = np.asarray(probabilities, dtype=float), np.asarray(outcomes, dtype=float)
    both = ~(np.isnan(p) | np.isnan(y))
    p, y = p[both], y[both]
    n = len(p)
    if n == 0:
        return Calibration(0, NAN, NAN, NAN, NAN, [])
    width = np.minimum((p * bins).astype(int), bins - 1)  # 1.0 falls in the last bin
    groups = [np.flatnonzero(width == b) for b in range(bins)]
    mass = np.array_split(np.argsort(p, kind="stable"), min(bins, n))
    reliability = [
        {
            "predicted": float(p[g].mean()),
            "observed": float(y[g].mean()),
            "count": int(len(g)),
        }
        for g in groups
        if len(g)
    ]
    return Calibration(
        n,
        _ece(p, y, groups),
        _ece(p, y, mass),
        float(((p - y) ** 2).mean()),
        roc_auc(p, y),
        reliability,
    )


def _ece(p: np.ndarray, y: np.ndarray, groups: list[np.ndarray]) -> float:
    return float(
        sum(len(g) * abs(y[g].mean() - p[g].mean()) for g in groups if len(g)) / len(p)
    )


def roc_auc(scores: np.ndarray, outcomes: np.ndarray) -> float:
    """Area under the ROC curve (the Mann-Whitney statistic, ties counted half); NaN
    with one class only."""
    positives = outcomes == 1
    n_pos, n_neg = int(positives.sum()), int((~positives).sum())
    if n_pos == 0 or n_neg == 0:
        return NAN
    ranks = average_ranks(scores)
    return float((ranks[positives].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
