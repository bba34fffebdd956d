"""Intervals on the scores' scale: Wilson for 0/1 scores and the effective-n Wilson
interval for other bounded scores, checked against statsmodels' proportion_confint."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from itemeval.stats import intervals as stats
from itemeval.stats.scale_intervals import bounded_interval, grade_scales, scale_of

CASES = [
    # (the scores, their scale)
    pytest.param([1.0] * 22 + [0.0], (0.0, 1.0), id="22-of-23-correct"),
    pytest.param([1.0] * 30, (0.0, 1.0), id="all-correct"),
    pytest.param([0.0] * 7, (0.0, 1.0), id="all-wrong"),
    pytest.param([1.0] * 21 + [0.5] * 2 + [0.0], (0.0, 1.0), id="two-replications"),
    pytest.param([1, 0.5, 0.5, 1, 1, 1, 0, 0.5, 1, 1], (0.0, 1.0), id="small-means"),
    pytest.param([5, 5, 4, 5, 5, 5, 3, 5, 5, 5, 4, 5], (1.0, 5.0), id="judge-1-5-high"),
    pytest.param([0.93, 0.88, 0.97, 0.99, 0.91], (0.0, 1.0), id="probabilities"),
    pytest.param([2, 3, 3, 1, 0, 3, 2, 3], (0.0, 3.0), id="three-criteria-sum"),
]


@pytest.mark.parametrize(("values", "scale"), CASES)
def test_intervals_stay_on_the_scale_and_equal_statsmodels_wilson(values, scale):
    x = np.asarray(values, dtype=float)
    interval = bounded_interval(x, scale)
    low, high = scale
    assert low <= interval.ci_low <= interval.mean <= interval.ci_high <= high
    p = (x.mean() - low) / (high - low)
    variance = ((x - low) / (high - low)).var()
    binary = stats.is_binary(x)
    n_eff = len(x) if binary or variance == 0 else len(x) * p * (1 - p) / variance
    expected = proportion_confint(p * n_eff, n_eff, alpha=0.05, method="wilson")
    assert math.isclose(interval.ci_low, low + expected[0] * (high - low), abs_tol=1e-9)
    assert math.isclose(
        interval.ci_high, low + expected[1] * (high - low), abs_tol=1e-9
    )
    assert interval.method == ("wilson" if binary else "wilson_bounded")


def test_zero_one_scores_get_exactly_the_wilson_interval():
    x = np.array([1.0] * 22 + [0.0])
    wilson = stats.wilson_interval(x)
    assert math.isclose(bounded_interval(x).ci_low, wilson.ci_low, abs_tol=1e-12)
    assert math.isclose(bounded_interval(x).ci_high, wilson.ci_high, abs_tol=1e-12)
    t = stats.t_interval(x)
    assert t.ci_high > 1.0  # what the t interval did: off the scale
    assert bounded_interval(x).ci_high < 1.0


def test_away_from_the_bounds_it_is_as_wide_as_the_normal_interval():
    rng = np.random.default_rng(3)
    x = rng.integers(1, 6, size=4000).astype(float)  # a judge's 1-5, centred
    interval = bounded_interval(x, (1.0, 5.0))
    half = 1.959963984540054 * x.std() / math.sqrt(len(x))
    assert math.isclose(interval.ci_high - interval.ci_low, 2 * half, rel_tol=1e-3)


@pytest.mark.parametrize(
    ("values", "scale"),
    [
        ([0, 1, 1], (0.0, 1.0)),
        ([0.2, 0.7], (0.0, 1.0)),
        ([2, 5, 3], (2.0, 5.0)),
        ([-1, 1], (-1.0, 1.0)),
        ([], None),
        ([float("nan")], None),
    ],
)
def test_scale_of_scores(values, scale):
    assert scale_of(np.asarray(values, dtype=float)) == scale


def test_a_grade_condition_has_one_scale_over_its_cells():
    import pandas as pd

    items = pd.DataFrame(
        {
            "grade_condition_id": ["j", "j", "j", "s", "s"],
            "score": [4.0, 5.0, 2.0, 1.0, 0.0],
        }
    )
    assert grade_scales(items) == {"j": (2.0, 5.0), "s": (0.0, 1.0)}


def test_scores_off_the_given_scale_are_refused():
    with pytest.raises(ValueError, match="outside their scale"):
        bounded_interval(np.array([0.5, 2.0]), (0.0, 1.0))


def test_a_grade_condition_s_scale_comes_from_its_scores_not_its_item_means():
    """A judge that gave 0 and 6 to replications of items whose means are 2-5 lives on
    0-6; parse failures and pending rows say nothing of the scale."""
    import pandas as pd

    grades = pd.DataFrame(
        {
            "grade_condition_id": ["j"] * 6 + ["s", "s"],
            "status": ["scored"] * 4 + ["parse_failure", "pending", "scored", "scored"],
            "score": [0.0, 4.0, 6.0, 4.0, -9.0, np.nan, 1.0, 0.0],
        }
    )
    assert grade_scales(grades) == {"j": (0.0, 6.0), "s": (0.0, 1.0)}


def test_a_criterion_s_interval_is_on_the_values_it_was_given():
    """A criterion scored 0-2 keeps its 0-2 scale in a cell whose item means reach only
    1.5: the interval is the bounded one on [0, 2], not on the cell's own range."""
    import pandas as pd

    from itemeval.results.criteria import criteria_cells

    values = {"i1": [0.0, 0.0], "i2": [1.0, 2.0], "i3": [1.0, 1.0], "i4": [0.0, 1.0]}
    rows = [("g1", item, value) for item, pair in values.items() for value in pair] + [
        ("g2", "i1", 2.0),
        ("g2", "i2", 0.0),
    ]
    long = pd.DataFrame(
        [
            {
                "gen_condition_id": gen,
                "grade_condition_id": "j",
                "item_id": item,
                "epoch": 1,
                "criterion": "rigour",
                "value": value,
            }
            for gen, item, value in rows
        ]
    )
    cells = criteria_cells(long, lambda v, bounds: bounded_interval(v, bounds))
    first = next(row for row in cells if row["gen_condition_id"] == "g1")
    expected = bounded_interval(np.array([0.0, 1.5, 1.0, 0.5]), (0.0, 2.0))
    assert (first["ci_low"], first["ci_high"]) == pytest.approx(
        (expected.ci_low, expected.ci_high)
    )
    own = bounded_interval(np.array([0.0, 1.5, 1.0, 0.5]))
    assert own.ci_high != pytest.approx(expected.ci_high)


def test_zero_one_scores_on_a_wider_scale_get_an_interval_inside_that_scale():
    """Twelve items all scored 1 by a 1-5 grader: the floor of its scale, not a 0/1
    share; the interval is the bounded one on [1, 5] (a 0/1 Wilson interval reached
    0.758, below the floor)."""
    x = np.ones(12)
    interval = bounded_interval(x, (1.0, 5.0))
    assert interval.method == "wilson_bounded" and interval.ci_low == 1.0
    share = proportion_confint(0, 12, alpha=0.05, method="wilson")
    assert math.isclose(interval.ci_high, 1.0 + 4.0 * share[1], abs_tol=1e-9)


@pytest.mark.parametrize("values", [[0.5], [3.0, 3.0, 3.0]])
def test_identical_scores_are_no_certainty(values):
    """One item, or items all scored alike, show no spread to estimate: n_eff = n,
    the interval of a 0/1 sample with that share, never a zero-width one."""
    x = np.asarray(values)
    scale = (0.0, 1.0) if x.max() <= 1 else (1.0, 5.0)
    interval = bounded_interval(x, scale)
    assert interval.ci_high - interval.ci_low > 0.3
    p = (x.mean() - scale[0]) / (scale[1] - scale[0])
    share = proportion_confint(p * len(x), len(x), alpha=0.05, method="wilson")
    width = scale[1] - scale[0]
    assert math.isclose(interval.ci_low, scale[0] + share[0] * width, abs_tol=1e-9)


def test_the_standard_error_is_s_over_root_n_whatever_the_interval():
    x = np.array([1.0] * 15 + [0.0] * 5)
    expected = x.std(ddof=1) / math.sqrt(len(x))
    assert math.isclose(bounded_interval(x).se, expected)
    assert math.isclose(stats.wilson_interval(x).se, expected)
    assert math.isclose(stats.t_interval(x).se, expected)
