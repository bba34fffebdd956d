"""Prediction-powered inference of a mean: a judge's scores on every answer, corrected
by human labels on a random sample of them (Angelopoulos et al. 2023,
"Prediction-powered inference", Science 382:669).

The estimate is the judge's mean over all N answers plus the mean human - judge
difference (the "rectifier") over the n labelled ones; its variance adds both parts'
sampling variance, so the interval is honest about the judge's bias and about how few
labels there are. Pure numpy, vectorised over any leading axes so a simulation of many
labelled samples is one call."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lazy import lazy_import

sps = lazy_import("scipy.stats")  # loaded at its first use

LEVEL = 0.95


@dataclass(frozen=True)
class Corrected:
    """A prediction-powered mean with its interval (arrays when given stacked
    samples)."""

    mean: float | np.ndarray
    se: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    n_labelled: int
    n_judged: int


def ppi_mean(
    judged: np.ndarray,
    judge_labelled: np.ndarray,
    human_labelled: np.ndarray,
    level: float = LEVEL,
    bounds: tuple[float, float] | None = None,
) -> Corrected:
    """The corrected mean of `judged` (the judge's scores of all N answers, last axis)
    given the judge's and the humans' scores of the n labelled answers (last axis,
    paired). NaN when n < 2 or N < 2.

    The interval takes Student's t with the Welch-Satterthwaite degrees of freedom of
    the two variance parts: with a handful of labels the rectifier's variance is
    itself a guess, and a normal quantile would claim more than 2 labels know. It is
    clipped to `bounds`, the scale the scores live on (no share below 0)."""
    judged = np.asarray(judged, dtype=float)
    judge_labelled = np.asarray(judge_labelled, dtype=float)
    human_labelled = np.asarray(human_labelled, dtype=float)
    big_n, n = judged.shape[-1], human_labelled.shape[-1]
    if n < 2 or big_n < 2:
        nan = float("nan")
        return Corrected(nan, nan, nan, nan, n, big_n)
    rectifier = human_labelled - judge_labelled
    mean = judged.mean(axis=-1) + rectifier.mean(axis=-1)
    part_judged = judged.var(axis=-1, ddof=1) / big_n
    part_labels = rectifier.var(axis=-1, ddof=1) / n
    se = np.sqrt(part_judged + part_labels)
    quantile = sps.t.ppf(0.5 + level / 2, _welch_df(part_judged, part_labels, big_n, n))
    low, high = mean - quantile * se, mean + quantile * se
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return Corrected(_scalar(mean), _scalar(se), _scalar(low), _scalar(high), n, big_n)


def _welch_df(a: np.ndarray, b: np.ndarray, big_n: int, n: int) -> np.ndarray:
    """(a + b)² / (a²/(N−1) + b²/(n−1)); infinite (the normal) where both are 0."""
    top = (a + b) ** 2
    bottom = a**2 / (big_n - 1) + b**2 / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.inf)


def _scalar(value: np.ndarray) -> float | np.ndarray:
    return float(value) if np.ndim(value) == 0 else value
