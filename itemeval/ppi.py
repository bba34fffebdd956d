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

from .lazy import lazy_import

sps = lazy_import("scipy.stats")  # loaded at its first use

LEVEL = 0.95


@dataclass(frozen=True)
class Corrected:
    """A prediction-powered mean with its normal-approximation interval (arrays when
    given stacked samples)."""

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
) -> Corrected:
    """The corrected mean of `judged` (the judge's scores of all N answers, last axis)
    given the judge's and the humans' scores of the n labelled answers (last axis,
    paired). NaN when n < 2 or N < 2."""
    judged = np.asarray(judged, dtype=float)
    judge_labelled = np.asarray(judge_labelled, dtype=float)
    human_labelled = np.asarray(human_labelled, dtype=float)
    big_n, n = judged.shape[-1], human_labelled.shape[-1]
    if n < 2 or big_n < 2:
        nan = float("nan")
        return Corrected(nan, nan, nan, nan, n, big_n)
    rectifier = human_labelled - judge_labelled
    mean = judged.mean(axis=-1) + rectifier.mean(axis=-1)
    se = np.sqrt(
        judged.var(axis=-1, ddof=1) / big_n + rectifier.var(axis=-1, ddof=1) / n
    )
    z = sps.norm.ppf(0.5 + level / 2)
    return Corrected(
        _scalar(mean),
        _scalar(se),
        _scalar(mean - z * se),
        _scalar(mean + z * se),
        n,
        big_n,
    )


def _scalar(value: np.ndarray) -> float | np.ndarray:
    return float(value) if np.ndim(value) == 0 else value
