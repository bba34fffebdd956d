"""`results --compare all` with declared global metrics: metric(A) − metric(B) for
every pair of generate conditions, recomputed here with numpy resamples (the same seed
and count) and scikit-learn per resample; p-values from those resamples and Holm's
adjustment from statsmodels."""

from __future__ import annotations

import io
import json
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from sklearn import metrics as sk
from statsmodels.stats.multitest import multipletests

from itemeval.cli import main
from itemeval.console.results import render_results
from itemeval.results.compute import study_results
from itemeval.results.options import ResultsOptions
from itemeval.scorers.numeric import read_target_number
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study

# a - b is 1, 2 or 3, imbalanced (half the items are 1): three classes to confuse
ROWS = [
    {
        "qid": f"d{i:02d}",
        "question": f"What is {10 + i} - {10 + i - d}?",
        "answer": str(d),
        "difficulty": "easy",
    }
    for i, d in enumerate([1, 1, 2, 1, 3, 2, 1, 1, 2, 1] * 6)
]
MODELS = ["itemeval/arith-good", "itemeval/arith-fair", "itemeval/arith-weak"]
METRICS = [
    {"name": name, "scorer": "numeric"}
    for name in ("f1_macro", "balanced_accuracy", "pearson")
]
RESAMPLES, SEED = 2_000, 0


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("compare")
    config = base_config(
        **{"solvers__models": MODELS, "metrics": METRICS, "facets__scorer": "numeric"}
    )
    path = write_study(root, config, rows=ROWS)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--display", "none", "-C", str(root)]) == 0
    return path


def _json(capsys, path: Path, *args: str) -> dict:
    capsys.readouterr()
    assert main(["results", str(path), "--json", "-C", str(path.parent), *args]) == 0
    return json.loads(capsys.readouterr().out)


def _number(text) -> float:
    value = read_target_number(text) if isinstance(text, str) and text else None
    return np.nan if value is None else float(value)


def _cells(path: Path) -> dict[str, pd.DataFrame]:
    """Each generate condition's grade rows, one per item (sorted by id), answers
    and targets as numbers (numbers are the labels too)."""
    grades = pd.read_parquet(path.parent / "studies" / "t" / "grades.parquet")
    grades = grades[grades["error"].isna()].merge(
        pd.DataFrame(ROWS), left_on="item_id", right_on="qid"
    )
    return {
        gen_id: cell.sort_values("item_id")
        .assign(x=cell["answer_x"].map(_number), y=cell["answer_y"].map(_number))
        .assign(xl=lambda c: c["x"].map(repr), yl=lambda c: c["y"].map(repr))
        for gen_id, cell in grades.groupby("gen_condition_id")
    }


def _balanced(x: np.ndarray, y: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # predictions that are no target class
        return sk.balanced_accuracy_score(y, x)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a resample of one answer has no r
        return float(np.corrcoef(x, y)[0, 1])


FIGURES = {
    "f1_macro": lambda x, y: sk.f1_score(
        y, x, labels=sorted(set(y)), average="macro", zero_division=0
    ),
    "balanced_accuracy": _balanced,
    "pearson": _pearson,
}


def _columns(name: str) -> list[str]:
    """Numbers for a correlation, labels for the rest ("nan": an unreadable answer)."""
    return ["x", "y"] if name == "pearson" else ["xl", "yl"]


def _figure(name: str, cell: pd.DataFrame) -> float:
    return FIGURES[name](*cell[_columns(name)].to_numpy().T)


def _recomputed(first: pd.DataFrame, second: pd.DataFrame, name: str) -> np.ndarray:
    """The paired bootstrap by hand: numpy's resamples of the shared items (the
    generator, seed and count itemeval documents), the figure of each side on them."""
    shared = sorted(set(first["item_id"]) & set(second["item_id"]))
    sides = [
        (cell.set_index("item_id").loc[shared, _columns(name)].to_numpy().T)
        for cell in (first, second)
    ]
    figure = FIGURES[name]
    drawn = np.random.default_rng(SEED).integers(
        0, len(shared), (RESAMPLES, len(shared))
    )
    return np.array(
        [
            figure(*(v[i] for v in sides[0])) - figure(*(v[i] for v in sides[1]))
            for i in drawn
        ]
    )


def test_compare_all_gives_every_pair_each_metric_as_the_recompute(study, capsys):
    data = _json(capsys, study, "--compare", "all")
    cells = _cells(study)
    generate = [c["gen_condition_id"] for c in data["cells"]]
    pairs = list(combinations(dict.fromkeys(generate), 2))
    assert len(pairs) == 3
    rows = {(r["a"], r["b"], r["metric"]): r for r in data["metrics"] if "a" in r}
    assert set(rows) == {(a, b, m["name"]) for a, b in pairs for m in METRICS}
    for name in FIGURES:
        family = [rows[(a, b, name)] for a, b in pairs]
        for row, (a, b) in zip(family, pairs):
            expected = _figure(name, cells[a]) - _figure(name, cells[b])
            assert row["value"] == pytest.approx(expected, abs=1e-9), (name, a, b)
            assert row["gen_condition_id"] is None and row["items"] == len(ROWS)
            if name == "pearson":  # the whole resample distribution, by hand
                draws = _recomputed(cells[a], cells[b], name)
                draws = draws[np.isfinite(draws)]
                low, high = np.percentile(draws, [2.5, 97.5])
                assert (row["ci_low"], row["ci_high"]) == pytest.approx(
                    (low, high), abs=1e-9
                )
                side = min((draws <= 0).sum(), (draws >= 0).sum())
                p = min(1.0, 2 * (side + 1) / (len(draws) + 1))
                assert row["p"] == pytest.approx(p, abs=1e-12)
            assert row["ci_low"] <= row["value"] <= row["ci_high"]
        holm = multipletests([r["p"] for r in family], method="holm")[1]
        assert [r["p_adjusted"] for r in family] == pytest.approx(list(holm))


def _balanced_resampled(cell: pd.DataFrame, shared: list[str]) -> np.ndarray:
    """Balanced accuracy on each resample of the documented stratified bootstrap
    (items grouped by target class, classes in sorted order; each slot draws an item
    of its class with numpy's default_rng([seed, 1]).integers(0, class size, (R, n))),
    vectorised: per class, the share of its drawn rows answered with it, averaged
    over every class."""
    cell = cell.set_index("item_id").loc[shared]
    n = len(shared)
    labels = sorted(set(cell["yl"]))
    strata = np.array([labels.index(y) for y in cell["yl"]])
    order = np.argsort(strata, kind="stable")
    sizes = np.bincount(strata)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    slot = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng([SEED, 1])
    drawn = order[starts[slot] + rng.integers(0, sizes[slot], (RESAMPLES, n))]
    counts = np.stack([np.bincount(row, minlength=n) for row in drawn])
    recalls = []
    for label in labels:
        of_class = (cell["yl"] == label).to_numpy()
        hit = of_class & (cell["xl"] == label).to_numpy()
        assert ((counts @ of_class) == of_class.sum()).all()  # each class kept whole
        recalls.append((counts @ hit) / (counts @ of_class))
    return np.mean(np.stack(recalls), axis=0)


def test_balanced_accuracy_interval_is_the_numpy_bootstrap(study, capsys):
    data = _json(capsys, study, "--compare", "all")
    cells = _cells(study)
    good, weak = (data["cells"][i]["gen_condition_id"] for i in (0, 2))
    (row,) = [
        r
        for r in data["metrics"]
        if (r.get("a"), r.get("b"), r["metric"]) == (good, weak, "balanced_accuracy")
    ]
    shared = sorted(cells[good]["item_id"])
    draws = _balanced_resampled(cells[good], shared) - _balanced_resampled(
        cells[weak], shared
    )
    low, high = np.percentile(draws, [2.5, 97.5])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-9)
    # arith-good against arith-weak: a lead the interval and p agree on
    assert row["value"] > 0 and row["ci_low"] > 0 and row["p"] < 0.05


def test_a_named_pair_is_the_same_row_as_under_all(study, capsys):
    every = _json(capsys, study, "--compare", "all")
    a, b = (c["gen_condition_id"] for c in every["cells"][1:3])
    named = _json(capsys, study, "--compare", a, b)
    pick = lambda data: {  # noqa: E731
        r["metric"]: {k: v for k, v in r.items() if k != "p_adjusted"}
        for r in data["metrics"]
        if (r.get("a"), r.get("b")) == (a, b)
    }
    assert pick(named) == pick(every) and len(pick(named)) == len(METRICS)
    # one pair per metric under one grade condition: Holm leaves p as it is
    assert all(r["p_adjusted"] == r["p"] for r in named["metrics"] if "a" in r)


def test_the_console_shows_each_pair_with_its_adjusted_p_at_80_columns(study):
    results = study_results(
        load_study(study, study.parent), ResultsOptions(compare=("all",))
    )
    buffer = io.StringIO()
    render_results(results, Console(file=buffer, width=80))
    text = buffer.getvalue()
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    start = next(i for i, line in enumerate(lines) if "metrics A − B" in line)
    assert "Holm-adjusted p" in lines[start]
    table = "\n".join(lines[start : start + 20])
    assert "p adj" in table and "arith-fair" in table and "arith-weak" in table
    pairs = [r for r in results.metrics if r.a is not None]
    adjusted = {f"{r.p_adjusted:.4f}" for r in pairs}
    assert any(p in table for p in adjusted)


def test_the_report_leaves_metric_differences_out(study):
    """The report compares every pair for the means only: a paired bootstrap per
    metric and pair would cost it k(k−1)/2 times a cell's."""
    from itemeval.report.document import _options

    loaded = load_study(study, study.parent)
    results = study_results(loaded, _options(loaded, []))
    assert results.comparisons and results.metrics
    assert not [r for r in results.metrics if r.a is not None]
