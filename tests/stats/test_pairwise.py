"""Pairwise statistics cross-checked against statsmodels, scipy and plain
pandas/numpy recomputations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats as sps

from itemeval.stats import pairwise as ps

TRUE = {"c1": 0.0, "c2": 0.6, "c3": -0.4, "c4": 1.1}
PAIRS = [("c1", "c2"), ("c1", "c3"), ("c2", "c3"), ("c1", "c4"), ("c3", "c4")]


def simulated(items: int = 120, seed: int = 3) -> pd.DataFrame:
    """Verdicts drawn from a Bradley–Terry model with ties, both orders per (pair,
    item)."""
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(items):
        for a, b in PAIRS:
            p = 1 / (1 + math.exp(-(TRUE[a] - TRUE[b])))
            for order in (1, 2):
                u = rng.random()
                winner = "tie" if u < 0.1 else a if u < 0.1 + 0.9 * p else b
                rows.append(
                    {
                        "condition_a": a,
                        "condition_b": b,
                        "item_id": f"i{item}",
                        "epoch": 1,
                        "order": order,
                        "winner": winner,
                        "length_a": int(rng.integers(10, 400)),
                        "length_b": int(rng.integers(10, 400)),
                    }
                )
    return pd.DataFrame(rows)


def glm_strengths(verdicts: pd.DataFrame, ids: list[str]) -> np.ndarray:
    column = {c: k for k, c in enumerate(ids)}
    x = np.zeros((len(verdicts), len(ids)))
    x[np.arange(len(verdicts)), verdicts["condition_a"].map(column)] = 1.0
    x[np.arange(len(verdicts)), verdicts["condition_b"].map(column)] = -1.0
    fit = sm.GLM(ps.a_scores(verdicts), x[:, 1:], family=sm.families.Binomial()).fit(
        tol=1e-13
    )
    return np.concatenate([[0.0], fit.params])


def test_bradley_terry_is_the_logistic_regression_of_statsmodels():
    verdicts = simulated()
    ids = sorted(TRUE)
    fit = ps.strengths(verdicts, ids, resamples=200)
    np.testing.assert_allclose(fit.strength, glm_strengths(verdicts, ids), atol=1e-6)
    assert fit.conditions == ids and fit.strength[0] == 0.0
    assert np.all(fit.ci_low <= fit.strength + 1e-12)
    assert np.all(fit.strength <= fit.ci_high + 1e-12)
    np.testing.assert_allclose(fit.elo, 1000 + 400 / math.log(10) * fit.strength)
    # the truth is inside the intervals of a decent sample
    for k, c in enumerate(ids[1:], start=1):
        assert fit.ci_low[k] < TRUE[c] < fit.ci_high[k]


def test_bootstrap_interval_of_strengths_recomputed_by_resampling_items():
    verdicts = simulated(items=40)
    ids = sorted(TRUE)
    fit = ps.strengths(verdicts, ids, resamples=50, seed=7)
    items = verdicts["item_id"].unique()  # in order of first appearance
    draws = np.random.default_rng(7).integers(0, len(items), size=(50, len(items)))
    fits = []
    for draw in (
        draws
    ):  # each resample: the drawn items' verdicts, an item drawn twice counted twice
        sample = pd.concat(
            [verdicts[verdicts["item_id"] == items[k]] for k in draw],
            ignore_index=True,
        )
        fits.append(glm_strengths(sample, ids))
    low, high = np.quantile(np.array(fits), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(fit.ci_low, low, atol=1e-6)
    np.testing.assert_allclose(fit.ci_high, high, atol=1e-6)


def test_win_rate_flips_first_position_and_length_recomputed_with_pandas():
    verdicts = simulated(items=60)
    pair = verdicts[
        (verdicts["condition_a"] == "c1") & (verdicts["condition_b"] == "c2")
    ]
    result = ps.pair_stats(pair, resamples=300, seed=1)
    score = np.where(
        pair["winner"] == "c1", 1.0, np.where(pair["winner"] == "tie", 0.5, 0.0)
    )
    assert result.n == len(pair) == 120
    assert (result.wins_a, result.ties) == (
        int((pair["winner"] == "c1").sum()),
        int((pair["winner"] == "tie").sum()),
    )
    assert result.win_rate == pytest.approx(score.mean(), abs=1e-12)
    wide = pair.pivot(index="item_id", columns="order", values="winner")
    assert result.flip_rate == pytest.approx((wide[1] != wide[2]).mean(), abs=1e-12)
    decided = pair[pair["winner"] != "tie"]
    first = np.where(decided["order"] == 1, "c1", "c2")
    assert result.first_position_rate == pytest.approx(
        (decided["winner"] == first).mean(), abs=1e-12
    )
    cells = (
        pair.assign(score=score, diff=pair["length_a"] - pair["length_b"])
        .groupby("item_id")[["score", "diff"]]
        .mean()
    )
    expected = sps.pearsonr(cells["diff"], cells["score"])
    assert result.length_corr == pytest.approx(expected.statistic, abs=1e-12)
    # the interval resamples items: recomputed from per-item sums and the same draws
    per_item = pair.assign(score=score).groupby("item_id", sort=False)["score"]
    sums, counts = per_item.sum().to_numpy(), per_item.size().to_numpy()
    draws = np.random.default_rng(1).integers(0, len(sums), size=(300, len(sums)))
    rates = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    low, high = np.quantile(rates, [0.025, 0.975])
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high), abs=1e-12)
    assert result.flags == ()  # a fair, noisy judge favours no position and no length


def test_a_first_position_judge_and_a_longer_answer_judge_are_flagged():
    verdicts = simulated(items=30)
    pair = verdicts[
        (verdicts["condition_a"] == "c1") & (verdicts["condition_b"] == "c2")
    ]
    first = pair.assign(winner=np.where(pair["order"] == 1, "c1", "c2"))
    result = ps.pair_stats(first, resamples=100)
    assert (result.flip_rate, result.first_position_rate, result.win_rate) == (
        1.0,
        1.0,
        0.5,
    )
    assert result.flags == ("position_bias",)
    longer = pair.assign(
        winner=np.where(pair["length_a"] > pair["length_b"], "c1", "c2")
    )
    result = ps.pair_stats(longer, resamples=100)
    assert "length_bias" in result.flags and result.length_corr > 0.6
    assert result.flip_rate == pytest.approx(
        longer.pivot(index="item_id", columns="order", values="winner").pipe(
            lambda w: (w[1] != w[2]).mean()
        )
    )


def test_no_strengths_when_one_condition_never_loses():
    wins = np.array([[0, 5.0, 3.0], [0, 0, 2.0], [0, 1.0, 0]])
    counts = wins + wins.T
    assert np.isnan(ps.bradley_terry(wins, counts)).all()
    wins[1, 0] = (
        1.0  # c2 scored once against c1: every condition now reaches every other
    )
    counts = wins + wins.T
    assert np.isfinite(ps.bradley_terry(wins, counts)).all()


def test_ties_only_give_equal_strengths_and_a_half_win_rate():
    verdicts = simulated(items=10).assign(winner="tie")
    fit = ps.strengths(verdicts, sorted(TRUE), resamples=20)
    np.testing.assert_allclose(fit.strength, 0.0, atol=1e-12)
    pair = verdicts[verdicts["condition_a"] == "c1"].query("condition_b == 'c2'")
    result = ps.pair_stats(pair, resamples=20)
    assert (result.win_rate, result.ties, result.first_position_rate) == (
        0.5,
        20,
        result.first_position_rate,
    )
    assert math.isnan(result.first_position_rate)
