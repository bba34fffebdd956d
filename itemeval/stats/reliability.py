"""How a judge agrees with itself across re-draws of the same answer: ICC(2,1) of the
scores, Cohen's or Fleiss' kappa of the verdicts, the share of verdicts that flip, and
how it agrees with people, each with an item-bootstrap interval.

The point figures are closed forms over a matrix of answers (rows, the targets) by
draws (columns, the raters); the intervals resample items, every answer of an item
together (an item's answers from several generate conditions share its difficulty).
A resample is a row of weights (how often each item is drawn), so every figure is a
weighted sum and 2,000 resamples are a few matrix products (`stats.resample`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import NAN
from .resample import RESAMPLES, percentile_interval, resample_counts


def icc_2_1(scores: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """ICC(2,1): two-way random effects, absolute agreement, one rater.

    (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n) over an (n answers × k
    draws) matrix, from the two-way ANOVA without replication (Shrout & Fleiss 1979,
    "Intraclass correlations: uses in assessing rater reliability", case 2; McGraw &
    Wong 1996, ICC(A,1)); pingouin's `ICC(A,1)` (`ICC2` before 0.7). `weights`
    (resamples × n): how often each row is drawn; one figure per resample (one
    figure when None)."""
    x = np.asarray(scores, dtype=float)
    n, k = x.shape
    w = np.ones((1, n)) if weights is None else np.atleast_2d(weights)
    total = w.sum(axis=1)
    grand = w @ x.sum(axis=1) / (k * total)
    correction = k * total * grand**2
    ss_total = w @ (x**2).sum(axis=1) - correction
    ss_rows = w @ (x.sum(axis=1) ** 2) / k - correction
    ss_cols = ((w @ x) ** 2).sum(axis=1) / total - correction
    ss_error = ss_total - ss_rows - ss_cols
    ms_rows = ss_rows / (n - 1)
    ms_cols = ss_cols / (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        icc = (ms_rows - ms_error) / (
            ms_rows + (k - 1) * ms_error + k * (ms_cols - ms_error) / total
        )
    return icc if weights is not None else icc[:1]


def cohen_kappa(
    a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Cohen's kappa, (p_o - p_e) / (1 - p_e), of two raters' labels (Cohen 1960);
    scikit-learn's `cohen_kappa_score`. `weights` as in `icc_2_1`."""
    a, b = np.asarray(a), np.asarray(b)
    w = np.ones((1, len(a))) if weights is None else np.atleast_2d(weights)
    total = w.sum(axis=1)
    observed = w @ (a == b).astype(float) / total
    expected = np.zeros_like(observed)
    for label in np.unique(np.concatenate([a, b])):
        expected += (w @ (a == label)) * (w @ (b == label)) / total**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return (observed - expected) / (1 - expected)


def fleiss_kappa(labels: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Fleiss' kappa of an (n answers × k draws) matrix of labels (Fleiss 1971,
    "Measuring nominal scale agreement among many raters"); statsmodels'
    `fleiss_kappa` of the answers' category counts. `weights` as in `icc_2_1`."""
    labels = np.asarray(labels)
    n, k = labels.shape
    counts = np.stack(
        [(labels == c).sum(axis=1) for c in np.unique(labels)], axis=1
    ).astype(float)
    w = np.ones((1, n)) if weights is None else np.atleast_2d(weights)
    total = w.sum(axis=1)
    agreement = ((counts**2).sum(axis=1) - k) / (k * (k - 1))
    observed = w @ agreement / total
    shares = (w @ counts) / (total[:, None] * k)
    expected = (shares**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (observed - expected) / (1 - expected)


def verdict_kappa(verdicts: np.ndarray, weights: np.ndarray | None = None):
    """Cohen's kappa for two draws, Fleiss' for more: the test-retest of verdicts."""
    if verdicts.shape[1] == 2:
        return cohen_kappa(verdicts[:, 0], verdicts[:, 1], weights)
    return fleiss_kappa(verdicts, weights)


def flip_rate(verdicts: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The share of answers whose verdict is not the same in every draw."""
    flipped = (verdicts != verdicts[:, :1]).any(axis=1).astype(float)
    w = np.ones((1, len(flipped))) if weights is None else np.atleast_2d(weights)
    return w @ flipped / w.sum(axis=1)


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95 % item-bootstrap percentile interval."""

    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Retest:
    """How a judge agrees with itself over `draws` draws of `n` answers."""

    n: int
    draws: int
    icc: Estimate
    kappa: Estimate
    kappa_kind: str
    """`cohen` (2 draws) or `fleiss` (more)."""
    flip_rate: Estimate


def item_weights(items: np.ndarray, *, seed: int, resamples: int) -> np.ndarray:
    """(resamples × rows) weights of the item bootstrap: each row counts as often as
    its item was drawn."""
    _, item_index = np.unique(np.asarray(items), return_inverse=True)
    blocks = resample_counts(int(item_index.max()) + 1, seed=seed, resamples=resamples)
    return np.concatenate(list(blocks))[:, item_index]


def bootstrapped(figure, *arrays, weights: np.ndarray) -> Estimate:
    """`figure(*arrays)` with the percentile interval of its resampled values."""
    low, high = percentile_interval(np.asarray(figure(*arrays, weights=weights)))
    return Estimate(float(figure(*arrays)[0]), low, high)


def retest(
    scores: np.ndarray,
    items: np.ndarray,
    *,
    pass_mark: float,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Retest:
    """ICC(2,1) of the scores, kappa and flip rate of the verdicts (score >=
    `pass_mark`), over an (answers × draws) matrix; `items`: each answer's item.
    Undefined (NaN) with fewer than two draws or two answers."""
    scores = np.asarray(scores, dtype=float)
    n, k = scores.shape
    kind = "cohen" if k == 2 else "fleiss"
    if k < 2 or n < 2:
        missing = Estimate(NAN, NAN, NAN)
        return Retest(n, k, missing, missing, kind, missing)
    verdicts = scores >= pass_mark
    weights = item_weights(items, seed=seed, resamples=resamples)
    return Retest(
        n,
        k,
        bootstrapped(icc_2_1, scores, weights=weights),
        bootstrapped(verdict_kappa, verdicts, weights=weights),
        kind,
        bootstrapped(flip_rate, verdicts, weights=weights),
    )


@dataclass(frozen=True)
class HumanAgreement:
    """How a judge agrees with people on the `n` answers both graded."""

    n: int
    kappa: Estimate
    """Cohen's kappa of the verdicts (score >= the pass mark)."""
    leniency: Estimate
    """The mean of judge - human: above 0, the judge is the more lenient."""


def mean_difference(a: np.ndarray, b: np.ndarray, weights=None) -> np.ndarray:
    """The (weighted) mean of a - b."""
    w = np.ones((1, len(a))) if weights is None else np.atleast_2d(weights)
    return w @ (a - b) / w.sum(axis=1)


def human_agreement(
    judge: np.ndarray,
    human: np.ndarray,
    items: np.ndarray,
    *,
    pass_mark: float,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> HumanAgreement:
    """Kappa of the judge's verdicts against people's, and the leniency (mean judge
    - human score), over the answers both graded (NaN dropped)."""
    judge, human = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    both = ~(np.isnan(judge) | np.isnan(human))
    judge, human, items = judge[both], human[both], np.asarray(items)[both]
    if len(judge) < 2:
        missing = Estimate(NAN, NAN, NAN)
        return HumanAgreement(len(judge), missing, missing)
    weights = item_weights(items, seed=seed, resamples=resamples)
    verdicts = (judge >= pass_mark, human >= pass_mark)
    return HumanAgreement(
        len(judge),
        bootstrapped(cohen_kappa, *verdicts, weights=weights),
        bootstrapped(mean_difference, judge, human, weights=weights),
    )
