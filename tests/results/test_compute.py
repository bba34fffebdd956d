"""`itemeval results` on a real study (offline models through inspect): every figure
recomputed independently from `export/grades_long.parquet` with pandas, scipy and
statsmodels, as the README tells users to."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from itemeval.cli import main
from itemeval.console import render as console
from itemeval.records import GradeCondition
from itemeval.results import compute as results
from itemeval.results.compute import study_results
from itemeval.results.options import ResultsOptions
from itemeval.study.load import load_study
from tests.helpers import REPO, base_config, write_study

ROWS = [
    {
        "qid": f"q{i}",
        "question": f"What is {i} + {i * 3}?",
        "answer": str(i * 4),
        "difficulty": ["easy", "medium", "hard"][i % 3],
    }
    for i in range(1, 13)
]


def cli(capsys, *args: str) -> tuple[int, dict | None]:
    capsys.readouterr()
    code = main([*args, "--json", "-C", str(Path(args[1]).parent)])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """Two solver models × 2 replications × 12 items, graded by numeric and by the
    offline judge."""
    root = tmp_path_factory.mktemp("results")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__replications": 2,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(
        root,
        config,
        rows=ROWS,
        rubric="Q: {input}\nRef: {target}\nA: {solution}\nScore 1 if right.",
    )
    base = ["-C", str(root)]  # the module's study outlives each test's working dir
    assert main(["generate", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["export", str(path), *base]) == 0
    return path


def export(study: Path) -> pd.DataFrame:
    table = pd.read_parquet(
        study.parent / "studies" / "t" / "export" / "grades_long.parquet"
    )
    current = table[
        ~table["stale"]
        & table["grade_error"].isna()
        & table["parse_ok"].fillna(False)
        & table["in_grid"]
    ]
    return current


def item_means(study: Path) -> pd.Series:
    """The README's recipe: replications reduced per item, then one mean per cell."""
    return (
        export(study)
        .groupby(["gen_condition_id", "grade_condition_id", "item_id"])["score"]
        .mean()
    )


def test_cells_are_the_item_means_of_the_export_with_t_intervals(study, capsys):
    code, data = cli(capsys, "results", str(study), "--ci", "t")
    assert code == 0 and len(data["cells"]) == 4
    means = item_means(study)
    for cell in data["cells"]:
        scores = means.loc[
            (cell["gen_condition_id"], cell["grade_condition_id"])
        ].to_numpy()
        assert cell["items"] == len(scores) and math.isclose(
            cell["mean"], scores.mean(), abs_tol=1e-12
        )
        if scores.std() > 0:
            low, high = sps.t.interval(
                0.95, len(scores) - 1, loc=scores.mean(), scale=sps.sem(scores)
            )
            assert math.isclose(cell["ci_low"], low, abs_tol=1e-9) and math.isclose(
                cell["ci_high"], high, abs_tol=1e-9
            )
        graded = export(study)
        in_cell = graded[
            (graded["gen_condition_id"] == cell["gen_condition_id"])
            & (graded["grade_condition_id"] == cell["grade_condition_id"])
        ]
        assert (
            cell["grades"] == len(in_cell)
            and cell["pending"] == 0
            and cell["errors"] == 0
        )
        assert {"reducer", "ci_method", "parse_failures", "se"} <= set(cell)


def test_wilson_pass_at_and_bootstrap_options(study, capsys):
    code, data = cli(
        capsys, "results", str(study), "--reducer", "max", "--ci", "wilson"
    )
    assert code == 0
    scores = (
        export(study)
        .groupby(["gen_condition_id", "grade_condition_id", "item_id"])["score"]
        .max()
    )
    cell = next(
        c for c in data["cells"] if c["grade_condition_id"].startswith("scorer_numeric")
    )
    items = scores.loc[(cell["gen_condition_id"], cell["grade_condition_id"])]
    low, high = proportion_confint(int(items.sum()), len(items), method="wilson")
    assert cell["ci_method"] == "wilson" and math.isclose(
        cell["ci_low"], low, abs_tol=1e-9
    )
    assert math.isclose(cell["ci_high"], high, abs_tol=1e-9)

    code, data = cli(capsys, "results", str(study), "--reducer", "pass@3")
    assert code == 0 and all(
        c["mean"] is None for c in data["cells"]
    )  # 2 replications < 3: missing, never 1.0
    code, first = cli(capsys, "results", str(study), "--ci", "bootstrap", "--seed", "3")
    code, again = cli(capsys, "results", str(study), "--ci", "bootstrap", "--seed", "3")
    assert first["cells"] == again["cells"] and all(
        c["ci_method"] == "bootstrap" for c in first["cells"]
    )


def test_paired_comparison_of_two_models_is_mcnemar_on_the_shared_items(study, capsys):
    code, data = cli(
        capsys,
        "results",
        str(study),
        "--reducer",
        "max",
        "--compare",
        "arith-good_p_default",
        "arith-weak",
    )
    assert code == 0
    same = cli(
        capsys,
        "results",
        str(study),
        "--reducer",
        "max",
        "--compare",
        "arith-good",
        "--compare",
        "arith-weak",
    )
    assert same[1]["comparisons"] == data["comparisons"]
    assert code == 0 and len(data["comparisons"]) == 2
    scores = (
        export(study)
        .groupby(["gen_condition_id", "grade_condition_id", "item_id"])["score"]
        .max()
    )
    for row in data["comparisons"]:
        a = scores.loc[(row["a"], row["grade_condition_id"])]
        b = scores.loc[(row["b"], row["grade_condition_id"])]
        both = a.index.intersection(b.index)
        x, y = a[both].to_numpy(), b[both].to_numpy()
        table = [
            [int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())],
            [int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())],
        ]
        assert row["n"] == len(both) and math.isclose(
            row["diff"], float((x - y).mean()), abs_tol=1e-12
        )
        assert row["test"] == "mcnemar_exact" and math.isclose(
            row["p"], mcnemar(table, exact=True).pvalue, abs_tol=1e-12
        )
        # Holm's family is a grade condition's pairs: one pair, nothing to adjust
        assert row["p_adjusted"] == row["p"]


def test_judge_agreement_with_the_numeric_scorer_on_the_same_solutions(study, capsys):
    code, data = cli(capsys, "results", str(study))
    (row,) = data["agreement"]
    graded = (
        export(study)
        .pivot_table(
            index=["gen_condition_id", "item_id", "epoch"],
            columns="grade_condition_id",
            values="score",
        )
        .dropna()
    )
    x, y = graded[row["a"]].to_numpy(), graded[row["b"]].to_numpy()
    assert row["n"] == len(x) and math.isclose(row["exact"], float((x == y).mean()))
    assert set(row["confusion"]) == {"both_pass", "a_only", "b_only", "both_fail"}
    assert sum(row["confusion"].values()) == len(x)


def test_marginals_by_model_and_by_item_metadata(study, capsys):
    code, data = cli(
        capsys, "results", str(study), "--by", "model", "--by", "difficulty"
    )
    assert code == 0
    by_model = [m for m in data["marginals"] if m["facet"] == "model"]
    assert {m["level"] for m in by_model} == {
        "itemeval/arith-good",
        "itemeval/arith-weak",
    }
    assert {m["level"] for m in data["marginals"] if m["facet"] == "difficulty"} == {
        "easy",
        "medium",
        "hard",
    }
    means = item_means(study).reset_index()
    good = next(
        m
        for m in by_model
        if m["level"] == "itemeval/arith-good"
        and m["grade_condition_id"].startswith("scorer")
    )
    expected = means[
        means["gen_condition_id"].str.startswith("arith-good")
        & (means["grade_condition_id"] == good["grade_condition_id"])
    ]["score"].mean()
    assert math.isclose(good["mean"], expected, abs_tol=1e-12) and good["items"] == 12


def test_pending_cells_count_what_is_not_graded_yet(tmp_path, capsys):
    config = base_config(
        **{
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config, rows=ROWS)
    assert main(["generate", str(path), "--yes", "--display", "none"]) == 0
    assert (
        main(
            [
                "grade",
                str(path),
                "--yes",
                "--display",
                "none",
                "--condition",
                "scorer_numeric",
            ]
        )
        == 0
    )
    code, data = cli(capsys, "results", str(path))
    judge = next(c for c in data["cells"] if c["grade_condition_id"].startswith("j_r"))
    numeric = next(
        c for c in data["cells"] if c["grade_condition_id"].startswith("scorer_numeric")
    )
    assert judge["pending"] == 12 and judge["items"] == 0 and judge["mean"] is None
    assert numeric["pending"] == 0 and numeric["items"] == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--reducer", "avg"], "--reducer"),
        (["--ci", "normal"], "--ci"),
        (["--by", "colour"], "--by"),
        (["--compare", "nope", "arith-good"], "--compare"),
        (["--compare", "arith-good"], "--compare"),
        (["arith-good"], "--compare A B"),
    ],
)
def test_bad_options_name_the_option_and_exit_2(study, capsys, args, message):
    code = main(["results", str(study), "-C", str(study.parent), *args])
    assert code == 2 and message in capsys.readouterr().err


def test_csv_holds_the_cells_and_the_table_fits_80_columns(study, capsys, tmp_path):
    target = tmp_path / "cells.csv"
    code, data = cli(
        capsys,
        "results",
        str(study),
        "--csv",
        str(target),
        "--by",
        "model",
        "--compare",
        "all",
    )
    cells = pd.read_csv(target)
    assert list(cells["gen_condition_id"]) == [
        c["gen_condition_id"] for c in data["cells"]
    ]
    assert np.allclose(cells["mean"], [c["mean"] for c in data["cells"]])
    buffer = io.StringIO()
    typed = study_results(
        load_study(study, study.parent), ResultsOptions(by=("model",), compare=("all",))
    )
    assert typed.as_dict() == {k: v for k, v in data.items() if k != "sequential"}
    console.render_results(typed, Console(file=buffer, width=80))
    lines = buffer.getvalue().splitlines()
    assert max(map(len, lines)) <= 80 and any(
        "paired differences" in line for line in lines
    )
    assert not any(
        "…" in line.split()[-1]
        for line in lines
        if line.strip() and line.split()[-1][0].isdigit()
    )


def test_wide_tables_cut_nothing_and_piped_output_without_a_terminal_gets_80(
    study, capsys, monkeypatch
):
    args = [
        "results",
        str(study),
        "-C",
        str(study.parent),
        "--by",
        "model",
        "--compare",
        "all",
    ]
    monkeypatch.setenv("COLUMNS", "240")
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr().out
    assert (
        len(out.splitlines()) > 10 and "…" not in out and "arith-weak" in out
    )  # cells and compared pairs are named by the facet that varies: the model
    monkeypatch.delenv("COLUMNS")  # a pipe, and stderr no terminal either: 80
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 10 and max(len(line) for line in lines) <= 80


def test_by_criterion_on_a_study_without_criteria_says_why_it_is_empty(study, capsys):
    code, data = cli(capsys, "results", str(study), "--by", "criterion")
    assert code == 0
    assert data["marginals"] == [] and data["criteria"] == []
    assert data["notes"] == [results.NO_CRITERIA]
    capsys.readouterr()
    assert (
        main(["results", str(study), "--by", "criterion", "-C", str(study.parent)]) == 0
    )
    shown = " ".join(capsys.readouterr().out.split())
    assert "--by criterion: no grade of this study scores criteria yet" in shown


def test_passing_reducers_count_full_credit_on_the_scale_and_stay_in_zero_one(
    tmp_path, capsys
):
    """A criteria judge scores 0-3: majority counts a replication correct only at 3,
    and the share's interval lies in [0, 1] (it was rescaled on 0-3 and reached past
    1)."""
    rubric = (REPO / "rubrics" / "criteria.md").read_text()
    config = base_config(
        solvers__models=["itemeval/arith-good"],
        facets__replications=3,
        facets__scorer=None,
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge"}},
    )
    path = write_study(tmp_path, config, rubric=rubric)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--yes", "--display", "none"]) == 0
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    scored = grades[grades["status"] == "scored"] if "status" in grades else grades
    scored = scored[scored["score"].notna()]
    top = scored["score"].max()
    assert top > 1  # a 0-3 sum
    expected = (
        scored.groupby("item_id")["score"].apply(lambda s: (s >= top).mean() > 0.5)
    ).mean()
    capsys.readouterr()
    assert main(["results", str(path), "--json", "--reducer", "majority"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)["cells"]
    assert cell["mean"] == pytest.approx(expected)
    assert 0.0 <= cell["ci_low"] <= cell["mean"] <= cell["ci_high"] <= 1.0


def test_graders_on_different_scales_each_pass_at_their_own_midpoint():
    """A 0/1 scorer beside a 0-3 judge: one pass mark of 1.5 for both meant the 0/1
    grader could never pass; each passes at its own scale's middle."""
    from itemeval.results.agreement import agreement

    wide = pd.DataFrame(
        {"s": [1.0, 1.0, 0.0, 1.0, 0.0], "j": [3.0, 2.0, 0.0, 1.0, 1.0]}
    )
    grade = [
        GradeCondition(id=g, slug=g, kind="verifiable", payload={}) for g in ("s", "j")
    ]
    (row,) = agreement(wide, grade, None, {"s": (0.0, 1.0), "j": (0.0, 3.0)})
    assert (row["threshold"], row["threshold_b"]) == (0.5, 1.5)
    assert row["confusion"] == {
        "both_pass": 2,
        "a_only": 1,
        "b_only": 0,
        "both_fail": 2,
    }
    (same,) = agreement(wide, grade, 2.0, {"s": (0.0, 1.0), "j": (0.0, 3.0)})
    assert same["threshold"] == same["threshold_b"] == 2.0
