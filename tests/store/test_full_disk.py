"""A full disk: the first failed write stops new calls, the command exits 1 with one
message naming the path, the manifest says `failed` with the reason, and nothing that
reached the journal is lost."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.store import journal as journal_module
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

ROWS = [
    {"qid": f"q{i}", "question": f"What is {i} + {i}?", "answer": str(2 * i)}
    for i in range(1, 41)
]


def test_a_journal_write_that_fails_stops_the_run_and_says_what_to_do(
    tmp_path, capsys, monkeypatch
):
    config = base_config(
        **{
            "cache": False,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            "solvers__max_connections": 1,
        }
    )
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
    assert (
        "No space left on device" in note and ".jsonl" in note and "Free space" in note
    )
    study = tmp_path / "studies" / "t"
    manifest = json.loads(sorted((study / "manifests").glob("*.json"))[-1].read_text())
    assert manifest["outcome"] == "failed" and "No space left" in manifest["reason"]
    rows = pd.read_parquet(study / "solutions.parquet")
    # what reached the journal is kept, and the reply whose write failed too (held in
    # memory, written to a fresh journal file at the end)
    assert len(rows) == 4 and "kept 1 paid reply that arrived after" in note
    assert (
        sum(c["rows"] for c in result["conditions"]) < len(ROWS) // 2
    )  # calls stopped soon after the failure
    assert "Traceback" not in captured.err


def _offline_study(tmp_path, **overrides):
    config = base_config(
        **{
            "cache": False,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            **overrides,
        }
    )
    return write_study(tmp_path, config, rows=ROWS)


def _run(args, capsys):
    capsys.readouterr()
    code = main([*args, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def _last_manifest(study):
    return json.loads(sorted((study / "manifests").glob("*.json"))[-1].read_text())


def _enospc(path=None):
    return OSError(errno.ENOSPC, "No space left on device", path)


def _refusing_upsert(paths, store, rows, **_):
    raise _enospc(str(paths.root / f"{store}.parquet"))


def _write_failure_note(code: int, result: dict) -> str:
    """The one note of a run a full disk stopped (exit 1, outcome failed), checked to
    say what to do."""
    assert code == 1 and result["outcome"] == "failed", result
    (note,) = [n for n in result["notes"] if "could not write" in n]
    assert "No space left on device" in note and "Free space" in note
    return note


@pytest.mark.parametrize(
    ("method", "rows"),
    [("flush", 0), ("log_finish", len(ROWS))],
    ids=["at-start", "at-end"],
)
def test_an_inspect_log_that_cannot_be_written_fails_the_run_but_keeps_every_row(
    tmp_path, capsys, monkeypatch, method, rows
):
    # inspect writes its log's header before the first sample (a failure there: no call
    # is made) and the samples at the end (a failure there: every row is already in the
    # journal).
    from inspect_ai.log._recorders.eval import EvalRecorder

    async def refuse(self, *args, **kwargs):
        raise _enospc()

    monkeypatch.setattr(EvalRecorder, method, refuse)
    path = _offline_study(tmp_path)
    code, result, err = _run(
        ["generate", str(path), "--yes", "--display", "none"], capsys
    )
    note = _write_failure_note(code, result)  # never `completed` when a write failed
    assert "logs/generate" in note
    study = tmp_path / "studies" / "t"
    manifest = _last_manifest(study)
    assert manifest["outcome"] == "failed" and "logs/generate" in manifest["reason"]
    assert result["totals"]["rows"] == rows and "Traceback" not in err
    if rows:
        assert len(pd.read_parquet(study / "solutions.parquet")) == rows


def test_a_store_write_that_fails_keeps_the_journal_for_the_next_run(
    tmp_path, capsys, monkeypatch
):
    from itemeval.store import journal

    original = journal.upsert
    monkeypatch.setattr(journal, "upsert", _refusing_upsert)
    path = _offline_study(tmp_path)
    code, result, err = _run(
        ["generate", str(path), "--yes", "--display", "none"], capsys
    )
    note = _write_failure_note(code, result)  # never `completed` when a write failed
    assert "solutions.parquet" in note
    study = tmp_path / "studies" / "t"
    assert _last_manifest(study)["outcome"] == "failed"
    assert not (study / "solutions.parquet").exists() and list(
        (study / "journal").glob("*.jsonl")
    )

    monkeypatch.setattr(
        journal, "upsert", original
    )  # space freed: the next command recovers every row
    code, result, _ = _run(["status", str(path)], capsys)
    assert (
        code == 0
        and f"recovered {len(ROWS)} solutions rows from journal parts (an "
        "interrupted run's, or shards' not yet committed)"
        in result["notes"]
    )
    assert len(pd.read_parquet(study / "solutions.parquet")) == len(ROWS)


def test_a_manifest_that_cannot_be_finished_fails_the_command_and_leaves_no_temp_file(
    tmp_path, capsys, monkeypatch
):
    from itemeval.store import files

    original = files.fsync_path

    def fsync_path(path):
        if (
            "manifests" in str(path)
            and path.name.startswith(".")
            and _last_outcome_is_final(path)
        ):
            raise _enospc(str(path))
        original(path)

    def _last_outcome_is_final(path):
        return '"outcome": "running"' not in path.read_text()

    monkeypatch.setattr(files, "fsync_path", fsync_path)
    path = _offline_study(tmp_path)
    code, result, err = _run(
        ["generate", str(path), "--yes", "--display", "none"], capsys
    )
    note = _write_failure_note(code, result)  # never `completed` when a write failed
    assert "manifests" in note
    study = tmp_path / "studies" / "t"
    assert [
        p.name for p in (study / "manifests").iterdir() if p.name.startswith(".")
    ] == []
    assert (
        _last_manifest(study)["outcome"] == "running"
    )  # the old version stays whole; the next command closes it
    assert len(pd.read_parquet(study / "solutions.parquet")) == len(ROWS)


def test_a_grades_write_that_fails_ends_grade_failed(tmp_path, capsys, monkeypatch):
    from itemeval.stages import run

    path = _offline_study(tmp_path)
    assert _run(["generate", str(path), "--yes", "--display", "none"], capsys)[0] == 0
    monkeypatch.setattr(
        run, "upsert", _refusing_upsert
    )  # where a run writes the rows it makes itself
    code, result, err = _run(["grade", str(path), "--yes", "--display", "none"], capsys)
    note = _write_failure_note(code, result)  # never `completed` when a write failed
    assert "grades.parquet" in note
    assert (
        _last_manifest(tmp_path / "studies" / "t")["outcome"] == "failed"
        and "Traceback" not in err
    )


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A real file system of `size` mounted at `where`; the test is skipped where
    mounting is not allowed."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_disk_that_fills_up_mid_run_stops_the_calls_and_loses_no_paid_reply(
    tmp_path, capsys, monkeypatch
):
    # Needs root (to mount a 1 MB tmpfs); counted at the local server: after the disk
    # fills no new call starts, the replies of the calls out then are kept (the message
    # says how many), and after space is freed no reply is paid again (issue 26 case
    # 6: 28 of 29 were lost and paid again).
    rows = [
        {
            "qid": f"q{i}",
            "question": f"[q{i}] What is {i} + {i}? " + "Show your work. " * 20,
            "answer": str(2 * i),
        }
        for i in range(600)
    ]
    with (
        small_tmpfs(tmp_path / "disk", "1m") as disk,
        OpenAIServer(delay=0.1) as srv,
    ):
        config = base_config(
            **{
                "cache": False,
                "benchmark__mapping": {
                    "input": "question",
                    "target": "answer",
                    "id": "qid",
                },
                "solvers__models": ["openai-api/local/m"],
                "solvers__max_connections": 4,
            }
        )
        path = write_study(disk, config, rows=rows)
        env = {**os.environ, **srv.env()}
        first = subprocess.run(
            [
                sys.executable,
                "-m",
                "itemeval",
                "generate",
                str(path),
                "--yes",
                "--json",
                "--display",
                "none",
            ],
            cwd=disk,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert first.returncode == 1, first.stderr
        result = json.loads(first.stdout)
        assert result["outcome"] == "failed" and "Traceback" not in first.stderr
        note = _write_failure_note(first.returncode, result)
        study = disk / "studies" / "t"
        manifest = _last_manifest(study)
        assert (
            manifest["outcome"] == "failed"
            and "No space left on device" in manifest["reason"]
        )
        assert not [p for p in study.rglob("*") if ".tmp-" in p.name]
        journaled = result["totals"]["rows"]
        requests_first = len(srv.requests)
        assert (
            0 < journaled < len(rows) and requests_first <= journaled + 4
        )  # at most the calls in flight
        held = requests_first - journaled  # replies that came after the failure
        # how many depends on timing; that none is paid twice is checked below
        assert not held or f"kept {held} paid repl" in note, note

        subprocess.run(["mount", "-o", "remount,size=50m", str(disk)], check=True)
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "itemeval",
                "generate",
                str(path),
                "--yes",
                "--json",
                "--display",
                "none",
            ],
            cwd=disk,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert second.returncode == 0, second.stderr
        assert json.loads(second.stdout)["outcome"] == "completed"
        assert len(srv.requests) == len(rows)  # no reply was paid for twice
        stored = pd.read_parquet(study / "solutions.parquet")
        assert len(stored) == len(rows) and stored["error"].isna().all()
