"""itemeval.power: variance components, the two closed forms against statsmodels and"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from itemeval.stats import power

# ---- variance components
# -----------------------------------------------------------------------


def test_components_recover_a_simulated_random_effects_model():
    rng = np.random.default_rng(1)
    levels = rng.normal(0.0, 2.0, size=(4000, 1))  # between = 4
    scores = levels + rng.normal(0.0, 1.0, size=(4000, 3))  # within = 1
    found = power.components(scores)
    assert found.items == 4000 and found.replications == 3
    assert found.between == pytest.approx(4.0, rel=0.06)
    assert found.within == pytest.approx(1.0, rel=0.03)


def test_components_match_the_anova_formulas_on_a_small_table():
    scores = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, np.nan], [1.0, 1.0, 1.0]])
    found = power.components(scores)
    means = np.array([2 / 3, 0.0, 1.0])
    squares = (1 / 9 + 4 / 9 + 1 / 9) + 0 + 0
    within = squares / (2 + 1 + 2)
    assert found.within == pytest.approx(within)
    assert found.between == pytest.approx(
        means.var(ddof=1) - within * np.mean([1 / 3, 1 / 2, 1 / 3])
    )


def test_one_replication_has_no_within_variance_and_empty_rows_are_dropped():
    found = power.components(np.array([[1.0], [0.0], [np.nan]]))
    assert (found.items, found.within, found.between) == (2, 0.0, 0.5)


def test_paired_design_reads_covariance_and_discordance():
    a = np.array([[1.0], [1.0], [0.0], [0.0], [1.0]])
    b = np.array([[1.0], [0.0], [0.0], [1.0], [np.nan]])
    design = power.paired_design(a, b)
    assert design.items == 4 and design.binary
    assert design.discordant == pytest.approx(0.5)
    assert design.covariance == pytest.approx(np.cov([1, 1, 0, 0], [1, 0, 0, 1])[0, 1])


# ---- closed forms
# ------------------------------------------------------------------------------

T_CASES = [(0.2, 0.8, 0.05), (0.35, 0.9, 0.05), (0.5, 0.8, 0.01), (0.1, 0.8, 0.05)]


@pytest.mark.parametrize("effect,target,alpha", T_CASES)
def test_paired_t_power_is_statsmodels_ttestpower(effect, target, alpha):
    for n in (5, 40, 300):
        ours = power.paired_t_power(effect, n, alpha)
        theirs = TTestPower().power(effect_size=effect, nobs=n, alpha=alpha)
        if np.isnan(theirs):  # scipy's far tail: statsmodels gives up, the power is ~1
            assert ours == pytest.approx(1.0)
            continue
        assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("effect,target,alpha", T_CASES)
def test_item_count_agrees_with_statsmodels_to_one_item(effect, target, alpha):
    ours = power.items_for_power(
        lambda n: power.paired_t_power(effect, n, alpha), target
    )
    theirs = TTestPower().solve_power(effect_size=effect, power=target, alpha=alpha)
    assert abs(ours - math.ceil(theirs)) <= 1


def test_mcnemar_closed_form_matches_connor_sample_size():
    # Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - d^2))^2 / d^2
    d, psi = 0.1, 0.3
    z_a, z_b = 1.959963984540054, 0.8416212335729143
    expected = math.ceil(
        (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - d * d)) ** 2 / d**2
    )
    found = power.items_for_power(lambda n: power.mcnemar_power(d, psi, n), 0.8)
    assert found == expected


def _population(rng, size=20_000):
    """Item-level success probabilities of two correlated conditions."""
    level = rng.normal(size=size)
    p_a = 1 / (1 + np.exp(-(0.6 + 1.2 * level)))
    p_b = 1 / (1 + np.exp(-(0.25 + 1.2 * level + 0.5 * rng.normal(size=size))))
    return p_a, p_b


def test_simulated_paired_t_power_is_within_three_points_of_the_stated_power():
    rng = np.random.default_rng(7)
    p_a, p_b = _population(rng)
    design = power.PairedDesign(
        a=power.Components(
            len(p_a), p_a.mean(), p_a.var(), (p_a * (1 - p_a)).mean(), 3
        ),
        b=power.Components(
            len(p_b), p_b.mean(), p_b.var(), (p_b * (1 - p_b)).mean(), 3
        ),
        covariance=float(np.cov(p_a, p_b)[0, 1]),
        binary=False,
        discordant=math.nan,
        items=len(p_a),
    )
    detect = float(p_a.mean() - p_b.mean())
    (option,) = power.options(design, detect, replications=(3,))
    assert option.method == "paired_t" and option.power >= 0.8
    sims, n = 4000, option.items
    chosen = rng.integers(0, len(p_a), size=(sims, n))
    mean_a = rng.binomial(3, p_a[chosen]) / 3
    mean_b = rng.binomial(3, p_b[chosen]) / 3
    d = mean_a - mean_b
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    rejected = np.abs(t) > stats.t.isf(0.025, n - 1)
    assert abs(rejected.mean() - option.power) <= 0.03


def test_simulated_mcnemar_power_is_within_three_points_of_the_stated_power():
    rng = np.random.default_rng(11)
    p10, p01 = 0.18, 0.08  # A right and B wrong; B right and A wrong
    n = power.items_for_power(lambda k: power.mcnemar_power(0.1, 0.26, k), 0.8)
    stated = power.mcnemar_power(0.1, 0.26, n)
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=5000)
    b, c = counts[:, 0], counts[:, 1]
    z = (b - c) / np.sqrt(np.maximum(b + c, 1))
    assert abs((np.abs(z) > 1.959963984540054).mean() - stated) <= 0.03


# ---- options
# -----------------------------------------------------------------------------------


def _design(binary=True):
    comp = power.Components(200, 0.6, 0.15, 0.08, 2)
    return power.PairedDesign(comp, comp, 0.1, binary, 0.3 if binary else math.nan, 200)


def test_options_use_mcnemar_for_one_binary_replication_and_t_otherwise():
    found = power.options(
        _design(), 0.1, replications=(1, 2, 4), supply=power.Supply(usd_per_cell=0.01)
    )
    assert [o.method for o in found] == ["mcnemar", "paired_t", "paired_t"]
    assert all(o.power >= 0.8 for o in found)
    assert [o.usd for o in found] == pytest.approx(
        [o.items * o.replications * 0.01 for o in found]
    )
    more = [o.items for o in found[1:]]
    assert more == sorted(more, reverse=True)  # replications trade for items


def test_recommended_is_the_cheapest_feasible_option():
    found = power.options(
        _design(False),
        0.1,
        replications=(1, 2, 5),
        supply=power.Supply(usd_per_cell=0.01, available=150),
    )
    best = power.recommended(found)
    assert best is not None and best.feasible and best.items <= 150
    assert best.usd == min(o.usd for o in found if o.feasible)


def test_no_option_reaches_an_impossible_power_quickly():
    comp = power.Components(10, 0.5, 0.25, 0.25, 1)
    design = power.PairedDesign(comp, comp, 0.0, False, math.nan, 10)
    assert power.options(design, 1e-6, replications=(1,)) == []
