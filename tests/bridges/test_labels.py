"""`itemeval labels CONFIG FILE --rater NAME`: labels from a file, checked row by row,
written as the view writes them, read by results as any rater's."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study

pytestmark = pytest.mark.inspect


@pytest.fixture
def study(tmp_path, capsys):
    config = base_config(facets__grader=["itemeval/judge"], facets__rubric=["r"])
    path = write_study(tmp_path, config)
    assert main(["generate", str(path)]) == 0
    assert main(["grade", str(path)]) == 0
    capsys.readouterr()
    return path


def _grades(path) -> pd.DataFrame:
    return pd.read_parquet(path.parent / "studies" / "t" / "grades.parquet")


def test_labels_from_a_csv_are_a_raters_and_correct_the_judge(study, capsys):
    labels = study.parent / "labels.csv"
    labels.write_text(
        "condition,item_id,epoch,score\n"
        "arith-good_p_default,a1,1,1\n"
        "arith-good_p_default,a2,,1\n"
        "arith-good_p_default,a3,1,0\n"
    )
    assert main(["labels", str(study), str(labels), "--rater", "alice", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done == {"rater": "alice", "rubric": "r", "labels": 3, "replaced": 0}
    human = _grades(study).query("grade_kind == 'human'").set_index("item_id")
    assert human["score"].to_dict() == {"a1": 1.0, "a2": 1.0, "a3": 0.0}
    assert set(human["grade_condition_slug"]) == {"human-alice"}
    # a second file replaces a label, as relabelling in the view does
    labels.write_text("condition,item_id,score\narith-good_p_default,a3,1\n")
    assert main(["labels", str(study), str(labels), "--rater", "alice", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["replaced"] == 1
    human = _grades(study).query("grade_kind == 'human'").set_index("item_id")
    assert len(human) == 3 and human.loc["a3", "score"] == 1.0
    assert main(["results", str(study), "--json"]) == 0
    corrected = json.loads(capsys.readouterr().out)["corrected"]
    assert corrected and {row["rater"] for row in corrected} == {"alice"}
    # a judge parse failure leaves a label out of the pairing, never more
    assert all(2 <= row["n_labelled"] <= 3 for row in corrected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("condition,item_id,score\nnope,a1,1\n", "row 2: condition 'nope' names no"),
        ("condition,item_id,score\narith-good_p_default,zz,1\n", "no stored answer"),
        (
            "condition,item_id,score\narith-good_p_default,a1,7\n",
            "off the rubric's scale 0–1",
        ),
        (
            "condition,item_id,score\narith-good_p_default,a1,yes\n",
            "score 'yes' is not a number",
        ),
        ("condition,item_id\narith-good_p_default,a1\n", "row 2: no score"),
        (
            "condition,item_id,score\narith-good_p_default,a1,1\narith-good_p_default,a9,1\n",
            "row 3: no stored answer",
        ),
    ],
)
def test_a_bad_row_is_named_and_nothing_is_written(study, capsys, text, message):
    labels = study.parent / "labels.csv"
    labels.write_text(text)
    assert main(["labels", str(study), str(labels), "--rater", "alice"]) == 2
    assert message in capsys.readouterr().err
    assert _grades(study).query("grade_kind == 'human'").empty


def test_labels_from_jsonl(study, capsys):
    labels = study.parent / "labels.jsonl"
    labels.write_text(
        json.dumps({"condition": "arith-good_p_default", "item_id": "a4", "score": 1})
        + "\n"
    )
    assert main(["labels", str(study), str(labels), "--rater", "bob"]) == 0
    assert "1 label(s) by bob" in capsys.readouterr().err
