"""Active labelling's estimator against the published formulas written out here, its
design's probabilities, and a simulation of 1,000 studies: coverage, and the labels
it saves against a uniform queue where the judge's errors concentrate in some cells."""

from __future__ import annotations

import numpy as np
import pytest

from itemeval.stats.active_ppi import (
    PRIOR_WEIGHT,
    Drawn,
    answer_probabilities,
    ipw_ppi_mean,
    stratum_moments,
)
from itemeval.stats.ppi import ppi_mean
from tests.stats.simulated_labelling import Scenario, covered, simulate, widest

TOLERANCE = 1e-9


def _study(seed: int, cells: int = 3, size: int = 40, draws: int = 60):
    """A pool of `cells` cells, the judge's scores of each answer, and draws with
    varied probabilities (as an active queue makes them)."""
    rng = np.random.default_rng(seed)
    cell = np.repeat(np.arange(cells), size)
    human = rng.integers(0, 2, cell.size).astype(float)
    judge = np.where(rng.random(cell.size) < 0.8, human, 1 - human)
    raw = rng.random(cell.size) + 0.1
    p = raw / raw.sum()
    picked = rng.choice(cell.size, draws, p=p)
    return cell, human, judge, p, picked, size


def _reference(judge_cell, drawn, lam):
    """Zrnic & Candès (2024, "Active statistical inference", §3) with PPI++'s lambda
    (Angelopoulos, Duchi & Zrnic 2023) and Hansen & Hurwitz's (1943) weights, one
    draw at a time: theta = lambda mean(f) + (1/T) sum_t (Y - lambda f) / (N_c p_t)
    over the draws in the cell (0 elsewhere)."""
    big_n = len(judge_cell)
    terms = [
        (y - lam * f) / (big_n * p) if inside else 0.0 for inside, y, f, p in drawn
    ]
    return lam * sum(judge_cell) / big_n + sum(terms) / len(terms), terms


def _reference_power(drawn, big_n):
    """Cov(a, b) / Var(b) of a_t = Y w_t, b_t = f w_t (0 outside the cell)."""
    a = [y / (big_n * p) if inside else 0.0 for inside, y, f, p in drawn]
    b = [f / (big_n * p) if inside else 0.0 for inside, y, f, p in drawn]
    t = len(a)
    mean_a, mean_b = sum(a) / t, sum(b) / t
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b)) / (t - 1)
    var = sum((y - mean_b) ** 2 for y in b) / (t - 1)
    return min(max(cov / var, 0.0), 1.0)


@pytest.mark.parametrize("seed", range(5))
def test_the_estimate_is_the_published_formula(seed):
    cell, human, judge, p, picked, size = _study(seed)
    worst = 0.0
    for c in range(3):
        mine = cell == c
        drawn = [(cell[i] == c, human[i], judge[i], p[i]) for i in picked]
        lam = _reference_power(drawn, size)
        expected, terms = _reference(judge[mine], drawn, lam)
        got = ipw_ppi_mean(
            judge[mine],
            Drawn(
                cell[picked] == c, human[picked], judge[picked], 1 / (size * p[picked])
            ),
        )
        mean_t = sum(terms) / len(terms)
        var_terms = sum((x - mean_t) ** 2 for x in terms) / (len(terms) - 1)
        # the judge's part: Var(Y) = lambda^2 var f + 2 lambda Cov(f, r) + Var(r)
        f_bar = judge[mine].mean()
        r = [
            (y - lam * f, f, 1 / (size * q)) if inside else (0.0, 0.0, 0.0)
            for inside, y, f, q in drawn
        ]
        first = sum(x * w for x, _, w in r) / len(r)
        second = sum(x * x * w for x, _, w in r) / len(r)
        cross = sum(x * f * w for x, f, w in r) / len(r) - f_bar * first
        var_f = sum((x - f_bar) ** 2 for x in judge[mine]) / (size - 1)
        spread = lam**2 * var_f + 2 * lam * cross + max(second - first**2, 0.0)
        se = (spread / size + var_terms / len(terms)) ** 0.5
        worst = max(worst, abs(got.mean - expected), abs(got.se - se))
        assert got.power == pytest.approx(lam, abs=TOLERANCE)
    assert worst < TOLERANCE


def test_uniform_draws_at_lambda_one_are_ppi():
    """Angelopoulos et al. (2023, Science) eq. 2: theta = mean_N(f) - mean_n(f - Y)."""
    rng = np.random.default_rng(3)
    judge = rng.integers(0, 4, 200).astype(float)
    labelled = rng.choice(200, 50, replace=False)
    human = np.clip(judge[labelled] + rng.integers(-1, 2, 50), 0, 3)
    ppi = judge.mean() - (judge[labelled] - human).mean()
    drawn = Drawn(np.ones(50, bool), human, judge[labelled], np.ones(50))
    got = ipw_ppi_mean(judge, drawn, power=1.0)
    assert abs(got.mean - ppi) < TOLERANCE
    assert abs(got.mean - ppi_mean(judge, judge[labelled], human).mean) < TOLERANCE


def test_stacked_studies_are_each_their_own():
    cell, human, judge, p, picked, size = _study(0)
    drawn = Drawn(
        cell[picked] == 0, human[picked], judge[picked], 1 / (size * p)[picked]
    )
    one = ipw_ppi_mean(judge[:size], drawn)
    twice = Drawn(*(np.stack([x] * 2) for x in vars(drawn).values()))
    stacked = ipw_ppi_mean(np.stack([judge[:size]] * 2), twice)
    assert np.allclose(stacked.mean, one.mean) and np.allclose(stacked.se, one.se)


def test_too_few_draws_is_undefined():
    got = ipw_ppi_mean(np.ones(5), Drawn([True], [1.0], [1.0], [1.0]))
    assert np.isnan(got.mean) and got.draws == 1


@pytest.mark.parametrize(
    "size, cell_size, moment, share",
    [
        ([10, 10, 20], [20, 20, 20], [0.0, 0.0, 0.0], 0.2),  # nothing known: uniform
        ([10, 10, 20], [20, 20, 20], [0.25, 0.01, 0.04], 0.2),
        ([5, 0, 95], [5, 95, 95], [1.0, 1.0, 0.0], 0.1),  # an empty stratum
        ([30, 70], [100, 100], [0.3, 0.0], 0.0),
    ],
)
def test_answer_probabilities_sum_to_one_and_keep_a_floor(
    size, cell_size, moment, share
):
    p = answer_probabilities(
        np.array(size), np.array(cell_size), np.array(moment), share
    )
    assert (np.array(size) * p).sum() == pytest.approx(1.0)
    full = np.array(size) > 0
    assert (p[full] >= share / sum(size) - 1e-15).all()
    assert (p[~full] == 0).all()


def test_the_stratum_the_judge_misses_in_is_drawn_more():
    p = answer_probabilities(
        np.array([50, 50]), np.array([100, 100]), np.array([0.36, 0.01]), 0.2
    )
    # sqrt(m): 0.6 against 0.1, six times the active share
    assert p[0] / p[1] == pytest.approx((0.1 + 0.8 * 6 / 7) / (0.1 + 0.8 / 7))


def test_stratum_moments_shrink_toward_the_pool():
    got = stratum_moments(np.array([2.0, 0.0]), np.array([4.0, 2.0]), prior=0.25)
    pooled = (2.0 + 0.25) / (6 + 1)
    expected = (np.array([2.0, 0.0]) + PRIOR_WEIGHT * pooled) / (
        np.array([4.0, 2.0]) + PRIOR_WEIGHT
    )
    assert got == pytest.approx(expected)
    assert got[1] > 0  # two agreeing labels do not starve a stratum


def test_a_thousand_studies_cover_and_save_labels():
    """A lenient judge, wrong on 3% of two cells' answers and 30% of two others':
    the 95% interval covers each cell's truth in 93-97% of studies, and the uniform
    queue needs a third more labels and still leaves its widest interval wider."""
    scenario = Scenario()
    active = simulate(scenario, studies=1000, draws=240, share=0.2, seed=0)
    coverage = covered(active, scenario)
    assert 0.93 <= coverage.mean() <= 0.97
    assert (coverage.mean(1) >= 0.92).all()  # no cell pays for the others
    labels = active.labels.mean()
    # the estimate of what a uniform queue needs, as results reports it
    needed = np.array([c.uniform_labels for c in active.cells]).max(0)
    assert 1 - labels / needed.mean() >= 0.25
    # and measured: a uniform queue with 4/3 the labels is still wider
    uniform = simulate(
        scenario, studies=1000, draws=int(240 / 0.75 * 1.1), share=1.0, seed=1
    )
    assert uniform.labels.mean() >= labels / 0.75
    assert widest(uniform).mean() > widest(active).mean()
