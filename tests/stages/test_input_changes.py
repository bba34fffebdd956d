"""A solution remembers what it answered (SPEC §27): each row records the hash of its
rendered chat, so an edited item's cells are pending again, or, with
`solvers.on_input_change: keep`, kept and flagged wherever answers are shown."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest

from itemeval.cli import main
from itemeval.hashing import canonical_json, text_hash
from itemeval.plan.generate_tasks import input_hash
from itemeval.store import read_store, upsert
from itemeval.study.load import load_study
from tests.helpers import ARITH, base_config, cli_json, write_study

QUIET = ["--yes", "--display", "none"]


def _edit_item(root, item_id: str, question: str) -> None:
    """Change one item's question in the dataset and re-pin, as the pin error says."""
    rows = [dict(row) for row in ARITH]
    for row in rows:
        if row["qid"] == item_id:
            row["question"] = question
    (root / "data" / "arith.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows)
    )
    (root / "studies" / "t" / "dataset_locks.json").unlink()


def _solutions(root) -> pd.DataFrame:
    study = load_study(root / "config.yaml")
    return read_store(study.paths, "solutions").to_pandas()


@pytest.fixture
def generated(tmp_path):
    config = write_study(tmp_path, base_config(facets__replications=2))
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    return tmp_path, config


def test_each_row_records_the_hash_of_its_rendered_chat(generated):
    root, _ = generated
    study = load_study(root / "config.yaml")
    rows = _solutions(root)
    condition = study.generate[0]
    item = next(i for i in study.items if i.id == "a2")
    turns = [["user", "Q: What is 7 * 6?\nEnd with ANSWER: <n>."]]
    expected = text_hash(canonical_json({"history": [], "turns": turns}))
    assert input_hash(condition, item) == expected
    stored = rows[rows["item_id"] == "a2"]["input_hash"].unique().tolist()
    assert stored == [expected]  # both replications sent the same input


def test_an_edited_item_runs_again_and_nothing_else(generated, capsys):
    root, config = generated
    before = _solutions(root).set_index(["item_id", "epoch"])
    _edit_item(root, "a3", "What is 100 - 57?")
    code, status, _ = cli_json(capsys, "status", str(config), "--json")
    assert code == 0
    assert [row["changed"] for row in status["generate"]] == [2]
    assert [row["done"] for row in status["generate"]] == [6]
    assert any("earlier version of their item" in n for n in status["notes"])
    code, result, err = cli_json(capsys, "generate", str(config), *QUIET, "--json")
    assert code == 0 and result["conditions"][0]["rows"] == 2
    assert any("2 cell(s) run again" in note for note in result["notes"])
    after = _solutions(root).set_index(["item_id", "epoch"])
    # the answers of the other items are the very same rows
    for key in [("a1", 1), ("a2", 2), ("a4", 1)]:
        assert after.loc[key, "run_id"] == before.loc[key, "run_id"]
    assert after.loc[("a3", 1), "run_id"] != before.loc[("a3", 1), "run_id"]
    assert "100 - 57" in after.loc[("a3", 1), "solution"]
    code, status, _ = cli_json(capsys, "status", str(config), "--json")
    assert [row["changed"] for row in status["generate"]] == [0]
    # their grades went stale with the new text and are owed again
    assert status["grade"][0]["stale"] == 2


def test_a_changed_answer_is_left_out_of_results_until_generated(generated, capsys):
    root, config = generated
    _edit_item(root, "a1", "What is 2 + 4?")
    code, results, _ = cli_json(capsys, "results", str(config), "--json")
    assert code == 0
    cell = results["cells"][0]
    assert cell["items"] == 3  # a1's answers are to another question
    assert any("left out" in note for note in results["notes"])


def test_keep_keeps_the_answers_and_flags_them_everywhere(tmp_path, capsys):
    config = write_study(
        tmp_path, base_config(solvers__on_input_change="keep", facets__replications=1)
    )
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    _edit_item(tmp_path, "a2", "What is 7 * 7?")
    code, result, _ = cli_json(capsys, "generate", str(config), *QUIET, "--json")
    assert code == 0 and result["conditions"][0]["rows"] == 0
    code, status, _ = cli_json(capsys, "status", str(config), "--json")
    assert status["generate"][0]["changed"] == 1
    assert status["generate"][0]["done"] == 4
    assert any("kept and graded" in n for n in status["notes"])
    code, results, _ = cli_json(capsys, "results", str(config), "--json")
    assert results["cells"][0]["items"] == 4
    assert any("earlier version" in note for note in results["notes"])
    assert main(["export", str(config)]) == 0
    long = pd.read_parquet(
        tmp_path / "studies" / "t" / "export" / "grades_long.parquet"
    )
    flagged = long.set_index("item_id")["input_changed"]
    assert flagged.to_dict() == {"a1": False, "a2": True, "a3": False, "a4": False}
    code, shown, _ = cli_json(capsys, "show", str(config), "a2", "--json")
    solution = shown["conditions"][0]["solutions"][0]
    assert solution["input_changed"] is True


def test_rows_without_a_recorded_hash_count_as_current(generated, capsys):
    """Rows an older itemeval wrote carry no input_hash: upgrading re-runs nothing."""
    root, config = generated
    study = load_study(config)
    table = read_store(study.paths, "solutions")
    table = table.set_column(
        table.schema.get_field_index("input_hash"),
        "input_hash",
        pa.nulls(table.num_rows, pa.string()),
    )
    upsert(study.paths, "solutions", table)
    assert _solutions(root)["input_hash"].isna().all()
    code, result, _ = cli_json(capsys, "generate", str(config), *QUIET, "--json")
    assert code == 0 and result["conditions"][0]["rows"] == 0
