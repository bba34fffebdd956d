"""`results --compare A B --by model` (SPEC §27): levels of a facet compared paired by
item, each item averaged over the other facets, checked against scipy; the headline
leads with the facet that varies most, and never prints a zero-width interval
without saying why."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from itemeval.cli import main
from itemeval.study.load import load_study
from tests.helpers import ARITH, base_config, cli_json, write_study

QUIET = ["--yes", "--display", "none"]
ROWS = [
    {"qid": f"f{i:02d}", "question": f"What is {i} + {2 * i}?", "answer": str(3 * i)}
    for i in range(1, 13)
]


@pytest.fixture(scope="module")
def crossed(tmp_path_factory):
    """Two models × two prompts × two replications over twelve items."""
    root = tmp_path_factory.mktemp("crossed")
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "q.md").write_text("Question: {input}\nANSWER: <n> at the end.")
    config = write_study(
        root,
        base_config(
            solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
            facets__prompt=["p", "q"],
            facets__replications=2,
            benchmark__mapping={"input": "question", "target": "answer", "id": "qid"},
        ),
        rows=ROWS,
    )
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    return config


def _by_model(config) -> pd.DataFrame:
    """Item × model: each item's mean numeric score over prompts and replications."""
    study = load_study(config)
    grades = pd.read_parquet(study.paths.grades)
    models = {c.id: c.model for c in study.generate}
    grades["model"] = grades["gen_condition_id"].map(models)
    per_condition = grades.groupby(["item_id", "gen_condition_id", "model"])[
        "score"
    ].mean()
    return per_condition.groupby(["item_id", "model"]).mean().unstack("model")


def test_two_models_are_compared_over_the_items_as_scipy_would(crossed, capsys):
    code, data, _ = cli_json(
        capsys,
        "results",
        str(crossed),
        "--by",
        "model",
        "--compare",
        "arith-good",
        "arith-weak",
        "--ci",
        "t",
        "--json",
    )
    assert code == 0
    (row,) = data["comparisons"]
    assert (row["facet"], row["a"], row["b"]) == (
        "model",
        "itemeval/arith-good",
        "itemeval/arith-weak",
    )
    table = _by_model(crossed)
    diff = (table["itemeval/arith-good"] - table["itemeval/arith-weak"]).to_numpy()
    assert row["n"] == len(ROWS)
    assert row["diff"] == pytest.approx(diff.mean())
    if row["test"] == "paired_t":
        expected = sps.ttest_rel(
            table["itemeval/arith-good"], table["itemeval/arith-weak"]
        )
        assert row["p"] == pytest.approx(expected.pvalue, rel=1e-6)
        half = sps.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
        assert row["ci_low"] == pytest.approx(diff.mean() - half)


def test_compare_all_by_a_facet_holds_every_pair_of_levels(crossed, capsys):
    code, data, _ = cli_json(
        capsys, "results", str(crossed), "--by", "prompt", "--compare", "all", "--json"
    )
    assert code == 0
    assert [(r["facet"], r["a"], r["b"]) for r in data["comparisons"]] == [
        ("prompt", "p", "q")
    ]


def test_an_unknown_level_names_the_levels(crossed, capsys):
    code, _, err = cli_json(
        capsys, "results", str(crossed), "--by", "model", "--compare", "x", "y"
    )
    assert code == 2
    assert "nor is it a model" in err and "itemeval/arith-good" in err


def test_the_headline_leads_with_the_facet_that_varies_most(crossed, capsys):
    code, data, _ = cli_json(capsys, "results", str(crossed), "--json")
    assert code == 0
    first, second = data["headline"][:2]
    assert first["facet"] == "model" and second["facet"] is None
    assert first["best"] == "itemeval/arith-good"
    assert first["text"].startswith("scorer_numeric, by model: arith-good")
    table = _by_model(crossed)
    assert first["best_mean"] == pytest.approx(table["itemeval/arith-good"].mean())


def test_identical_conditions_say_why_there_is_no_interval(tmp_path, capsys):
    """Two prompts that render alike at temperature 0: every item scores the same
    under both, and the headline says so instead of "95% CI +0.000 to +0.000"."""
    (tmp_path / "prompts").mkdir(parents=True)
    (tmp_path / "prompts" / "q.md").write_text("Q: {input}\nEnd with ANSWER: <n>.")
    config = write_study(
        tmp_path,
        base_config(facets__prompt=["p", "q"], solvers__temperature=0.0),
        rows=ARITH,
    )
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    code, data, _ = cli_json(capsys, "results", str(config), "--json")
    (row,) = data["headline"]
    assert row["ci_low"] == row["ci_high"]
    assert "+0.000 to +0.000" not in row["text"]
    assert "no interval: the two scored every one of these items alike" in row["text"]
