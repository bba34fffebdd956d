"""The grade stage with every in-process scorer family: inspect's by name, user
scorers, multi_scorer, list targets and choices, and grade rows carrying answer,
explanation and score_metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from itemeval.cli import main
from itemeval.paths import StudyPaths
from itemeval.store import integrity, read_store, upsert, verify_store
from itemeval.store.schemas import GRADES
from tests.helpers import base_config, write_study

CAPITALS = [
    {
        "qid": "q1",
        "question": "Capital of France?",
        "answer": "Paris",
        "options": ["Paris", "Rome", "Oslo"],
        "key": "A",
    },
    {
        "qid": "q2",
        "question": "Capital of Italy?",
        "answer": ["Rome", "Roma"],
        "options": ["Paris", "Rome", "Oslo"],
        "key": "B",
    },
    {
        "qid": "q3",
        "question": "Capital of Norway?",
        "answer": "Oslo",
        "options": ["Paris", "Rome", "Oslo"],
        "key": "C",
    },
]


def capitals_study(root: Path, scorer: list, target: str = "answer") -> Path:
    config = base_config(
        solvers__models=["itemeval/echo"],
        facets__scorer=scorer,
        benchmark__mapping={
            "input": "question",
            "target": target,
            "id": "qid",
            "choices": "options",
        },
    )
    return write_study(root, config, rows=CAPITALS, prompt="{input}")


def run(capsys, *args: str) -> dict:
    code = main([*args, "--json", "--yes"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def grades(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "grades.parquet")


def store_replies(root: Path, replies: dict[str, str]) -> None:
    """Replace the stored solutions' texts, as if the model had written these."""
    paths = StudyPaths(root / "studies" / "t")
    stored = read_store(paths, "solutions").to_pylist()
    upsert(
        paths,
        "solutions",
        [{**row, "solution": replies[row["item_id"]]} for row in stored],
    )


def test_inspect_scorers_by_name_grade_stored_solutions_with_list_targets(
    tmp_path, capsys
):
    path = capitals_study(
        tmp_path,
        [
            {"name": "includes", "params": {"ignore_case": False}},
            {"name": "match", "params": {"location": "any"}},
            "f1",
        ],
    )
    run(capsys, "generate", str(path))
    store_replies(
        tmp_path, {"q1": "The capital is Paris.", "q2": "It is Roma.", "q3": "oslo"}
    )
    result = run(capsys, "grade", str(path))
    assert sum(c["rows"] for c in result["conditions"]) == 9
    table = grades(tmp_path)
    assert (
        set(table["scorer"]) == {"includes", "match", "f1"}
        and (table["grade_kind"] == "verifiable").all()
    )
    includes = table[table["scorer"] == "includes"].set_index("item_id")
    assert includes["score"].to_dict() == {
        "q1": 1.0,
        "q2": 1.0,
        "q3": 0.0,
    }  # q2 has two targets; q3 wrong case
    assert (
        includes.loc["q1", "score_raw"] == "C"
        and includes.loc["q3", "score_raw"] == "I"
    )
    match = table[table["scorer"] == "match"].set_index("item_id")
    assert match["score"].to_dict() == {"q1": 1.0, "q2": 1.0, "q3": 1.0}
    assert (
        includes["parse_ok"].all() and includes["answer"].isna().all()
    )  # inspect read the whole solution
    f1 = table[table["scorer"] == "f1"]
    assert f1["score"].between(0, 1).all() and f1["score_raw"].notna().all()
    assert (
        run(capsys, "grade", str(path))["totals"]["rows"] == 0
    )  # resumable: nothing left


def test_choice_reads_the_answer_letter_against_the_items_options(tmp_path, capsys):
    path = capitals_study(tmp_path, ["choice"], target="key")
    run(capsys, "generate", str(path))
    store_replies(
        tmp_path,
        {
            "q1": "Paris is the capital.\nANSWER: A",
            "q2": "ANSWER: C",
            "q3": "I cannot tell.",
        },
    )
    run(capsys, "grade", str(path))
    table = grades(tmp_path).set_index("item_id")
    assert table["score"].to_dict() == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert table["score_raw"].to_dict() == {"q1": "C", "q2": "I", "q3": "I"}
    items = pd.read_parquet(tmp_path / "studies" / "t" / "items.parquet").set_index(
        "item_id"
    )
    assert list(items.loc["q2", "choices"]) == ["Paris", "Rome", "Oslo"] and list(
        items.loc["q2", "targets"]
    ) == ["B"]


def test_choice_without_choices_is_a_config_error(tmp_path, capsys):
    config = base_config(facets__scorer=["choice"])
    path = write_study(tmp_path, config)
    assert main(["status", str(path)]) == 2
    assert "mapping.choices" in capsys.readouterr().err


def test_list_targets_are_stored_and_rendered_as_json(tmp_path, capsys):
    path = capitals_study(tmp_path, ["exact_match"])
    run(capsys, "generate", str(path))
    items = pd.read_parquet(tmp_path / "studies" / "t" / "items.parquet").set_index(
        "item_id"
    )
    assert items.loc["q2", "target"] == '["Rome","Roma"]' and list(
        items.loc["q2", "targets"]
    ) == ["Rome", "Roma"]
    assert items.loc["q1", "target"] == "Paris" and list(
        items.loc["q1", "targets"]
    ) == ["Paris"]


USER_SCORER = """
from inspect_ai.scorer import Score, scorer, accuracy, CORRECT, INCORRECT, PARTIAL

@scorer(metrics=[accuracy()])
def mentions(word: str = "capital", partial: bool = False):
    async def score(state, target):
        text = state.output.completion
        if word in text.lower() and target.text.lower() in text.lower():
            meta = {"item": state.sample_id, "input": state.input_text}
            return Score(value=CORRECT, answer=word, metadata=meta)
        value = PARTIAL if partial else INCORRECT
        return Score(value=value, answer=None, explanation="missing")
    return score
"""


def test_user_scorer_runs_over_rebuilt_states_and_its_source_is_part_of_the_id(
    tmp_path, capsys
):
    (tmp_path / "my_scorers.py").write_text(USER_SCORER)
    path = capitals_study(
        tmp_path, [{"name": "my_scorers:mentions", "params": {"partial": True}}]
    )
    run(capsys, "generate", str(path))
    status = run(capsys, "grade", str(path))
    table = grades(tmp_path).set_index("item_id")
    assert table["score"].to_dict() == {
        "q1": 0.5,
        "q2": 0.5,
        "q3": 0.5,
    }  # echo says "Capital of ...?", no target
    assert set(table["score_raw"]) == {"P"} and set(table["explanation"]) == {"missing"}
    first_id = status["conditions"][0]["condition_id"]
    (tmp_path / "my_scorers.py").write_text(
        USER_SCORER.replace('"capital"', '"france"')
    )
    second = run(capsys, "grade", str(path))
    assert (
        second["conditions"][0]["condition_id"] != first_id
        and second["totals"]["rows"] == 3
    )


def test_user_scorer_metadata_is_stored_as_json(tmp_path, capsys):
    (tmp_path / "my_scorers.py").write_text(USER_SCORER)
    path = capitals_study(
        tmp_path,
        [{"name": "my_scorers:mentions", "params": {"word": "france"}}],
        target="question",
    )
    run(capsys, "generate", str(path))
    run(capsys, "grade", str(path))
    row = grades(tmp_path).set_index("item_id").loc["q1"]
    assert row["score"] == 1.0 and json.loads(row["score_metadata"]) == {
        "item": "q1",
        "input": "Capital of France?",
    }


@pytest.mark.parametrize(
    ("scorer", "message"),
    [
        ({"name": "no_such_module:fn"}, "cannot import module 'no_such_module'"),
        ({"name": "my_scorers:nope"}, "has no function 'nope'"),
        (
            {"name": "my_scorers:mentions", "params": {"wrd": "x"}},
            "unknown param 'wrd'",
        ),
        (
            {"name": "my_scorers:mentions", "params": {"partial": "no"}},
            "param 'partial'",
        ),
    ],
)
def test_bad_user_scorers_are_config_errors_naming_the_entry(
    tmp_path, capsys, scorer, message
):
    (tmp_path / "my_scorers.py").write_text(USER_SCORER)
    path = capitals_study(tmp_path, [scorer])
    assert main(["status", str(path)]) == 2
    err = capsys.readouterr().err
    assert "facets.scorer[0]" in err and message in err


def test_a_store_written_before_new_columns_existed_reads_and_upserts(tmp_path):
    """Stores only ever gain columns: a part without
    answer/explanation/score_metadata still reads (as nulls)."""
    paths = StudyPaths(tmp_path / "s")
    row = {
        "grade_condition_id": "g",
        "gen_condition_id": "c",
        "item_id": "i1",
        "epoch": 1,
        "score": 1.0,
    }
    upsert(paths, "grades", [row])
    part = next(paths.grades.glob("*.parquet"))
    old = pq.read_table(part).drop_columns(["answer", "explanation", "score_metadata"])
    pq.write_table(old, part)  # as an earlier itemeval wrote it
    (part.parent / "_integrity.json").unlink()  # which kept no part checksums
    (
        paths.grades.resolve().parent / integrity.SINCE
    ).unlink()  # nor the mark that it must
    assert read_store(paths, "grades", ["item_id", "answer", "score"]).to_pylist() == [
        {"item_id": "i1", "answer": None, "score": 1.0}
    ]
    upsert(paths, "grades", [{**row, "item_id": "i2", "answer": "x"}])
    table = read_store(paths, "grades").sort_by("item_id")
    assert table.column("answer").to_pylist() == [None, "x"] and table.schema.equals(
        GRADES
    )
    assert verify_store(paths, "grades") == 2
    assert len(pd.read_parquet(paths.grades)) == 2


def test_a_part_with_a_changed_column_type_is_still_refused(tmp_path):
    paths = StudyPaths(tmp_path / "s")
    upsert(
        paths,
        "grades",
        [
            {
                "grade_condition_id": "g",
                "gen_condition_id": "c",
                "item_id": "i1",
                "epoch": 1,
            }
        ],
    )
    part = next(paths.grades.glob("*.parquet"))
    table = pq.read_table(part)
    pq.write_table(
        table.set_column(
            table.schema.get_field_index("score"), "score", pa.array(["x"])
        ),
        part,
    )
    (part.parent / "_integrity.json").unlink()  # a store from before part checksums
    (paths.grades.resolve().parent / integrity.SINCE).unlink()
    with pytest.raises(Exception, match="columns and types of an itemeval store"):
        read_store(paths, "grades")
