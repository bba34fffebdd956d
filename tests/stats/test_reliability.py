"""Test-retest of a judge across draws and its agreement with people, checked
against pingouin, statsmodels and scikit-learn on the same arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from itemeval.stats.draws import draw_matrix
from itemeval.stats.reliability import (
    cohen_kappa,
    fleiss_kappa,
    flip_rate,
    human_agreement,
    icc_2_1,
    item_weights,
    retest,
)


def judged(seed: int, n: int, k: int, noise: float) -> np.ndarray:
    """n answers of true quality on a 1..5 scale, judged k times with noise."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(3, 1, size=(n, 1))
    bias = rng.normal(0, 0.3, size=(1, k))  # a draw that runs harsher
    return np.clip(np.rint(quality + bias + rng.normal(0, noise, (n, k))), 1, 5)


CASES = [(0, 30, 2, 0.5), (1, 50, 3, 1.0), (2, 12, 5, 0.2), (3, 200, 4, 2.0)]


def pingouin_icc_a1(scores: np.ndarray) -> float:
    n, k = scores.shape
    long = pd.DataFrame(
        {
            "target": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": scores.ravel(),
        }
    )
    table = pingouin.intraclass_corr(long, "target", "rater", "score")
    return float(table.set_index("Type").loc["ICC(A,1)", "ICC"])


@pytest.mark.parametrize("seed, n, k, noise", CASES)
def test_icc_is_pingouins_icc2(seed, n, k, noise):
    scores = judged(seed, n, k, noise)
    assert abs(icc_2_1(scores)[0] - pingouin_icc_a1(scores)) < 1e-9


@pytest.mark.parametrize("seed, n, k, noise", CASES)
def test_kappas_are_sklearns_and_statsmodels(seed, n, k, noise):
    verdicts = judged(seed, n, k, noise) >= 3
    sk = cohen_kappa_score(verdicts[:, 0], verdicts[:, 1])
    assert abs(cohen_kappa(verdicts[:, 0], verdicts[:, 1])[0] - sk) < 1e-9
    labels = judged(seed, n, k, noise)  # five categories, k raters
    table, _ = aggregate_raters(labels)
    assert abs(fleiss_kappa(labels)[0] - sm_fleiss(table)) < 1e-9


def test_a_resample_is_the_figure_of_the_resampled_rows():
    """The weighted closed forms equal the figures of the rows drawn (repeated)."""
    scores = judged(7, 40, 3, 0.8)
    items = np.repeat(np.arange(20), 2)  # two answers an item
    weights = item_weights(items, seed=3, resamples=5)
    for w in weights:
        rows = np.repeat(np.arange(len(scores)), w.astype(int))
        drawn = scores[rows]
        assert abs(icc_2_1(scores, w[None])[0] - pingouin_icc_a1(drawn)) < 1e-9
        v = drawn >= 3
        table, _ = aggregate_raters(v.astype(int))
        assert abs(fleiss_kappa(scores >= 3, w[None])[0] - sm_fleiss(table)) < 1e-9
        sk = cohen_kappa_score(v[:, 0], v[:, 1])
        assert abs(cohen_kappa(*(scores[:, :2] >= 3).T, w[None])[0] - sk) < 1e-9


@pytest.mark.parametrize(
    "verdicts, expected",
    [
        ([[1, 1], [0, 0], [1, 0], [0, 1]], 0.5),
        ([[1, 1, 1], [1, 1, 0], [0, 0, 0]], 1 / 3),
        ([[0, 0, 0, 0]], 0.0),
    ],
)
def test_flip_rate_counts_answers_not_unanimous(verdicts, expected):
    assert flip_rate(np.array(verdicts))[0] == pytest.approx(expected)


def test_retest_intervals_hold_the_figures():
    scores = judged(11, 80, 3, 0.7)
    items = np.arange(80) // 2
    card = retest(scores, items, pass_mark=3, seed=1, resamples=500)
    assert card.kappa_kind == "fleiss" and (card.n, card.draws) == (80, 3)
    for figure in (card.icc, card.kappa, card.flip_rate):
        assert figure.ci_low <= figure.value <= figure.ci_high
    assert abs(card.icc.value - pingouin_icc_a1(scores)) < 1e-9


def test_one_draw_leaves_test_retest_undefined():
    card = retest(np.ones((5, 1)), np.arange(5), pass_mark=0.5)
    assert np.isnan(card.icc.value) and np.isnan(card.kappa.value)


def test_human_agreement_is_kappa_and_leniency():
    rng = np.random.default_rng(5)
    human = rng.integers(0, 2, 300).astype(float)
    judge = np.where(rng.random(300) < 0.2, 1.0, human)  # passes 20 % more
    judge[:3] = np.nan
    got = human_agreement(judge, human, np.arange(300), pass_mark=0.5, seed=2)
    keep = ~np.isnan(judge)
    assert got.n == 297
    expected = cohen_kappa_score(judge[keep], human[keep])
    assert abs(got.kappa.value - expected) < 1e-9
    assert got.leniency.value == pytest.approx((judge[keep] - human[keep]).mean())
    assert got.leniency.ci_low > 0


def test_draw_matrix_pivots_draws_and_reads_old_frames_as_draw_one():
    frame = pd.DataFrame(
        {
            "gen_condition_id": ["g"] * 6,
            "item_id": ["a", "a", "b", "b", "c", "c"],
            "epoch": [1] * 6,
            "draw": [1, 2, 2, 1, 1, 2],
            "score": [1.0, 0.0, 1.0, 0.5, 1.0, np.nan],
        }
    )
    matrix, items = draw_matrix(frame)
    assert matrix.tolist() == [[1.0, 0.0], [0.5, 1.0]]
    assert items.tolist() == ["a", "b"]
    old, _ = draw_matrix(frame[frame["draw"] == 1].drop(columns="draw"))
    assert old.shape == (3, 1)
