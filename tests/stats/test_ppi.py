"""Prediction-powered means and agreement bootstrap intervals: pure numpy, checked by
simulation and against itemeval.stats / scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from itemeval.stats import agreement as agreement_stats
from itemeval.stats import intervals as stats
from itemeval.stats.agreement_ci import (
    MAX_DISTINCT,
    agreement_interval,
    closed_form_kappa,
    weighted_figures,
)
from itemeval.stats.ppi import ppi_mean

DRAWS = 1000


def test_corrected_interval_covers_the_true_mean_where_the_biased_judges_does_not():
    """A judge that passes 30 % of wrong answers and fails 5 % of right ones, 20,000
    answers judged, 200 labelled by people: over 1,000 draws of the labelled sample
    the PPI interval covers the true mean at its nominal 95 %, the judge's own t
    interval never."""
    rng = np.random.default_rng(2023)
    big_n, n = 20_000, 200
    truth = (rng.random(big_n) < 0.6).astype(float)
    flip = rng.random(big_n)
    judge = np.where(truth == 1, flip >= 0.05, flip < 0.30).astype(float)
    true_mean = truth.mean()
    labelled = np.stack(
        [rng.choice(big_n, size=n, replace=False) for _ in range(DRAWS)]
    )
    result = ppi_mean(judge, judge[labelled], truth[labelled])  # one row per draw
    covered = (result.ci_low <= true_mean) & (true_mean <= result.ci_high)
    assert 0.93 <= covered.mean() <= 0.97
    own = stats.t_interval(judge)
    assert not own.ci_low <= true_mean <= own.ci_high
    assert abs(judge.mean() - true_mean) > 0.08  # the judge really is biased


def test_ppi_is_the_judge_mean_plus_the_rectifier_with_both_variances():
    judged = np.array([1, 0, 1, 1, 0, 1, 1, 1.0])
    judge_l, human_l = np.array([1, 0, 1.0]), np.array([0, 0, 1.0])
    result = ppi_mean(judged, judge_l, human_l)
    assert result.mean == pytest.approx(judged.mean() + (human_l - judge_l).mean())
    se = np.sqrt(judged.var(ddof=1) / 8 + (human_l - judge_l).var(ddof=1) / 3)
    assert result.se == pytest.approx(se)
    # Student's t at the Welch-Satterthwaite degrees of freedom of the two parts
    a, b = judged.var(ddof=1) / 8, (human_l - judge_l).var(ddof=1) / 3
    df = (a + b) ** 2 / (a**2 / 7 + b**2 / 2)
    assert result.ci_high - result.mean == pytest.approx(
        scipy_stats.t.ppf(0.975, df) * se
    )
    assert (result.n_labelled, result.n_judged) == (3, 8)
    assert np.isnan(ppi_mean(judged, judge_l[:1], human_l[:1]).mean)


def test_few_labels_widen_the_interval_and_the_scale_bounds_it():
    """Two labels know little: the interval is wider than the normal one around the
    same standard error, and a share's interval stays in [0, 1]."""
    judged = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1.0])
    few = ppi_mean(judged, np.array([1, 0.0]), np.array([0, 1.0]))
    assert few.ci_high - few.mean > 1.96 * few.se
    bounded = ppi_mean(
        judged, np.array([1, 0.0]), np.array([0, 1.0]), bounds=(0.0, 1.0)
    )
    assert bounded.ci_low == 0.0 and bounded.ci_high == 1.0
    assert bounded.mean == pytest.approx(few.mean)


@pytest.mark.parametrize(
    "a, b",
    [
        ([0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1]),
        ([1, 3, 5, 7, 9, 2], [2, 3, 5, 6, 9, 1]),
        ([1, 2, 3, 4, 5, 5, 4], [1, 2, 2, 4, 5, 3, 4]),
    ],
)
def test_closed_form_kappa_is_scikit_learns_quadratic_kappa(a, b):
    a, b = np.array(a, float), np.array(b, float)
    labels = np.unique(np.concatenate([a, b]))
    ia, ib = np.searchsorted(labels, a), np.searchsorted(labels, b)
    expected = cohen_kappa_score(a.astype(int), b.astype(int), weights="quadratic")
    assert closed_form_kappa(ia.astype(float), ib.astype(float)) == pytest.approx(
        expected, abs=1e-12
    )
    assert agreement_stats.quadratic_kappa(a, b) == pytest.approx(expected, abs=1e-12)


def test_agreement_interval_brackets_the_bias_and_kappa():
    rng = np.random.default_rng(1)
    human = (rng.random(300) < 0.5).astype(float)
    judge = np.where(rng.random(300) < 0.2, 1.0, human)  # passes a fifth of everything
    interval = agreement_interval(judge, human, seed=3)
    assert interval.bias == pytest.approx((judge - human).mean())
    assert interval.bias_ci_low < interval.bias < interval.bias_ci_high
    kappa = agreement_stats.quadratic_kappa(judge, human)
    assert interval.kappa_ci_low < kappa < interval.kappa_ci_high
    assert interval == agreement_interval(judge, human, seed=3)  # seeded
    nothing = agreement_interval(np.array([np.nan]), np.array([1.0]))
    assert np.isnan(nothing.bias)


def test_every_figure_of_one_unweighted_draw_is_the_point_estimate():
    rng = np.random.default_rng(5)
    a = rng.integers(1, 6, 300).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 300), 1, 5)
    figures = weighted_figures(a, b, np.ones((1, 300)))
    point = agreement_stats.agreement(a, b)
    assert figures["exact"][0] == pytest.approx(point.exact, abs=1e-12)
    assert figures["kappa"][0] == pytest.approx(point.kappa_quadratic, abs=1e-12)
    assert figures["alpha"][0] == pytest.approx(point.alpha_interval, abs=1e-12)
    assert figures["spearman"][0] == pytest.approx(point.spearman, abs=1e-12)
    assert figures["bias"][0] == pytest.approx((a - b).mean(), abs=1e-12)
    interval = agreement_interval(a, b, seed=2)
    for low, value, high in [
        (interval.exact_ci_low, point.exact, interval.exact_ci_high),
        (interval.alpha_ci_low, point.alpha_interval, interval.alpha_ci_high),
        (interval.spearman_ci_low, point.spearman, interval.spearman_ci_high),
    ]:
        assert low < value < high


def test_continuous_scores_are_resampled_answer_by_answer():
    rng = np.random.default_rng(6)
    a = rng.random(MAX_DISTINCT + 500)
    b = a + rng.normal(0, 0.1, len(a))
    interval = agreement_interval(a, b, seed=1, resamples=100)
    point = agreement_stats.agreement(a, b)
    assert interval.spearman_ci_low < point.spearman < interval.spearman_ci_high
    assert interval.alpha_ci_low < point.alpha_interval < interval.alpha_ci_high
    assert interval.bias_ci_low < interval.bias < interval.bias_ci_high


def test_a_rater_corrects_only_graders_that_measure_what_they_labelled():
    """A judge under the rubric the rater labelled against, or a scorer on the same
    scale; never a judge under another rubric (a 0-6 criteria total against 0/1
    labels)."""
    from types import SimpleNamespace

    from itemeval.results.human import _same_quantity

    def grader(name, rubric_hash=None):
        rubric = SimpleNamespace(hash=rubric_hash) if rubric_hash else None
        return SimpleNamespace(id=name, rubric=rubric)

    human = grader("human-alice", "r1")
    scales = {"human-alice": (0.0, 1.0), "j1": (0.0, 1.0), "j2": (0.0, 6.0)}
    scales |= {"numeric": (0.0, 1.0), "bleu": (0.0, 1.0), "likert": (1.0, 5.0)}
    assert _same_quantity(grader("j1", "r1"), human, scales)
    assert not _same_quantity(grader("j2", "r2"), human, scales)
    assert not _same_quantity(grader("j1b", "r2"), human, scales | {"j1b": (0, 1)})
    assert _same_quantity(grader("numeric"), human, scales)
    assert not _same_quantity(grader("likert"), human, scales)
