"""itemeval.sequential: the betting confidence sequence's error rate, its saving, and"""

from __future__ import annotations

import math

import numpy as np
import pytest

from itemeval.stats import power, sequential

ALPHA = 0.05


def _differences(rng, comparisons, items, p_a, p_b):
    """A - B on 0/1 item scores of two conditions that share an item difficulty."""
    level = rng.normal(size=(comparisons, items))
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    a = rng.random(level.shape) < 1 / (1 + np.exp(-(logit(p_a) + level)))
    b = rng.random(level.shape) < 1 / (1 + np.exp(-(logit(p_b) + level)))
    return a.astype(float) - b.astype(float)


def test_false_positive_rate_with_a_look_after_every_round_is_held():
    rng = np.random.default_rng(2024)
    d = _differences(rng, 2000, 1000, 0.6, 0.6)
    _, decided = sequential.stopping_items(d, ALPHA, round_size=20)
    assert decided.mean() <= ALPHA + 0.01


def test_false_positive_rate_holds_for_graded_scores_too():
    rng = np.random.default_rng(5)
    p = rng.beta(2, 2, size=(2000, 600))
    d = (
        rng.binomial(3, p) / 3 - rng.binomial(3, p) / 3
    )  # same item, 3 replications each
    _, decided = sequential.stopping_items(d, ALPHA, round_size=10)
    assert decided.mean() <= ALPHA + 0.01


def test_a_real_difference_stops_with_fewer_items_than_the_fixed_design():
    rng = np.random.default_rng(99)
    cap = 1000  # the fixed design runs every item
    d = _differences(rng, 2000, cap, 0.7, 0.6)
    items, decided = sequential.stopping_items(d, ALPHA, round_size=20)
    assert decided.mean() > 0.8
    assert items.mean() < 0.6 * cap
    # and a larger difference stops far sooner still
    items_large, _ = sequential.stopping_items(
        _differences(rng, 2000, cap, 0.75, 0.6), ALPHA, round_size=20
    )
    assert items_large.mean() < items.mean() / 2


def test_the_sequence_is_nested_and_covers_the_truth():
    rng = np.random.default_rng(3)
    d = _differences(rng, 1, 400, 0.7, 0.55)[0]
    low, high = sequential.sequence(d, ALPHA)
    assert (np.diff(low) >= 0).all() and (np.diff(high) <= 0).all()
    assert low[-1] < d.mean() < high[-1]
    assert high[-1] - low[-1] < high[20] - low[20]


def test_look_reports_the_last_bounds_and_a_decision():
    rng = np.random.default_rng(8)
    d = _differences(rng, 1, 600, 0.8, 0.5)[0]
    found = sequential.look(d, ALPHA)
    assert found.items == 600 and found.decision == "a_better" and found.low > 0
    assert sequential.look(-d, ALPHA).decision == "b_better"
    assert sequential.look(np.array([]), ALPHA).decision == "undecided"


def test_equal_conditions_become_equivalent_within_a_margin():
    found = sequential.look(np.zeros(400), ALPHA, margin=0.05)
    assert found.decision == "equivalent"
    assert -0.05 < found.low <= 0 <= found.high < 0.05
    assert sequential.look(np.zeros(400), ALPHA).decision == "undecided"


@pytest.mark.parametrize(
    "low,high,margin,expected",
    [
        (0.01, 0.2, None, "a_better"),
        (-0.3, -0.02, 0.1, "b_better"),
        (-0.04, 0.03, 0.05, "equivalent"),
        (-0.04, 0.06, 0.05, "undecided"),
        (-0.2, 0.2, None, "undecided"),
    ],
)
def test_decide(low, high, margin, expected):
    assert sequential.decide(low, high, margin) == expected


def test_scores_outside_zero_one_are_refused():
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        sequential.look(np.array([0.5, 2.0]))


def test_saving_against_the_planned_fixed_n_is_reported_honestly():
    """Not an assertion of a saving: records how the sequence compares with a fixed
    design sized for
    80% power at the true difference (the sequence also decides in more of the"""
    rng = np.random.default_rng(17)
    d = _differences(rng, 2000, 1000, 0.7, 0.6)
    items, decided = sequential.stopping_items(d, ALPHA, round_size=20)
    psi, delta = float((d != 0).mean()), float(d.mean())
    fixed = power.items_for_power(lambda n: power.mcnemar_power(delta, psi, n), 0.8)
    assert 100 < fixed < 1000 and 100 < items.mean() < 1000
