"""Which grade rows a metric reads, on real offline studies: a text metric over a scorer
that keeps the whole reply reads the reply, `scorer:` may name one entry by its slug,
and a user metric sees the scored rows and is named when it raises."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sacrebleu.metrics import BLEU

from itemeval.cli import main
from tests.helpers import base_config, cli_json, write_study

ROWS = [
    {
        "qid": f"q{i:02d}",
        "question": f"What is {i} + {i % 4}?",
        "answer": str(i + i % 4),
        "second": str(i + i % 4 + (i % 3 == 0)),
    }
    for i in range(1, 21)
]


def _study(root: Path, scorer, metrics, **more) -> Path:
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__scorer": scorer,
            "benchmark__mapping__metadata": ["second"],
            "metrics": metrics,
            **more,
        }
    )
    path = write_study(root, config, rows=ROWS)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--display", "none", "-C", str(root)]) == 0
    return path


def _store(path: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(path.parent / "studies" / "t" / f"{name}.parquet")


def test_a_text_metric_over_includes_reads_the_whole_reply(tmp_path, capsys):
    """inspect's includes stores no answer (its answer is the whole reply): corpus BLEU
    over it is BLEU of the replies, not of empty strings."""
    path = _study(tmp_path, ["includes"], [{"name": "corpus_bleu"}])
    code, data, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    solutions = _store(path, "solutions").merge(
        pd.DataFrame(ROWS), left_on="item_id", right_on="qid"
    )
    rows = {r["gen_condition_id"]: r for r in data["metrics"]}
    assert len(rows) == 2
    for gen_id, group in solutions.groupby("condition_id"):
        expected = BLEU().corpus_score(list(group["solution"]), [list(group["answer"])])
        assert expected.score > 0
        assert rows[gen_id]["value"] == pytest.approx(expected.score / 100, abs=1e-9)


def test_scorer_may_name_one_entry_by_its_slug(tmp_path, capsys):
    scorers = ["numeric", {"name": "numeric", "reference": "second"}]
    metrics = [{"name": "pearson", "scorer": "numeric-ref-second"}]
    path = _study(tmp_path, scorers, metrics)
    code, data, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    slugs = _store(path, "grades").groupby("grade_condition_id")["grade_condition_slug"]
    slug_of = slugs.first().to_dict()
    read = {slug_of[r["grade_condition_id"]] for r in data["metrics"]}
    assert read == {"scorer_numeric-ref-second"}


USER = """
def mean_score(scores):
    return sum(scores) / len(scores)


def broken(scores):
    return 1 / 0


def label(scores):
    return "high"


def nothing(scores):
    return None
"""


def test_a_user_metric_sees_only_scored_rows(tmp_path, capsys):
    """A judge's parse failures have no score: the user's function never sees a NaN,
    so its figure is the mean of the scored rows, with an interval around it."""
    (tmp_path / "um.py").write_text(USER)
    path = _study(
        tmp_path,
        None,
        ["um:mean_score"],
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge"}},
    )
    code, data, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    grades = _store(path, "grades")
    assert grades["score"].isna().any(), "the offline judge should fail to parse some"
    for row in data["metrics"]:
        cell = grades[grades["gen_condition_id"] == row["gen_condition_id"]]
        expected = cell["score"].dropna().mean()
        assert row["value"] == pytest.approx(expected, abs=1e-12)
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
        assert row["n"] == cell["score"].notna().sum()


def test_a_user_metric_that_raises_is_named(tmp_path, capsys):
    (tmp_path / "um.py").write_text(USER)
    path = _study(tmp_path, ["numeric"], ["um:broken"])
    code, _, err = cli_json(capsys, "results", str(path))
    assert code == 2
    assert "metric 'um:broken' raised ZeroDivisionError" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "function, shown", [("label", "returned 'high' (str)"), ("nothing", "None")]
)
def test_a_user_metric_that_returns_no_number_is_named(
    tmp_path, capsys, function, shown
):
    (tmp_path / "um.py").write_text(USER)
    path = _study(tmp_path, ["numeric"], [f"um:{function}"])
    code, _, err = cli_json(capsys, "results", str(path))
    assert code == 2
    assert f"metric 'um:{function}' returned" in err and shown in err
    assert "must return a number" in err


def test_a_user_metric_may_name_a_judge_by_its_grader(tmp_path, capsys):
    """`scorer: j` (a grader's name) points a user metric at that judge alone."""
    (tmp_path / "um.py").write_text(USER)
    path = _study(
        tmp_path,
        ["numeric"],
        [{"name": "um:mean_score", "scorer": "j"}],
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge"}},
    )
    code, data, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    graded = {c["grade_condition_id"] for c in data["cells"]}
    judge_ids = {g for g in graded if data["slugs"][g].startswith("j_")}
    assert judge_ids and graded - judge_ids  # a judge and a scorer were graded
    assert {r["grade_condition_id"] for r in data["metrics"]} == judge_ids
    grades = _store(path, "grades")
    judge = grades[grades["grade_condition_id"].isin(judge_ids)]
    for row in data["metrics"]:
        cell = judge[
            (judge["gen_condition_id"] == row["gen_condition_id"])
            & (judge["grade_condition_id"] == row["grade_condition_id"])
        ]
        assert row["value"] == pytest.approx(cell["score"].dropna().mean(), abs=1e-12)


def test_entries_of_one_metric_are_apart_by_params_and_once_when_the_same(
    tmp_path, capsys
):
    """chrf and chrf with word_order 2 are two metrics, named apart; a name-wide chrf
    beside the one naming exact_match is the same metric: one row per cell, and one
    comparison for Holm to adjust (p_adjusted = p with one pair)."""
    path = _study(
        tmp_path,
        ["exact_match"],
        [
            {"name": "chrf", "scorer": "exact_match"},
            {"name": "chrf", "params": {"word_order": 2}, "scorer": "exact_match"},
            {"name": "chrf"},
            {"name": "chrf", "params": {"word_order": 0}},  # the default: the same
        ],
    )
    code, data, err = cli_json(
        capsys, "results", str(path), "--json", "--compare", "all"
    )
    assert code == 0, err
    cells = [r for r in data["metrics"] if r.get("a") is None]
    names = sorted((r["gen_condition_id"], r["metric"]) for r in cells)
    assert len(names) == len(set(names)) == 4
    assert {name for _, name in names} == {"chrf", "chrf(word_order=2)"}
    by_name = {r["metric"]: r["value"] for r in cells}
    assert by_name["chrf"] != by_name["chrf(word_order=2)"]
    pairs = [r for r in data["metrics"] if r.get("a") is not None]
    assert len(pairs) == 2
    for row in pairs:
        assert row["p_adjusted"] == pytest.approx(row["p"])


def test_a_class_read_right_every_time_has_precision_one_in_every_resample(
    tmp_path, capsys
):
    """A resample that draws no prediction of a class has no precision for it (left
    out of the interval), not a 0 that would pull the interval down to 0; a class
    nothing was predicted as has no precision at all."""
    path = _study(tmp_path, ["numeric"], [{"name": "precision"}])
    code, data, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    grades = _store(path, "grades").merge(
        pd.DataFrame(ROWS), left_on="item_id", right_on="qid"
    )
    checked = {"right": 0, "never": 0}
    for row in data["metrics"]:
        cell = grades[grades["gen_condition_id"] == row["gen_condition_id"]]
        label = float(row["class"])
        predicted = cell[cell["answer_x"].astype(float) == label]
        if predicted.empty:
            assert row["value"] is None and row["ci_low"] is None
            checked["never"] += 1
        elif (predicted["answer_y"].astype(float) == label).all():
            assert (row["value"], row["ci_low"], row["ci_high"]) == (1.0, 1.0, 1.0)
            checked["right"] += 1
    assert checked["right"] >= 5 and checked["never"] >= 1
