"""The predictable plug-in empirical-Bernstein confidence sequence for the mean of
bounded observations, in closed form.

The method is Theorem 2 (eq. 13-15) of Waudby-Smith & Ramdas (2023), "Estimating means
of bounded random variables by betting", JRSS-B 86(1): 1-27 (arXiv:2010.09686). For
X_1, X_2, ... in [0, 1] with common conditional mean mu, and predictable weights
lambda_t in [0, 1),

    C_t = sum(lambda_i X_i) / sum(lambda_i)
          +- (log(2/alpha) + sum(v_i psi_E(lambda_i))) / sum(lambda_i)

with v_i = 4 (X_i - mu_hat_{i-1})^2 and psi_E(l) = (-log(1 - l) - l) / 4, contains mu
at every t at once with probability at least 1 - alpha (each side is a nonnegative
supermartingale's Ville bound at alpha/2). The weights are their "predictable plug-in"

    lambda_t = min(sqrt(2 log(2/alpha) / (sigma_hat^2_{t-1} t log(1 + t))), c),

from the regularised running mean mu_hat_t = (1/2 + sum X_i) / (t + 1) and variance
sigma_hat^2_t = (1/4 + sum (X_i - mu_hat_i)^2) / (t + 1), so the width adapts to the
observed variance, as the Bernstein bound does, without knowing it. It is a closed form
(no grid of candidate means, unlike the betting sequence of `stats.sequential`), which
is what lets a race carry one sequence per pair of conditions and a simulation carry
thousands of races. Each bound is the running intersection of the sets so far (still
valid, never wider). Arrays in, arrays out, no I/O.
"""

from __future__ import annotations

import math

import numpy as np

TRUNCATION = 0.5
"""c: the largest weight; the paper suggests 1/2 or 3/4."""


def _before(values: np.ndarray, prior: float) -> np.ndarray:
    """values[..., t-1] at position t: what was known before observation t."""
    first = np.full(values.shape[:-1] + (1,), prior)
    return np.concatenate([first, values[..., :-1]], axis=-1)


def weights(x: np.ndarray, alpha: float, truncation: float = TRUNCATION) -> np.ndarray:
    """lambda_t (predictable: from X_1..X_{t-1}) for x in [0, 1] along the last axis."""
    t = np.arange(1, x.shape[-1] + 1)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    var = (0.25 + np.cumsum((x - mean) ** 2, axis=-1)) / (t + 1)
    rate = 2 * math.log(2 / alpha) / (_before(var, 0.25) * t * np.log1p(t))
    return np.minimum(np.sqrt(rate), truncation)


def sequence(
    x: np.ndarray, alpha: float = 0.05, truncation: float = TRUNCATION
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) after each observation of x in [0, 1], along the last axis (any
    leading axes are independent sequences); each within [0, 1] and nested in time.

    Raises ValueError for an observation outside [0, 1] (beyond rounding) or alpha
    outside (0, 1).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha} must be in (0, 1)")
    x = np.asarray(x, dtype=float)
    if x.size and (np.nanmin(x) < -1e-9 or np.nanmax(x) > 1 + 1e-9):
        raise ValueError("observations must lie in [0, 1]")
    x = np.clip(x, 0.0, 1.0)
    if x.shape[-1] == 0:
        return np.zeros(x.shape), np.ones(x.shape)
    lam = weights(x, alpha, truncation)
    t = np.arange(1, x.shape[-1] + 1)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    v = 4 * (x - _before(mean, 0.5)) ** 2
    psi = (-np.log1p(-lam) - lam) / 4
    total = np.cumsum(lam, axis=-1)
    centre = np.cumsum(lam * x, axis=-1) / total
    half = (math.log(2 / alpha) + np.cumsum(v * psi, axis=-1)) / total
    low = np.maximum.accumulate(np.clip(centre - half, 0.0, 1.0), axis=-1)
    high = np.minimum.accumulate(np.clip(centre + half, 0.0, 1.0), axis=-1)
    return low, high


def paired_sequence(
    differences: np.ndarray, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the mean paired difference A - B after each item, for
    differences of [0, 1] scores (so in [-1, 1]): the sequence of (D + 1) / 2 mapped
    back."""
    d = np.asarray(differences, dtype=float)
    if d.size and (np.nanmin(d) < -1 - 1e-9 or np.nanmax(d) > 1 + 1e-9):
        raise ValueError("paired differences must lie in [-1, 1] (scores in [0, 1])")
    low, high = sequence((np.clip(d, -1, 1) + 1) / 2, alpha)
    return 2 * low - 1, 2 * high - 1
