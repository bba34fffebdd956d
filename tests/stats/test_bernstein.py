"""itemeval.stats.bernstein: the empirical-Bernstein confidence sequence against the
published formula, its time-uniform coverage by simulation, and its edges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from itemeval.stats import bernstein


def _reference(x: list[float], alpha: float, c: float = 0.5) -> tuple[list, list]:
    """Waudby-Smith & Ramdas (2023) Theorem 2, eq. 13-15, one observation at a time,
    written from the paper with no array trick (running intersection included)."""
    lows, highs, low, high = [], [], 0.0, 1.0
    mu, var = 0.5, 0.25  # mu_hat_0, sigma_hat^2_0
    s_lam = s_lx = s_vpsi = s_sq = s_x = 0.0
    for t, xt in enumerate(x, start=1):
        lam = min(math.sqrt(2 * math.log(2 / alpha) / (var * t * math.log(1 + t))), c)
        v = 4 * (xt - mu) ** 2
        psi = (-math.log(1 - lam) - lam) / 4
        s_lam, s_lx, s_vpsi = s_lam + lam, s_lx + lam * xt, s_vpsi + v * psi
        centre, half = s_lx / s_lam, (math.log(2 / alpha) + s_vpsi) / s_lam
        low, high = max(low, centre - half, 0.0), min(high, centre + half, 1.0)
        lows.append(low)
        highs.append(high)
        s_x += xt
        mu = (0.5 + s_x) / (t + 1)
        s_sq += (xt - mu) ** 2
        var = (0.25 + s_sq) / (t + 1)
    return lows, highs


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.3])
def test_the_arrays_equal_the_formula_written_out(alpha):
    x = np.random.default_rng(7).beta(0.7, 1.3, size=300)
    low, high = bernstein.sequence(x, alpha)
    want_low, want_high = _reference(list(x), alpha)
    np.testing.assert_allclose(low, want_low, atol=1e-12)
    np.testing.assert_allclose(high, want_high, atol=1e-12)


def _paths(kind: str, rng, n: int, paths: int = 2000) -> tuple[np.ndarray, float]:
    """Paths of observations in [0, 1] and their true mean."""
    if kind == "bernoulli 0.5":
        return (rng.random((paths, n)) < 0.5).astype(float), 0.5
    if kind == "bernoulli 0.95":
        return (rng.random((paths, n)) < 0.95).astype(float), 0.95
    if kind == "beta(0.5, 0.5)":  # mass at both ends: the most variable shape
        return rng.beta(0.5, 0.5, (paths, n)), 0.5
    if kind == "paired 0/1 differences":  # (D + 1)/2 for D in {-1, 0, 1}
        d = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=(paths, n))
        return (d + 1) / 2, (0.1 + 1) / 2
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    ["bernoulli 0.5", "bernoulli 0.95", "beta(0.5, 0.5)", "paired 0/1 differences"],
)
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_coverage_holds_at_every_time_at_once(kind, alpha):
    """Over 2,000 paths of 1,000 observations, the share whose sequence ever misses
    the mean is at most alpha (time-uniform, not just at the end)."""
    x, mean = _paths(kind, np.random.default_rng(2023), 1000)
    low, high = bernstein.sequence(x, alpha)
    ever_missed = ((low > mean) | (high < mean)).any(axis=1)
    assert ever_missed.mean() <= alpha


def test_the_sequence_is_nested_shrinks_and_stays_in_the_unit_interval():
    x = (np.random.default_rng(1).random(2000) < 0.3).astype(float)
    low, high = bernstein.sequence(x, 0.05)
    assert (np.diff(low) >= 0).all() and (np.diff(high) <= 0).all()
    assert (low >= 0).all() and (high <= 1).all() and (low <= high).all()
    assert high[99] - low[99] > 2 * (high[-1] - low[-1]) and high[-1] - low[-1] < 0.1
    assert low[-1] < x.mean() < high[-1]


@pytest.mark.parametrize(
    "x, low_above, high_below",
    [
        ([1.0] * 200, 0.9, 1.0 + 1e-12),  # all ones: near 1, never past it
        ([0.0] * 200, -1e-12, 0.1),
        ([0.5] * 200, 0.4, 0.6),  # no spread: the variance plug-in tightens it
        ([1.0], -1e-12, 1.0 + 1e-12),  # one observation says almost nothing
    ],
)
def test_cases(x, low_above, high_below):
    low, high = bernstein.sequence(np.array(x), 0.05)
    assert low[-1] >= low_above and high[-1] <= high_below


def test_paired_differences_map_back_to_their_own_scale():
    d = np.random.default_rng(4).choice([-1.0, 0.0, 1.0], size=500, p=[0.1, 0.5, 0.4])
    low, high = bernstein.paired_sequence(d, 0.05)
    unit_low, unit_high = bernstein.sequence((d + 1) / 2, 0.05)
    np.testing.assert_allclose(low, 2 * unit_low - 1)
    np.testing.assert_allclose(high, 2 * unit_high - 1)
    assert low[-1] > 0  # a real difference of 0.3 is shown within 500 items


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bernstein.sequence(np.array([0.2, 1.5])), "lie in \\[0, 1\\]"),
        (lambda: bernstein.sequence(np.array([0.2]), alpha=0.0), "alpha 0.0"),
        (lambda: bernstein.paired_sequence(np.array([2.0])), "\\[-1, 1\\]"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_no_observation_is_the_whole_interval():
    low, high = bernstein.sequence(np.zeros((3, 0)))
    assert low.shape == (3, 0) and high.shape == (3, 0)
