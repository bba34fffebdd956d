"""itemeval.stats against independent implementations (scipy, statsmodels,
scikit-learn, krippendorff), on random data and on the edges: n = 1, all equal, all
missing, one class, ties."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats as sps
from sklearn.metrics import brier_score_loss, cohen_kappa_score, roc_auc_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from itemeval.stats import agreement as agreement_stats
from itemeval.stats import intervals as stats
from itemeval.stats import paired as paired_tests
from itemeval.stats import reducers

TOL = 1e-9
RNG = np.random.default_rng(20261123)


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOL


def random_scores(n: int, kind: str) -> np.ndarray:
    if kind == "binary":
        return RNG.integers(0, 2, n).astype(float)
    if kind == "scale":
        return RNG.integers(0, 11, n).astype(float)
    return RNG.random(n)


SAMPLES = [
    np.array(values, dtype=float)
    for values in (
        [1.0],
        [0.0, 0.0, 0.0],
        [1.0, 1.0],
        [0.5, 0.5, 0.5, 0.5],
        [0, 1],
        [0, 1, 1, 0, 1, 1, 1],
        [3.0, 7.0, 7.0, 10.0],
        [np.nan, 1.0, 0.0, np.nan, 1.0],
    )
] + [
    random_scores(n, kind)
    for n in (2, 5, 30, 400)
    for kind in ("binary", "scale", "continuous")
]


@pytest.mark.parametrize("values", SAMPLES, ids=range(len(SAMPLES)))
def test_t_interval_is_scipys(values):
    x = values[~np.isnan(values)]
    interval = stats.t_interval(values)
    assert interval.n == len(x) and close(interval.mean, float(np.mean(x)))
    if len(x) < 2:
        assert math.isnan(interval.se) and math.isnan(interval.ci_low)
        return
    se = float(sps.sem(x))
    assert close(interval.se, se)
    if se == 0:
        assert interval.ci_low == interval.ci_high == interval.mean
    else:
        low, high = sps.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=se)
        assert close(interval.ci_low, low) and close(interval.ci_high, high)


@pytest.mark.parametrize(
    "values", [v for v in SAMPLES if stats.is_binary(v[~np.isnan(v)])]
)
def test_wilson_interval_is_statsmodels(values):
    x = values[~np.isnan(values)]
    interval = stats.wilson_interval(values)
    low, high = proportion_confint(int(x.sum()), len(x), alpha=0.05, method="wilson")
    assert (
        close(interval.ci_low, low)
        and close(interval.ci_high, high)
        and close(interval.mean, x.mean())
    )


def test_wilson_refuses_scores_that_are_not_zero_or_one():
    with pytest.raises(ValueError, match="0/1"):
        stats.wilson_interval([0.5, 1.0])


def test_bootstrap_resamples_items_reproducibly_and_brackets_the_mean():
    values = random_scores(200, "continuous")
    first, again = (
        stats.bootstrap_interval(values, seed=7),
        stats.bootstrap_interval(values, seed=7),
    )
    assert first == again and first.ci_low < first.mean < first.ci_high
    reference = sps.bootstrap(
        (values,), np.mean, n_resamples=4000, method="percentile", random_state=1
    )
    assert abs(first.ci_low - reference.confidence_interval.low) < 0.02
    assert abs(first.se - float(sps.sem(values))) < 0.003
    assert stats.bootstrap_interval([np.nan, np.nan]).n == 0


def test_cells_bootstrapped_together_get_each_cell_its_own_interval():
    rng = np.random.default_rng(3)
    cells = [
        rng.integers(0, 2, 50).astype(float),
        rng.random(50),
        np.array([np.nan, np.nan]),
        np.concatenate([rng.random(49), [np.nan]]),  # 49 observed: its own draw
        rng.random(1),
        np.array([]),
    ]
    together = stats.bootstrap_intervals(cells, seed=11)
    alone = [stats.bootstrap_interval(values, seed=11) for values in cells]
    assert len(together) == len(cells)
    for mine, reference in zip(together, alone):
        assert mine.n == reference.n and mine.method == "bootstrap"
        for field in ("mean", "se", "ci_low", "ci_high"):
            a, b = getattr(mine, field), getattr(reference, field)
            assert (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-12, field


def test_empty_input_gives_missing_not_an_error():
    for method in stats.INTERVALS.values():
        interval = method([np.nan])
        assert interval.n == 0 and math.isnan(interval.mean)


# ---- reducers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "reducer", "expected"),
    [
        ([1, 0, 1], "mean", 2 / 3),
        ([1, 0, 1, 1], "median", 1.0),
        ([0.2, 0.7, 0.7], "mode", 0.7),
        ([0.2, 0.7], "mode", 0.2),
        ([0, 0.5, 1], "max", 1.0),
        ([0, 0.5, 1], "min", 0.0),
        ([1, 0, 1], "majority", 1.0),
        ([1, 0], "majority", 0.0),
        ([1, np.nan, 1], "mean", 1.0),
        ([np.nan, np.nan], "mean", np.nan),
        ([1, 0, 0], "at_least:1", 1.0),
        ([1, 0, 0], "at_least:2", 0.0),
        ([1, 0, 0, 0, 0], "pass@1", 0.2),
        ([1, 0, 0, 0, 0], "pass@2", 1 - math.comb(4, 2) / math.comb(5, 2)),
        ([1, 1, 1, 0, 0], "pass@3", 1 - math.comb(2, 3) / math.comb(5, 3)),
        ([0, 0, 0], "pass@2", 0.0),
        ([1, 0], "pass@3", np.nan),
        ([1, np.nan, np.nan], "pass@2", np.nan),
    ],
)
def test_reducers(values, reducer, expected):
    assert close(reducers.reduce_item(values, reducer), expected)


def test_pass_at_k_matches_the_brute_force_average_over_subsets():
    from itertools import combinations

    for n, c, k in [(5, 2, 2), (6, 3, 3), (4, 0, 1), (7, 7, 4), (8, 1, 5)]:
        outcomes = [1] * c + [0] * (n - c)
        subsets = list(combinations(range(n), k))
        brute = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
        assert close(reducers.pass_at_k(n, c, k), brute)


@pytest.mark.parametrize("spec", ["pass@0", "pass@", "at_least:x", "avg", "pass@-1"])
def test_unknown_reducers_name_the_valid_ones(spec):
    with pytest.raises(ValueError, match="mean, median"):
        reducers.parse_reducer(spec)


# ---- paired comparisons
# --------------------------------------------------------------------------------------

PAIRS = [
    (random_scores(n, kind), random_scores(n, kind))
    for n in (3, 12, 80, 500)
    for kind in ("binary", "scale", "continuous")
]
PAIRS += [
    (np.array([1.0, 0, 1, 1]), np.array([1.0, 0, 1, 1])),
    (np.array([1.0, 1, 1]), np.array([0.0, 0, 0])),
    (np.array([1.0, np.nan, 0, 1]), np.array([0.0, 1, np.nan, 1])),
    (np.array([0.3, 0.9]), np.array([0.1, 0.4])),
]


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=range(len(PAIRS)))
def test_paired_comparison_is_scipy_and_statsmodels(a, b):
    result = paired_tests.paired(a, b)
    both = ~(np.isnan(a) | np.isnan(b))
    x, y = a[both], b[both]
    assert result.n == len(x) and close(result.diff, float(np.mean(x - y)))
    if len(x) > 1 and np.ptp(x - y) > 0:
        assert close(result.se, float(sps.sem(x - y)))
    if stats.is_binary(x) and stats.is_binary(y):
        table = [
            [int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())],
            [int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())],
        ]
        assert result.test == "mcnemar_exact" and close(
            result.p, float(mcnemar(table, exact=True).pvalue)
        )
    else:
        assert result.test == "paired_t" and close(
            result.p, float(sps.ttest_rel(x, y).pvalue)
        )
    if len(x) > 1 and np.ptp(x) > 0 and np.ptp(y) > 0:
        assert close(result.correlation, float(sps.pearsonr(x, y).statistic))


def test_holm_is_statsmodels_and_keeps_missing_p_values_out():
    for p in (
        RNG.random(6),
        np.array([0.01, 0.04, 0.03, 0.2]),
        np.array([0.5]),
        np.array([0.001, 0.001, 0.9]),
    ):
        expected = multipletests(p, method="holm")[1]
        assert all(
            close(got, want) for got, want in zip(paired_tests.holm(p), expected)
        )
    adjusted = paired_tests.holm([0.01, np.nan, 0.04])
    assert (
        math.isnan(adjusted[1])
        and close(adjusted[0], 0.02)
        and close(adjusted[2], 0.04)
    )


# ---- agreement
# --------------------------------------------------------------------------------------

RATINGS = [
    (random_scores(n, kind), random_scores(n, kind))
    for n in (5, 40, 300)
    for kind in ("binary", "scale")
]
RATINGS += [
    (np.array([1.0, 2, 3, 4]), np.array([1.0, 2, 3, 4])),
    (np.array([0.0, 0, 1, 1]), np.array([0.0, 1, 0, 1])),
    (np.array([2.0, 4, 6, 10]), np.array([4.0, 4, 6, 8])),
    (np.array([1.4, 2.6, 3.5]), np.array([1.0, 3.0, 3.4])),
]


@pytest.mark.parametrize(("a", "b"), RATINGS, ids=range(len(RATINGS)))
def test_agreement_is_scipy_sklearn_and_krippendorff(a, b):
    result = agreement_stats.agreement(a, b)
    assert result.n == len(a) and close(result.exact, float((a == b).mean()))
    assert close(result.spearman, float(sps.spearmanr(a, b).statistic))
    kappa = cohen_kappa_score(
        np.rint(a).astype(int), np.rint(b).astype(int), weights="quadratic"
    )
    assert close(result.kappa_quadratic, float(kappa))
    alpha = krippendorff.alpha(
        reliability_data=np.vstack([a, b]), level_of_measurement="interval"
    )
    assert close(result.alpha_interval, float(alpha))


def test_agreement_edges():
    same = agreement_stats.agreement([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    assert (
        same.exact == 1.0
        and math.isnan(same.spearman)
        and math.isnan(same.kappa_quadratic)
    )
    assert math.isnan(same.alpha_interval)
    assert agreement_stats.agreement([np.nan], [1.0]).n == 0
    assert agreement_stats.threshold_confusion(
        np.array([1.0, 0, 1, np.nan]), np.array([1.0, 1, 0, 0]), 0.5
    ) == {"both_pass": 1, "a_only": 1, "b_only": 1, "both_fail": 0}


# ---- calibration
# --------------------------------------------------------------------------------------

CALIBRATION = [
    (RNG.random(n), RNG.integers(0, 2, n).astype(float)) for n in (10, 100, 1000)
]
CALIBRATION += [
    (np.array([0.9, 0.8, 0.3, 0.1]), np.array([1.0, 1, 0, 0])),
    (np.array([0.5, 0.5, 0.5, 0.5]), np.array([1.0, 0, 1, 0])),  # ties
    (np.array([0.0, 1.0, 1.0]), np.array([0.0, 1, 1])),
]


@pytest.mark.parametrize(("p", "y"), CALIBRATION, ids=range(len(CALIBRATION)))
def test_calibration_is_sklearn_and_the_ece_definition(p, y):
    result = agreement_stats.calibration(p, y)
    assert close(result.brier, float(brier_score_loss(y, p)))
    assert close(result.auc, float(roc_auc_score(y, p)))
    edges = np.linspace(0, 1, 11)
    expected = 0.0
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (p >= low) & ((p < high) | (high == 1.0))
        if inside.any():
            expected += inside.sum() / len(p) * abs(y[inside].mean() - p[inside].mean())
    assert close(result.ece, expected)
    assert sum(point["count"] for point in result.reliability) == len(p)
    order = np.argsort(p, kind="stable")
    mass = sum(
        len(g) / len(p) * abs(y[g].mean() - p[g].mean())
        for g in np.array_split(order, 10)
        if len(g)
    )
    assert close(result.ece_equal_mass, mass)


def test_calibration_with_one_class_has_no_auc():
    result = agreement_stats.calibration([0.2, 0.9], [1.0, 1.0])
    assert math.isnan(result.auc) and close(result.brier, (0.64 + 0.01) / 2)
    assert agreement_stats.calibration([], []).n == 0


@pytest.mark.parametrize("seed", range(6))
def test_paired_p_values_are_the_p_of_paired_for_every_pair(seed):
    """Columns of 0/1 scores, of 1-5 scores, with missing items, a constant column
    and a copy: each pair's p equals paired_tests.paired's."""
    rng = np.random.default_rng(seed)
    n = 40
    columns = np.column_stack(
        [
            (rng.random(n) < 0.7).astype(float),
            (rng.random(n) < 0.4).astype(float),
            rng.integers(1, 6, n).astype(float),
            rng.integers(1, 6, n).astype(float),
            np.ones(n),
            np.ones(n),
            np.full(n, 3.0),
        ]
    )
    columns[rng.random(columns.shape) < 0.15] = np.nan
    columns[:, 3] = columns[:, 2] + 1  # a constant difference: p 0
    pairs = [(i, j) for i in range(7) for j in range(i + 1, 7)]
    got = paired_tests.paired_p_values(columns, pairs)
    for (i, j), p in zip(pairs, got):
        expected = paired_tests.paired(columns[:, i], columns[:, j]).p
        assert (p != p and expected != expected) or math.isclose(
            p, expected, rel_tol=1e-9, abs_tol=1e-12
        ), (i, j, p, expected)


@pytest.mark.parametrize("seed", range(4))
def test_paired_many_is_paired_for_every_pair(seed):
    rng = np.random.default_rng(seed)
    n = 30
    columns = np.column_stack(
        [
            (rng.random(n) < 0.6).astype(float),
            (rng.random(n) < 0.5).astype(float),
            rng.integers(1, 6, n).astype(float),
            rng.normal(3, 1, n),
            np.full(n, np.nan),
        ]
    )
    columns[rng.random(columns.shape) < 0.2] = np.nan
    columns[:2, 4] = [1.0, 0.0]  # one shared item at most: no interval
    pairs = [(i, j) for i in range(5) for j in range(5) if i != j]
    for (i, j), got in zip(pairs, paired_tests.paired_many(columns, pairs)):
        want = paired_tests.paired(columns[:, i], columns[:, j])
        assert got.n == want.n and got.test == want.test, (i, j)
        for name in ("diff", "se", "ci_low", "ci_high", "correlation", "p"):
            g, w = getattr(got, name), getattr(want, name)
            assert (g != g and w != w) or math.isclose(
                g, w, rel_tol=1e-9, abs_tol=1e-12
            ), (i, j, name, g, w)


@pytest.mark.parametrize(
    "values",
    [
        [3.0, 1.0, 2.0],
        [1.0, 1.0, 1.0],
        [0.0, 1.0, 1.0, 0.0, 1.0],
        [5.0, 2.0, 5.0, 2.0, 3.5, 5.0],
        [0.25],
        [],
    ],
)
def test_average_ranks_are_scipys_rankdata(values):
    from itemeval.stats.agreement import average_ranks

    assert list(average_ranks(np.array(values))) == list(sps.rankdata(values))


@pytest.mark.parametrize(
    ("scores", "reducer", "top", "expected"),
    [
        ([3, 1, 3], "majority", 3.0, 1.0),  # two of three at full credit
        ([3, 1, 1], "majority", 3.0, 0.0),  # 1 of 3 is no pass on a 0-3 sum
        ([1, 1, 1], "majority", 5.0, 0.0),  # the floor of a 1-5 scale
        ([1, 0, 1], "majority", 1.0, 1.0),
        ([3, 2, 1, 3], "at_least:2", 3.0, 1.0),
        ([3, 2, 1, 2], "at_least:2", 3.0, 0.0),
        ([3, 0, 0], "pass@1", 3.0, 1 / 3),
    ],
)
def test_a_replication_is_correct_at_the_top_of_its_scale(
    scores, reducer, top, expected
):
    got = reducers.reduce_item(np.asarray(scores, dtype=float), reducer, top)
    assert math.isclose(got, expected)
