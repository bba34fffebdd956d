"""The long export: one row per grade, joined to its solution, its item and its facet
values, never aggregated."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import ARITH, base_config, write_study

KEY = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]


@pytest.fixture(autouse=True)
def well_formed_judges(monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")


@pytest.fixture
def exported(tmp_path, capsys):
    """2 items × 2 replications × 2 model configs (one cut short by max_tokens),
    graded by a judge and a scorer."""
    rows = [{**row, "difficulty": f"level-{i}"} for i, row in enumerate(ARITH[:2])]
    config = base_config(
        cache=False,
        facets__grader=["j"],
        facets__rubric=["r"],
        facets__replications=2,
        facets__model_config=[{"name": "default"}, {"name": "short", "max_tokens": 3}],
        graders={"j": {"model": "itemeval/judge"}},
    )
    path = write_study(tmp_path, config, rows=rows)
    for command in ("generate", "grade"):
        assert main([command, str(path), "--json"]) == 0
    capsys.readouterr()
    assert main(["export", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    study = tmp_path / "studies" / "t"
    return {
        "result": result,
        "parquet": pd.read_parquet(study / "export" / "grades_long.parquet"),
        "csv": pd.read_csv(study / "export" / "grades_long.csv"),
        "grades": pd.read_parquet(study / "grades.parquet"),
        "solutions": pd.read_parquet(study / "solutions.parquet"),
        "rows": rows,
    }


def test_one_row_per_grade_in_both_files(exported):
    table, csv, grades = exported["parquet"], exported["csv"], exported["grades"]
    assert (
        exported["result"]["rows"] == len(grades) == len(table) == len(csv) == 16
    )  # 2 × 2 × 2 × 2 grades
    assert not table.duplicated(KEY).any()
    assert list(csv.columns) == list(table.columns)
    parquet_keys = sorted(zip(*(table[k].astype(str) for k in KEY)))
    assert parquet_keys == sorted(zip(*(csv[k].astype(str) for k in KEY)))
    stored = sorted(
        zip(
            grades["grade_condition_id"],
            grades["gen_condition_id"],
            grades["item_id"],
            grades["epoch"].astype(str),
        )
    )
    assert parquet_keys == stored
    merged = table.merge(csv, on=KEY, suffixes=("", "_csv"))
    assert len(merged) == 16
    assert (
        (merged["score"] == merged["score_csv"])
        | (merged["score"].isna() & merged["score_csv"].isna())
    ).all()
    assert (merged["solution"] == merged["solution_csv"]).all()


def test_rows_carry_solution_item_and_facet_values(exported):
    table, solutions = exported["parquet"], exported["solutions"]
    joined = table.merge(
        solutions,
        left_on=["gen_condition_id", "item_id", "epoch"],
        right_on=["condition_id", "item_id", "epoch"],
        suffixes=("", "_stored"),
    )
    assert len(joined) == 16
    assert (joined["solution"] == joined["solution_stored"]).all()
    assert (joined["solution_output_tokens"] == joined["output_tokens"]).all()
    assert (joined["solution_input_tokens"] == joined["input_tokens"]).all()
    assert (joined["solution_usd"] == joined["usd"]).all() and (
        joined["solution_usd"] > 0
    ).all()
    assert (joined["stop_reason"] == joined["stop_reason_stored"]).all()
    assert (joined["model"] == "itemeval/arith-good").all() and (
        joined["prompt"] == "p"
    ).all()
    assert set(table["model_config"]) == {"default", "short"}
    assert table["truncated"].tolist() == (table["model_config"] == "short").tolist()
    assert set(table.loc[table["truncated"], "stop_reason"]) == {"max_tokens"}
    assert (
        str(table["solution_output_tokens"].dtype) == "Int64"
    )  # counts stay integers in the export

    items = {row["qid"]: row for row in exported["rows"]}
    for item_id, text, target, level in zip(
        table["item_id"], table["input"], table["target"], table["meta_difficulty"]
    ):
        assert (text, target, level) == (
            items[item_id]["question"],
            items[item_id]["answer"],
            items[item_id]["difficulty"],
        )

    assert sorted(table["epoch"].unique()) == [1, 2]
    judge, scorer = (
        table[table["grade_kind"] == "judge"],
        table[table["grade_kind"] == "verifiable"],
    )
    assert len(judge) == len(scorer) == 8
    assert (
        set(judge["grader_name"]) == {"j"}
        and set(judge["rubric_name"]) == {"r"}
        and judge["scorer"].isna().all()
    )
    assert set(scorer["scorer"]) == {"numeric"} and scorer["grader_name"].isna().all()
    assert (judge["grade_usd"] > 0).all() and (scorer["grade_usd"] == 0).all()
    assert table["in_grid"].all() and not table["stale"].any()


def test_a_replication_above_the_config_s_count_is_not_in_the_grid(tmp_path, capsys):
    """Replications lowered from 2 to 1 after both ran: epoch 2 stays in the store
    but results counts only epoch 1, and so does the README's recipe over in_grid."""
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        facets__replications=2,
        solvers__temperature=0.9,
    )
    path = write_study(tmp_path, config)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--yes", "--display", "none"]) == 0
    path.write_text(path.read_text().replace("replications: 2", "replications: 1"))
    capsys.readouterr()
    assert main(["export", str(path), "--json"]) == 0
    long = pd.read_parquet(json.loads(capsys.readouterr().out)["parquet"])
    assert set(long.loc[long["in_grid"], "epoch"]) == {1}
    assert not long.loc[long["epoch"] == 2, "in_grid"].any()
    assert main(["results", str(path), "--json"]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    counted = long[
        ~long.stale
        & long.grade_error.isna()
        & long.parse_ok.fillna(False)
        & long.in_grid
    ]
    means = counted.groupby(
        ["gen_condition_id", "grade_condition_id", "item_id"]
    ).score.mean()
    recomputed = means.groupby(level=[0, 1]).mean()
    for cell in cells:
        key = (cell["gen_condition_id"], cell["grade_condition_id"])
        assert cell["mean"] == pytest.approx(recomputed[key], abs=1e-12)
