"""The headline of `results` and the report: per grade condition the best generate
condition and its lead over the next, checked on tables of realistic cases against
scipy / statsmodels, and through the CLI on a real study against the export."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from itemeval.cli import main
from itemeval.console import render as console
from itemeval.results.compute import study_results
from itemeval.results.headline import headlines
from itemeval.results.options import ResultsOptions
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study


def scores(grade_id: str, by_condition: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        (gen, grade_id, f"q{i}", value)
        for gen, values in by_condition.items()
        for i, value in enumerate(values)
        if value == value
    ]
    return pd.DataFrame(
        rows, columns=["gen_condition_id", "grade_condition_id", "item_id", "score"]
    )


def cells(items: pd.DataFrame) -> list[dict]:
    grouped = items.groupby(["gen_condition_id", "grade_condition_id"], sort=False)
    return [
        {
            "gen_condition_id": gen,
            "grade_condition_id": grade,
            "items": len(group),
            "mean": group["score"].mean(),
        }
        for (gen, grade), group in grouped
    ]


def grader(grade_id: str) -> SimpleNamespace:
    return SimpleNamespace(id=grade_id, slug=f"{grade_id}-slug", kind="verifiable")


def run(items: pd.DataFrame, grade_ids: list[str]) -> list[dict]:
    names = {g: f"{g} | p" for g in items["gen_condition_id"].unique()}
    return headlines(items, cells(items), [grader(g) for g in grade_ids], names)


def test_a_clear_lead_on_zero_one_scores_is_mcnemar_on_the_paired_items():
    rng = np.random.default_rng(7)
    good = (rng.random(60) < 0.92).astype(float)
    weak = (rng.random(60) < 0.45).astype(float)
    fair = (rng.random(60) < 0.40).astype(float)
    [row] = run(scores("g", {"weak": weak, "good": good, "fair": fair}), ["g"])
    assert row["best"] == "good" and row["runner_up"] == "weak"
    diff = good - weak
    low, high = sps.t.interval(
        0.95, len(diff) - 1, loc=diff.mean(), scale=sps.sem(diff)
    )
    table = pd.crosstab(good, weak).reindex(index=[0, 1], columns=[0, 1], fill_value=0)
    p = mcnemar(table.to_numpy(), exact=True).pvalue
    assert math.isclose(row["diff"], diff.mean(), abs_tol=1e-12)
    assert math.isclose(row["ci_low"], low, abs_tol=1e-9)
    assert math.isclose(row["ci_high"], high, abs_tol=1e-9)
    assert row["test"] == "mcnemar_exact" and math.isclose(row["p"], p, abs_tol=1e-12)
    # the lead is one of the three pairs the three conditions make
    family = [(good, weak), (good, fair), (weak, fair)]
    raw = [
        mcnemar(
            pd.crosstab(x, y)
            .reindex(index=[0, 1], columns=[0, 1], fill_value=0)
            .to_numpy(),
            exact=True,
        ).pvalue
        for x, y in family
    ]
    adjusted = multipletests(raw, method="holm")[1][0]
    assert row["pairs"] == 3 and math.isclose(row["p_adjusted"], adjusted)
    assert row["detectable"]
    assert row["text"].startswith("g-slug: good | p is best (")
    assert "ahead of weak | p" in row["text"]
    assert "Holm-adjusted over the 3 pairs, p " in row["text"]


def test_each_grade_condition_adjusts_its_own_pairs():
    """Two graders of the same answers are two measurements, not more comparisons:
    a lead between two conditions is not adjusted for the other grader's lead."""
    rng = np.random.default_rng(11)
    judge_a = rng.integers(3, 6, 40).astype(float)  # a 1-5 judge
    judge_b = np.clip(judge_a - rng.integers(0, 2, 40), 1, 5)
    close = np.clip(judge_a - rng.integers(-1, 2, 40), 1, 5)
    items = pd.concat(
        [
            scores("judge", {"a": judge_a, "b": judge_b}),
            scores("other", {"a": close, "b": judge_a}),
        ]
    )
    rows = run(items, ["judge", "other"])
    raw = []
    for row, (x, y) in zip(rows, [(judge_a, judge_b), (close, judge_a)]):
        if row["best"] != "a":
            x, y = y, x
        raw.append(sps.ttest_rel(x, y).pvalue)
        assert row["test"] == "paired_t" and math.isclose(row["p"], raw[-1])
    for row, p in zip(rows, raw):
        assert row["pairs"] == 1
        assert math.isclose(row["p_adjusted"], p, abs_tol=1e-12)
        assert row["detectable"] == (p < 0.05)


@pytest.mark.parametrize(
    ("conditions", "best", "runner_up", "words"),
    [
        pytest.param(
            {"a": [1, 1, 0, 1, 0, 1], "b": [1, 1, 0, 1, 0, 1]},
            "a",
            "b",
            "no detectable difference between the top two, a | p",
            id="a-tie",
        ),
        pytest.param(
            # b's mean (0.8) is above a's (0.75) over items a lacks; on the four
            # items both have, a is ahead: a leads
            {
                "a": [1, 1, 1, 0] + [float("nan")] * 6,
                "b": [1, 1, 0, 0, 1, 1, 1, 1, 1, 1],
            },
            "a",
            "b",
            "no detectable difference",
            id="ahead-on-the-shared-items",
        ),
        pytest.param(
            {"only": [1, 0, 1]}, "only", None, "(the only condition)", id="alone"
        ),
    ],
)
def test_ties_missing_items_and_a_single_condition(conditions, best, runner_up, words):
    [row] = run(scores("g", conditions), ["g"])
    assert (row["best"], row["runner_up"]) == (best, runner_up)
    assert words in row["text"]
    if runner_up is not None:
        assert row["diff"] >= 0


def test_no_headline_without_scored_cells():
    empty = scores("g", {})
    assert headlines(empty, [], [grader("g")], {}) == []


# ---- through the CLI
# --------------------------------------------------------------------------------------

MAPPING = {"input": "question", "target": "answer", "id": "qid"}
ROWS = [
    {"qid": f"q{i}", "question": f"What is {i} + {i * 7}?", "answer": str(i * 8)}
    for i in range(1, 41)
]


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """arith-good vs arith-weak on 40 items, one replication, scored 0/1."""
    root = tmp_path_factory.mktemp("headline")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "benchmark__mapping": MAPPING,
        }
    )
    path = write_study(root, config, rows=ROWS)
    base = ["-C", str(root)]
    assert main(["generate", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["export", str(path), *base]) == 0
    return path


def results_json(capsys, path: Path) -> dict:
    capsys.readouterr()
    assert main(["results", str(path), "--json", "-C", str(path.parent)]) == 0
    return json.loads(capsys.readouterr().out)


def item_scores(path: Path) -> pd.DataFrame:
    table = pd.read_parquet(path.parent / "studies/t/export/grades_long.parquet")
    current = table[~table["stale"] & table["parse_ok"].fillna(False)]
    return current.groupby(["gen_condition_id", "item_id"])["score"].mean().unstack(0)


def test_results_json_headline_matches_the_export(study, capsys):
    data = results_json(capsys, study)
    [row] = data["headline"]
    assert set(row) == {
        "grade_condition_id",
        "best",
        "best_mean",
        "runner_up",
        "runner_up_mean",
        "n",
        "diff",
        "ci_low",
        "ci_high",
        "test",
        "p",
        "p_adjusted",
        "pairs",
        "detectable",
        "facet",
        "text",
        "doubt",
        "declared",
    }
    assert row["declared"] is False  # no preregistration: nothing is declared
    assert row["doubt"] is None  # a scorer is never doubted as a judge is
    assert row["facet"] is None  # one facet varies: the conditions' row alone
    wide = item_scores(study)
    good = next(c for c in wide.columns if c.startswith("arith-good"))
    weak = next(c for c in wide.columns if c.startswith("arith-weak"))
    assert (row["best"], row["runner_up"]) == (good, weak)
    both = wide[[good, weak]].dropna()
    table = pd.crosstab(both[good], both[weak]).reindex(
        index=[0.0, 1.0], columns=[0.0, 1.0], fill_value=0
    )
    p = mcnemar(table.to_numpy(), exact=True).pvalue
    assert row["n"] == len(both) and math.isclose(row["p_adjusted"], p)
    assert math.isclose(row["diff"], (both[good] - both[weak]).mean())
    assert row["detectable"] and row["text"].startswith(
        "scorer_numeric: arith-good is best ("
    )
    assert data["cell_facets"][good] == {"model": "arith-good"}


def test_default_intervals_are_wilson_and_stay_on_the_scale(study, capsys):
    data = results_json(capsys, study)
    wide = item_scores(study)
    for cell in data["cells"]:
        x = wide[cell["gen_condition_id"]].dropna()
        low, high = proportion_confint(int(x.sum()), len(x), method="wilson")
        assert cell["ci_method"] == "wilson"
        assert math.isclose(cell["ci_low"], low, abs_tol=1e-9)
        assert math.isclose(cell["ci_high"], high, abs_tol=1e-9)
        assert 0.0 <= cell["ci_low"] <= cell["mean"] <= cell["ci_high"] <= 1.0


def test_the_console_opens_with_the_headline(study, capsys):
    out = io.StringIO()
    typed = study_results(load_study(study, study.parent), ResultsOptions())
    assert typed.as_dict() == results_json(capsys, study)
    console.render_results(typed, Console(file=out, width=80))
    lines = out.getvalue().splitlines()
    assert lines[0] == "t: headline"
    assert " ".join(lines[1:4]).startswith("- scorer_numeric: arith-good is best")
    assert max(len(line) for line in lines) <= 80
