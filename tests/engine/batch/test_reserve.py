"""Batches an earlier run left open count against a re-run's cap: the provider bills
them when they end, whichever run collects them."""

from __future__ import annotations

import signal
import threading

import pytest

from itemeval.engine.batch import ledger
from itemeval.engine.batch.reserve import worst_usd
from itemeval.paths import StudyPaths
from tests.engine.batch.test_executor import (
    _wait_recorded,
    batch_study,
    run,
    serve,
    solutions,
    started,
    stop,
)

# A request's worst case is about $0.00028 at half price (its prompt's bytes, a full
# 256-token reply): under $0.0008 the model's first batch (one request, pace.py) and
# one batch of two fit together, a third batch does not.
CAP = "0.0008"


def test_a_re_run_holds_the_worst_case_of_the_batches_left_open(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        with started(path, "generate", "--max-usd", CAP) as proc:
            assert srv.batches.wait_for(1, timeout=90), proc.stderr
            _wait_recorded(tmp_path, 1)
            assert stop(proc, signal.SIGKILL) == -9
        (left,) = ledger.open_submissions(StudyPaths(tmp_path / "studies" / "t"))
        worst = worst_usd(left)
        assert worst == pytest.approx(0.00028, rel=0.25)
        assert srv.batches.submissions == 1 and len(left.requests) == 1

        code, estimate = run(capsys, "estimate", str(path))
        assert code == 0 and estimate["stages"]["generate"]["calls"] == 3
        assert estimate["open_batches"] == {
            "batches": 1,
            "requests": 1,
            "usd_worst": pytest.approx(worst),
        }
        assert any("open batch(es) of earlier runs" in n for n in estimate["notes"])

        # Collect the open batch once the re-run has decided what to submit (it asks
        # about the batch before and after): no reply of the model is seen yet, so
        # the re-run submits nothing of it while that batch is open.
        (batch_id,) = srv.batches.open_ids()
        before: list[int] = []

        def collect_later() -> None:
            if srv.batches.wait_looked(batch_id, 2):
                before.append(srv.batches.submissions)
                srv.batches.complete(batch_id)

        later = threading.Thread(target=collect_later)
        later.start()
        srv.batches.auto_complete = True  # the batches the re-run submits
        code, result = run(capsys, "generate", str(path), "--yes", "--max-usd", CAP)
        later.join(timeout=60)
        assert code == 0, result
        assert before == [1]
        # then two, and the last once the first of them freed what it held
        assert srv.batches.submissions == 3 and srv.answered() == 4
        assert any("left open by earlier runs" in n for n in result["notes"])

        code, result = run(capsys, "generate", str(path), "--yes", "--max-usd", CAP)
        assert code == 0, result  # nothing left
        assert srv.batches.submissions == 3 and srv.answered() == 4
    rows = solutions(tmp_path)
    assert len(rows) == 4 and rows["usd"].sum() <= float(CAP)
