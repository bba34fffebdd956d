"""Dataset revisions are pinned at first run; a changed local file is an error that
says how to re-pin."""

from __future__ import annotations

import json

import pytest

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.study.load import load_study
from tests.helpers import write_study


def test_first_pinning_run_records_the_file_hash(tmp_path):
    study = load_study(write_study(tmp_path), pin=True)
    locks = json.loads(study.paths.dataset_locks.read_text())
    entry = locks["datasets"]["data/arith.jsonl"]
    assert entry["adapter"] == "local"
    assert entry["revision"] == study.items[0].dataset_revision


def test_status_does_not_pin(tmp_path):
    study = load_study(write_study(tmp_path))
    assert not study.paths.dataset_locks.exists()


def test_changed_local_file_is_an_error_with_repin_instructions(tmp_path, capsys):
    path = write_study(tmp_path)
    study = load_study(path, pin=True)
    with (tmp_path / "data" / "arith.jsonl").open("a") as handle:
        handle.write(
            json.dumps(
                {
                    "qid": "a9",
                    "question": "What is 1 + 1?",
                    "answer": "2",
                    "difficulty": "e",
                }
            )
            + "\n"
        )
    with pytest.raises(ConfigError, match="changed since it was pinned"):
        load_study(path)
    assert main(["status", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "remove the 'data/arith.jsonl' entry" in err
        and str(study.paths.dataset_locks) in err
    )
    study.paths.dataset_locks.unlink()  # re-pin as the message says
    assert len(load_study(path, pin=True).items) == 5
