"""Bootstrap intervals for how two graders agree: quadratic kappa and the mean
difference (bias) of a - b.

Resamples the solutions both graded (percentile intervals, 2,000 resamples, seeded), in
chunks so memory stays bounded on a large study. Kappa uses the closed form of
quadratic-weighted Cohen's kappa, 1 - E[(a-b)^2] / (var a + var b + (mean a - mean b)^2)
over the label indices, which is `stats.quadratic_kappa` exactly when every label
appears, and is cheap to vectorise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
_CHUNK_CELLS = 4_000_000  # resamples x solutions held at once


@dataclass(frozen=True)
class AgreementInterval:
    bias: float
    bias_ci_low: float
    bias_ci_high: float
    kappa_ci_low: float
    kappa_ci_high: float


def agreement_interval(
    a: np.ndarray, b: np.ndarray, *, seed: int = 0, resamples: int = RESAMPLES
) -> AgreementInterval:
    """Bias (mean a - b) with its interval, and kappa's interval, over the solutions
    both scored."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    a, b = a[both], b[both]
    nan = float("nan")
    if len(a) == 0:
        return AgreementInterval(nan, nan, nan, nan, nan)
    bias = float((a - b).mean())
    if len(a) < 2:
        return AgreementInterval(bias, nan, nan, nan, nan)
    labels = np.unique(np.concatenate([np.rint(a), np.rint(b)]))
    ia = np.searchsorted(labels, np.rint(a)).astype(float)
    ib = np.searchsorted(labels, np.rint(b)).astype(float)
    biases, kappas = _resampled(a - b, ia, ib, seed=seed, resamples=resamples)
    tails = [(1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100]
    bias_low, bias_high = np.percentile(biases, tails)
    kappa_low, kappa_high = (
        np.nanpercentile(kappas, tails) if np.isfinite(kappas).any() else (nan, nan)
    )
    return AgreementInterval(
        bias, float(bias_low), float(bias_high), float(kappa_low), float(kappa_high)
    )


def closed_form_kappa(ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Quadratic kappa over the last axis of label-index arrays; NaN where it is
    undefined."""
    mean_a, mean_b = ia.mean(axis=-1), ib.mean(axis=-1)
    expected = ia.var(axis=-1) + ib.var(axis=-1) + (mean_a - mean_b) ** 2
    observed = ((ia - ib) ** 2).mean(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / expected, np.nan)


def _resampled(
    diff: np.ndarray, ia: np.ndarray, ib: np.ndarray, *, seed: int, resamples: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = len(diff)
    chunk = max(1, _CHUNK_CELLS // n)
    biases, kappas = [], []
    for start in range(0, resamples, chunk):
        draw = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        biases.append(diff[draw].mean(axis=1))
        kappas.append(closed_form_kappa(ia[draw], ib[draw]))
    return np.concatenate(biases), np.concatenate(kappas)
