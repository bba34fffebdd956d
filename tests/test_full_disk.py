"""A full disk: the first failed write stops new calls, the command exits 1 with one message naming the path,
the manifest says `failed` with the reason, and nothing that reached the journal is lost."""

from __future__ import annotations

import errno
import json

import pandas as pd

from itemeval.cli import main
from itemeval.store import journal as journal_module
from tests.helpers import base_config, write_study

ROWS = [{"qid": f"q{i}", "question": f"What is {i} + {i}?", "answer": str(2 * i)} for i in range(1, 41)]


def test_a_journal_write_that_fails_stops_the_run_and_says_what_to_do(tmp_path, capsys, monkeypatch):
    config = base_config(**{"cache": False, "benchmark__mapping": {"input": "question", "target": "answer", "id": "qid"},
                            "solvers__max_connections": 1})
    path = write_study(tmp_path, config, rows=ROWS)
    original = journal_module.JournalWriter.append
    written = []

    def append(self, *args, **kwargs):
        if len(written) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        written.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(journal_module.JournalWriter, "append", append)
    monkeypatch.setenv("ITEMEVAL_OFFLINE_LATENCY", "0.05")
    capsys.readouterr()
    code = main(["generate", str(path), "--yes", "--json", "--display", "none"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 1 and result["outcome"] == "failed" and result["exit_code"] == 1
    (note,) = [n for n in result["notes"] if "could not write" in n]
    assert "No space left on device" in note and ".jsonl" in note and "Free space" in note
    study = tmp_path / "studies" / "t"
    manifest = json.loads(sorted((study / "manifests").glob("*.json"))[-1].read_text())
    assert manifest["outcome"] == "failed" and "No space left" in manifest["reason"]
    rows = pd.read_parquet(study / "solutions.parquet")
    assert len(rows) == 3  # what reached the journal is kept
    assert sum(c["rows"] for c in result["conditions"]) < len(ROWS) // 2  # calls stopped soon after the failure
    assert "Traceback" not in captured.err
