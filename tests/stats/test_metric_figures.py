"""Global metrics: every figure equals scikit-learn / scipy / sacrebleu on the same data
to 1e-9, and the item bootstrap behaves (same resamples per cell, CIs cover and
shrink)."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from scipy import stats as scipy_stats
from sklearn import metrics as sk

from itemeval.stats.correlations import Kendall, Pearson, Spearman
from itemeval.stats.metric_figures import Classification, Corpus, Mean
from itemeval.stats.resample import percentile_interval, resample_counts

pytestmark = pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")


def _point(figure, n_items):
    return float(figure.values(np.ones((1, n_items)))[0])


def _imbalanced(seed=0, items=300, epochs=3):
    """Four classes at 70/20/8/2 %, a model right ~75 % of the time, and some answers
    that are no class at all (empty, or a label the targets never use)."""
    rng = np.random.default_rng(seed)
    classes = np.array(["a", "b", "c", "d"])
    truth = rng.choice(classes, size=items, p=[0.7, 0.2, 0.08, 0.02])
    item_of_row = np.repeat(np.arange(items), epochs)
    true = truth[item_of_row]
    pred = np.where(rng.random(len(true)) < 0.75, true, rng.choice(classes, len(true)))
    junk = rng.random(len(true))
    pred = np.where(junk < 0.04, "", np.where(junk > 0.98, "zz", pred))
    return item_of_row, items, list(pred), list(true)


SKLEARN = {
    "f1_macro": lambda t, p, labels: sk.f1_score(
        t, p, labels=labels, average="macro", zero_division=0
    ),
    "f1_micro": lambda t, p, labels: sk.f1_score(
        t, p, labels=labels, average="micro", zero_division=0
    ),
    "precision_macro": lambda t, p, labels: sk.precision_score(
        t, p, labels=labels, average="macro", zero_division=0
    ),
    "recall_macro": lambda t, p, labels: sk.recall_score(
        t, p, labels=labels, average="macro", zero_division=0
    ),
    "balanced_accuracy": lambda t, p, labels: sk.balanced_accuracy_score(t, p),
}


@pytest.mark.parametrize("metric", list(SKLEARN))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_classification_equals_scikit_learn(metric, seed):
    item_of_row, items, pred, true = _imbalanced(seed)
    figure = Classification.prepare(item_of_row, items, pred, true, metric)
    expected = SKLEARN[metric](true, pred, sorted(set(true)))
    assert _point(figure, items) == pytest.approx(expected, abs=1e-9)


def _many_classes(seed=0, items=120, epochs=2):
    """Numbers as labels, as arithmetic answers are: ~60 classes of one or two items,
    a model right a third of the time, so most classes have no right answer."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 60, items).astype(str)
    item_of_row = np.repeat(np.arange(items), epochs)
    true = truth[item_of_row]
    wrong = (true.astype(int) + rng.integers(1, 4, len(true))).astype(str)
    pred = np.where(rng.random(len(true)) < 0.33, true, wrong)
    return item_of_row, items, list(pred), list(true)


@pytest.mark.parametrize("cells", [_imbalanced(3, items=80), _many_classes(4)])
def test_classification_on_a_resample_equals_scikit_learn_on_the_drawn_rows(cells):
    item_of_row, items, pred, true = cells
    counts = next(resample_counts(items, seed=7, resamples=5))
    for metric in SKLEARN:
        figure = Classification.prepare(item_of_row, items, pred, true, metric)
        got = figure.values(counts)
        for b in range(5):
            take = np.repeat(np.arange(len(true)), counts[b][item_of_row].astype(int))
            t, p = [true[i] for i in take], [pred[i] for i in take]
            labels = sorted(set(t))  # the classes the resample drew
            assert got[b] == pytest.approx(SKLEARN[metric](t, p, labels), abs=1e-9)


@pytest.mark.parametrize("metric", ["precision", "recall"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_precision_and_recall_per_class_equal_scikit_learn(metric, seed):
    item_of_row, items, pred, true = _imbalanced(seed)
    figure = Classification.prepare(item_of_row, items, pred, true, metric)
    labels = sorted(set(true))
    # zero_division=nan: a class nothing was predicted as has no precision
    expected = sk.precision_recall_fscore_support(
        true, pred, labels=labels, average=None, zero_division=np.nan
    )[0 if metric == "precision" else 1]
    got = figure.values(np.ones((1, items)))[0]
    assert figure.classes == tuple(labels)
    assert got == pytest.approx(expected, abs=1e-9, nan_ok=True)
    counts = next(resample_counts(items, seed=5, resamples=4))
    for b, row in enumerate(figure.values(counts)):  # and on each resample
        take = np.repeat(np.arange(len(true)), counts[b][item_of_row].astype(int))
        t, p = [true[i] for i in take], [pred[i] for i in take]
        drawn = sk.precision_recall_fscore_support(
            t, p, labels=labels, average=None, zero_division=np.nan
        )[0 if metric == "precision" else 1]
        # a class not drawn has no recall, one not predicted no precision
        present = np.isin(labels, p if metric == "precision" else t)
        assert row[present] == pytest.approx(drawn[present], abs=1e-9)
        assert np.isnan(row[~present]).all()


def _numbers(seed=0, items=200, epochs=2, ties=True):
    rng = np.random.default_rng(seed)
    target = rng.integers(1, 6, items).astype(float)  # a 1-5 scale: many ties
    item_of_row = np.repeat(np.arange(items), epochs)
    y = target[item_of_row]
    x = y + rng.normal(0, 1.2, len(y))
    if ties:
        x = np.round(x)
    return item_of_row, items, x + 1e6, y  # offset: the moments must stay exact


@pytest.mark.parametrize(
    "figure_class, reference",
    [
        (Pearson, lambda x, y: scipy_stats.pearsonr(x, y).statistic),
        (Spearman, lambda x, y: scipy_stats.spearmanr(x, y).statistic),
        (Kendall, lambda x, y: scipy_stats.kendalltau(x, y).statistic),
    ],
)
@pytest.mark.parametrize("ties", [True, False])
def test_correlations_equal_scipy_with_ties_and_on_resamples(
    figure_class, reference, ties
):
    item_of_row, items, x, y = _numbers(ties=ties)
    figure = figure_class.prepare(item_of_row, items, x, y)
    assert _point(figure, items) == pytest.approx(reference(x, y), abs=1e-9)
    counts = next(resample_counts(items, seed=3, resamples=4))
    got = figure.values(counts)
    for b in range(4):
        times = counts[b][item_of_row].astype(int)
        expected = reference(np.repeat(x, times), np.repeat(y, times))
        assert got[b] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("pairwise_rows", [10, 1_500])
def test_kendall_per_resample_equals_scipy_by_either_path(monkeypatch, pairwise_rows):
    """tau-b as one (n × n) product over all resamples, or by scipy per resample for a
    larger cell: the same figures, ties and repeated rows included."""
    from itemeval.stats import correlations as figures

    monkeypatch.setattr(figures, "_PAIRWISE_ROWS", pairwise_rows)
    item_of_row, items, x, y = _numbers(seed=4, items=60, epochs=3)
    figure = Kendall.prepare(item_of_row, items, x, y)
    counts = next(resample_counts(items, seed=1, resamples=6))
    for b, got in enumerate(figure.values(counts)):
        times = counts[b][item_of_row].astype(int)
        want = scipy_stats.kendalltau(np.repeat(x, times), np.repeat(y, times))
        assert got == pytest.approx(want.statistic, abs=1e-9)


def test_a_constant_prediction_has_no_correlation():
    item_of_row = np.arange(5)
    figure = Pearson.prepare(item_of_row, 5, np.ones(5), np.arange(5.0))
    assert np.isnan(_point(figure, 5))


HYPOTHESES = [
    "The cat sat on the mat.",
    "",
    "A quick brown fox jumps over the lazy dog.",
    "It is raining today.",
    "Das ist gut.",
    "the the the the",
]
REFERENCES = [
    ["The cat is sitting on the mat.", "A cat sat on the mat."],
    ["Nothing was said."],
    ["The quick brown fox jumped over the lazy dog."],
    ["Today it rains.", "It rains today."],
    ["That is good."],
    ["The end."],
]


@pytest.mark.parametrize(
    "metric", [BLEU(), CHRF(), CHRF(word_order=2)], ids=["bleu", "chrf", "chrf++"]
)
def test_corpus_metrics_equal_sacrebleu(metric):
    items = len(HYPOTHESES)
    figure = Corpus.prepare(np.arange(items), items, metric, HYPOTHESES, REFERENCES)
    streams = [
        [refs[i] if i < len(refs) else None for refs in REFERENCES] for i in (0, 1)
    ]
    expected = type(metric)(**_settings(metric)).corpus_score(HYPOTHESES, streams)
    assert _point(figure, items) == pytest.approx(expected.score / 100, abs=1e-9)
    counts = next(resample_counts(items, seed=1, resamples=3))
    for b, value in enumerate(figure.values(counts)):
        take = np.repeat(np.arange(items), counts[b].astype(int))
        hyps = [HYPOTHESES[i] for i in take]
        refs = [
            [REFERENCES[i][j] if j < len(REFERENCES[i]) else None for i in take]
            for j in (0, 1)
        ]
        again = type(metric)(**_settings(metric)).corpus_score(hyps, refs)
        assert value == pytest.approx(again.score / 100, abs=1e-9)


def _settings(metric):
    return {"word_order": metric.word_order} if isinstance(metric, CHRF) else {}


def test_mean_is_the_item_mean():
    scores = np.array([1.0, 0.0, np.nan, 1.0, 1.0])
    figure = Mean.prepare(scores)
    assert _point(figure, 5) == pytest.approx(0.75) and figure.n == 4


def test_resamples_are_seeded_blocked_and_shared():
    a = np.vstack(list(resample_counts(50, seed=4, resamples=300)))
    b = np.vstack(list(resample_counts(50, seed=4, resamples=300)))
    assert a.shape == (300, 50) and (a.sum(axis=1) == 50).all()
    assert (a == b).all()
    assert not (a == np.vstack(list(resample_counts(50, seed=5, resamples=300)))).all()
    big = list(resample_counts(3_000, seed=0, resamples=2_000))
    assert len(big) > 1 and sum(len(block) for block in big) == 2_000


def test_bootstrap_interval_covers_the_estimate_and_shrinks_with_items():
    widths = []
    for items in (60, 600):
        item_of_row, n, pred, true = _imbalanced(0, items=items, epochs=1)
        figure = Classification.prepare(item_of_row, n, pred, true, "f1_micro")
        values = np.concatenate([figure.values(c) for c in resample_counts(n, seed=0)])
        low, high = percentile_interval(values)
        assert low <= _point(figure, n) <= high
        widths.append(high - low)
    assert widths[1] < widths[0] / 2


def test_classification_resamples_keep_every_class_so_a_rare_one_cannot_inflate_macro():
    """20 items, class c only 3 of them and never predicted. A plain item bootstrap
    sometimes draws no c and averages over two classes, which set the macro F1's upper
    bound (0.63 where the figure is 0.40); within-class resampling keeps every class
    in every resample (0.54), each resample being scikit-learn's figure of its rows."""
    from itemeval.results.metric_rows import MetricOptions
    from itemeval.results.metrics import _bootstrap

    true = ["a"] * 9 + ["b"] * 8 + ["c"] * 3
    pred = ["a"] * 6 + ["b"] * 3 + ["b"] * 5 + ["a"] * 3 + ["a", "b", "a"]
    items = len(true)
    item_of_row = np.arange(items)
    figure = Classification.prepare(item_of_row, items, pred, true, "f1_macro")
    (draws,) = _bootstrap([figure], items, MetricOptions(seed=0))
    point = sk.f1_score(true, pred, average="macro", zero_division=0)
    from itemeval.stats.resample import stratified_counts

    (counts,) = list(stratified_counts(figure.item_class, seed=0))
    for row in range(0, 2000, 97):
        take = np.repeat(item_of_row, counts[row].astype(int))
        drawn_true = [true[i] for i in take]
        assert sorted(set(drawn_true)) == ["a", "b", "c"]
        expected = sk.f1_score(
            drawn_true,
            [pred[i] for i in take],
            labels=["a", "b", "c"],
            average="macro",
            zero_division=0,
        )
        assert draws[row] == pytest.approx(expected, abs=1e-12)
    low, high = percentile_interval(draws)
    assert low <= point <= high and high < 0.58
