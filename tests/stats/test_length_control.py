"""The length-controlled win rate: the fit is statsmodels' Logit, the rate and its
interval follow from it, and a judge that only likes long answers is found out."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from itemeval.stats.length_control import (
    length_controlled_win_rate,
    length_design,
    logit_fit,
    pairwise_length_controlled,
    sigmoid,
)


def pairs(seed: int, n: int, *, skill: float, per_char: float, swapped: bool):
    """n judged pairs of X against Y; X writes longer answers; the judge's verdict
    follows skill, slot A's pull (0.3) and the length difference."""
    rng = np.random.default_rng(seed)
    contrast = np.where(rng.random(n) < 0.5, 1.0, -1.0) if swapped else np.ones(n)
    x_longer = rng.normal(200, 150, n)
    length_diff = contrast * x_longer
    logit = 0.3 + skill * contrast + per_char * length_diff
    wins = (rng.random(n) < sigmoid(logit)).astype(float)
    wins[rng.random(n) < 0.1] = 0.5  # some ties
    return wins, length_diff, contrast


CASES = [
    (0, 300, 0.0, 0.004, True),
    (1, 120, 0.5, 0.0, True),
    (2, 500, -0.3, 0.002, False),
    (3, 60, 0.2, 0.01, True),
]


@pytest.mark.parametrize("seed, n, skill, per_char, swapped", CASES)
def test_the_fit_is_statsmodels_logit(seed, n, skill, per_char, swapped):
    wins, length_diff, contrast = pairs(
        seed, n, skill=skill, per_char=per_char, swapped=swapped
    )
    design = length_design(length_diff, contrast)
    beta, cov = logit_fit(design, wins)
    fit = sm.Logit(wins, design).fit(disp=0, method="newton", tol=1e-14)
    assert np.max(np.abs(beta - fit.params)) < 1e-9
    assert np.max(np.abs(cov - fit.cov_params())) < 1e-9
    got = length_controlled_win_rate(wins, length_diff, contrast)
    if swapped:
        b0, b1 = fit.params[:2]
        expected = (sigmoid(b1 + b0) + sigmoid(b1 - b0)) / 2
    else:
        expected = sigmoid(fit.params[0])
        low, high = fit.conf_int()[0]
        assert abs(got.ci_low - sigmoid(low)) < 1e-9
        assert abs(got.ci_high - sigmoid(high)) < 1e-9
    assert abs(got.win_rate - expected) < 1e-9
    assert got.ci_low < got.win_rate < got.ci_high


def test_a_judge_that_only_likes_length_gives_an_even_controlled_rate():
    """X is no better than Y but writes longer answers: the raw win rate is high,
    the length-controlled one is about a half."""
    wins, length_diff, contrast = pairs(7, 4000, skill=0.0, per_char=0.01, swapped=True)
    x_won = np.where(contrast > 0, wins, 1 - wins).mean()
    got = length_controlled_win_rate(wins, length_diff, contrast)
    assert x_won > 0.75
    assert got.ci_low < 0.5 < got.ci_high
    # a tenth of the verdicts made ties pulls the coefficient towards 0
    assert 0.005 < got.length_coef < 0.01


def test_no_variation_in_the_verdicts_leaves_the_rate_undefined():
    got = length_controlled_win_rate(np.ones(10), np.arange(10.0))
    assert np.isnan(got.win_rate)


def test_pairwise_verdicts_in_both_orders_are_read_by_the_position_shown_first():
    """A is no better than B but longer; the judge favours the first position and
    length. In both orders, A's raw score is high, its controlled rate even."""
    rng = np.random.default_rng(9)
    n = 3000
    order = np.where(np.arange(n) % 2 == 0, 1, 2)
    length_a, length_b = rng.normal(900, 100, n), rng.normal(600, 100, n)
    first_is_a = order == 1
    diff_first = np.where(first_is_a, 1, -1) * (length_a - length_b)
    first_wins = rng.random(n) < sigmoid(0.4 + 0.006 * diff_first)
    a_score = np.where(first_is_a, first_wins, ~first_wins).astype(float)
    got = pairwise_length_controlled(a_score, length_a, length_b, order)
    assert a_score.mean() > 0.75
    assert got.ci_low < 0.5 < got.ci_high
    assert got.length_coef == pytest.approx(0.006, rel=0.25)


@pytest.mark.parametrize(
    "a_wins, length_diff",
    [
        ([1, 0, 1, 0, 1, 0], [5, 5, 5, 5, 5, 5]),  # length tied to the constant
        ([1, 1, 1, 0, 0, 0], [3, 2, 1, -1, -2, -3]),  # length separates the verdicts
    ],
)
def test_no_fit_is_an_undefined_rate_not_an_error(a_wins, length_diff):
    got = length_controlled_win_rate(np.array(a_wins, float), np.array(length_diff))
    assert np.isnan(got.win_rate) and np.isnan(got.ci_low)
