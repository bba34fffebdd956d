"""An inspect task as the dataset: samples as items, pinning, the task's scorer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from itemeval.cli import main
from itemeval.engine.dataset import sample_row
from itemeval.errors import ConfigError
from itemeval.hashing import content_hash
from itemeval.study.load import load_study
from tests.helpers import TESTS

TASK_FILE = TESTS / "inspect_task_arith.py"


def write_config(root: Path, **benchmark) -> Path:
    (root / "prompts").mkdir(parents=True, exist_ok=True)
    (root / "prompts" / "p.md").write_text("{input}")
    config = {
        "study": "t",
        "benchmark": {"adapter": "inspect", **benchmark},
        "solvers": {"models": ["itemeval/arith-good"], "temperature": 0.0},
        "facets": {"prompt": ["p"], "scorer": ["task_scorer", "numeric"]},
        "budget": {"confirm_above_usd": None},
    }
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    "sample, expected",
    [
        (
            Sample(id=3, input="2+2?", target="4", metadata={"k": 1}),
            {"k": 1, "id": "3", "input": "2+2?", "target": "4", "choices": None},
        ),
        (
            Sample(input="Pick", target="B", choices=["x", "y"]),
            {"id": "8", "input": "Pick", "target": "B", "choices": ["x", "y"]},
        ),
        (
            Sample(
                id="c",
                input=[
                    ChatMessageSystem(content="sys"),
                    ChatMessageUser(content="first"),
                    ChatMessageAssistant(content="ok"),
                    ChatMessageUser(content="last"),
                ],
                target=["a", "b"],
            ),
            {
                "id": "c",
                "input": "last",
                "target": ["a", "b"],
                "choices": None,
                "inspect_messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "first"},
                    {"role": "assistant", "content": "ok"},
                ],
            },
        ),
    ],
)
def test_sample_row(sample, expected):
    assert sample_row(sample, 7) == expected


def test_task_items_and_pin(tmp_path):
    path = write_config(tmp_path, task="tests.inspect_task_arith:arith")
    study = load_study(path, pin=True)
    items = {item.id: item for item in study.items}
    assert list(items) == ["a1", "a2", "a3", "a4"]
    assert items["a3"].input == "What is 100 - 58?"
    assert items["a3"].targets == ("42", "42.0")
    assert items["a3"].metadata == {
        "level": "hard",
        "inspect_messages": [{"role": "system", "content": "Be terse."}],
    }
    locks = json.loads((tmp_path / "studies/t/dataset_locks.json").read_text())
    lock = locks["datasets"]["tests.inspect_task_arith:arith"]
    assert lock["adapter"] == "inspect"
    assert (
        lock["revision"].startswith("source:")
        and ";samples:sha256:" in lock["revision"]
    )
    # other task args give other samples: the pinned revision no longer matches
    write_config(
        tmp_path, task="tests.inspect_task_arith:arith", task_args={"limit": 2}
    )
    with pytest.raises(ConfigError, match="changed since it was pinned"):
        load_study(path)


@pytest.mark.parametrize(
    "benchmark, message",
    [
        ({}, "needs `task:`"),
        ({"task": "nowhere_module:t"}, "cannot import 'nowhere_module'"),
        ({"task": "tests.inspect_task_arith:nope"}, "has no task 'nope'"),
        (
            {"task": "t:t", "datasets": [{"id": "x.jsonl"}]},
            "drop `datasets:`",
        ),
    ],
)
def test_bad_task(tmp_path, benchmark, message):
    path = write_config(tmp_path, **benchmark)
    with pytest.raises(ConfigError, match=message):
        load_study(path)


def test_task_needs_inspect_adapter(tmp_path):
    path = write_config(tmp_path, task="x:y")
    text = path.read_text().replace("adapter: inspect", "adapter: local")
    path.write_text(text)
    with pytest.raises(ConfigError, match="need `adapter: inspect`"):
        load_study(path)


def test_a_registered_task_is_pinned_by_its_own_module(tmp_path):
    import tests.inspect_task_arith  # noqa: F401 - registers the task `arith` with inspect

    path = write_config(tmp_path, task="arith", task_args={"limit": 2})
    study = load_study(path, pin=True)
    assert [item.id for item in study.items] == ["a1", "a2"]
    (info,) = study.datasets
    source = content_hash(TASK_FILE.read_text(encoding="utf-8"))[:16]
    assert info.revision.startswith(f"source:{source};samples:sha256:")


def test_file_task_generates_grades_and_reports(tmp_path, capsys):
    shutil.copy(TASK_FILE, tmp_path / "arith_task.py")
    path = write_config(tmp_path, task="arith_task.py@arith", limit=3)
    assert main(["generate", str(path), "--json"]) == 0
    assert main(["grade", str(path), "--json"]) == 0
    capsys.readouterr()
    grades = pd.read_parquet(tmp_path / "studies/t/grades.parquet")
    task = grades[grades["scorer"] == "task_scorer"].sort_values("item_id")
    assert task["item_id"].tolist() == ["a1", "a2", "a3"]
    assert set(task["score_raw"]) <= {"C", "I"} and task["parse_ok"].all()
    # the chat sample's system turn went to the model ahead of the input
    solutions = pd.read_parquet(tmp_path / "studies/t/solutions.parquet")
    assert len(solutions) == 3
    (info,) = load_study(path).datasets
    source = content_hash(TASK_FILE.read_text(encoding="utf-8"))[:16]
    assert info.revision.startswith(f"source:{source};samples:")
    log = read_eval_log(tmp_path / "studies/t" / solutions["log_file"].iloc[0])
    turns = {s.metadata["item_id"]: [m.role for m in s.messages] for s in log.samples}
    assert turns == {
        "a1": ["user", "assistant"],
        "a2": ["user", "assistant"],
        "a3": ["system", "user", "assistant"],
    }
    assert main(["report", str(path), "--out", str(tmp_path / "r.html")]) == 0
    assert "task-scorer" in (tmp_path / "r.html").read_text()
