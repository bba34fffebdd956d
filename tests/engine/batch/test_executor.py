"""Durable batch mode end to end: generate and grade against the local server's Batch
API, stopped while batches are open, then re-run."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.engine.batch import ledger
from itemeval.paths import StudyPaths
from tests.helpers import ARITH, base_config, write_study
from tests.openai_server import OpenAIServer

MODEL = "openai-api/local/test-model"
JUDGE = "openai-api/local/judge-model"
ITEMEVAL = [sys.executable, "-m", "itemeval"]
PRICES = {
    "models": {
        MODEL: {"input": 1.0, "output": 2.0, "batch": 0.5},
        JUDGE: {"input": 1.0, "output": 2.0, "batch": 0.5},
    }
}


def batch_study(
    root: Path, *, size: int | bool = 2, rows: list[dict] | None = None, **overrides
) -> Path:
    (root / "prices.json").write_text(json.dumps(PRICES))
    config = base_config(
        **{
            "solvers__models": [MODEL],
            "solvers__max_retries": 0,
            "cache": False,
            "budget__batch": size,
            "budget__pricing_path": "prices.json",
            **overrides,
        }
    )
    return write_study(root, config, rows=rows)


@contextlib.contextmanager
def serve(monkeypatch, **options) -> Iterator[OpenAIServer]:
    monkeypatch.setenv("ITEMEVAL_BATCH_POLL_S", "0.05")
    with OpenAIServer(**options) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        yield srv


def run(capsys, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def solutions(root: Path) -> pd.DataFrame:
    frame = pd.read_parquet(root / "studies" / "t" / "solutions.parquet")
    return frame.set_index("item_id").sort_index()


@contextlib.contextmanager
def started(path: Path, command: str, *extra: str) -> Iterator[subprocess.Popen]:
    """The command in a child process (it inherits the server's environment); never
    leaked."""
    proc = subprocess.Popen(
        [*ITEMEVAL, command, str(path), "--display", "none", "--yes", *extra],
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def stop(proc: subprocess.Popen, number: int) -> int:
    proc.send_signal(number)
    return proc.wait(timeout=60)


def test_batch_generate_stores_rows_like_a_live_run_at_the_batch_price(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2  # 4 items, 2 requests per batch
        assert srv.answered() == 4 and len(srv.requests) == 4
        body = srv.requests[0]
        assert body["max_tokens"] == 256 and body["temperature"] == 0.5
        code, again = run(capsys, "generate", str(path), "--yes")
    assert code == 0 and srv.batches.submissions == 2  # nothing left to submit
    rows = solutions(tmp_path)
    assert rows.loc["a1", "solution"] == "Computing it directly.\nANSWER: 5"
    assert rows["error"].isna().all() and (rows["stop_reason"] == "stop").all()
    assert (rows["effective_max_tokens"] == 256).all()
    assert rows["input_tokens"].gt(0).all() and rows["output_tokens"].gt(0).all()
    live = (rows["input_tokens"] * 1.0 + rows["output_tokens"] * 2.0) / 1e6
    assert rows["usd"].tolist() == pytest.approx((live * 0.5).tolist())
    assert rows["log_file"].str.startswith("batches/").all()
    assert any("batch mode saved" in note for note in result["notes"])
    manifest = json.loads(Path(result["manifest"]).read_text())
    assert manifest["batch"]["submitted"] == 2
    assert manifest["batch"]["saving_usd"] == pytest.approx(rows["usd"].sum())
    done = ledger.submissions(StudyPaths(tmp_path / "studies" / "t"))
    assert [s.state for s in done] == ["closed", "closed"]


def test_error_lines_become_error_rows_and_are_retried(tmp_path, capsys, monkeypatch):
    rows = [dict(ARITH[0]), {**ARITH[1], "question": "FAIL500 What is 7 * 6?"}]
    path = batch_study(tmp_path, rows=rows)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, _ = run(capsys, "generate", str(path), "--yes")
        assert code == 0
        stored = solutions(tmp_path)
        assert "HTTP 500" in stored.loc["a2", "error"]
        assert pd.isna(stored.loc["a1", "error"])
        run(capsys, "generate", str(path), "--yes")
        assert (
            srv.batches.submitted("FAIL500") == 2
            and srv.batches.submitted("2 + 3") == 1
        )


@pytest.mark.parametrize(
    "number", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=str
)
def test_a_stopped_generate_resubmits_nothing_a_batch_holds(
    tmp_path, capsys, monkeypatch, number
):
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(2, timeout=90), proc.stderr
            _wait_recorded(tmp_path, 2)
            code = stop(proc, number)
        assert code == {signal.SIGKILL: -9, signal.SIGINT: 130}.get(number, 143)
        assert srv.batches.submissions == 2 and srv.answered() == 0
        srv.batches.complete()
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2  # zero new submissions
        assert srv.batches.submitted() == 4 and srv.answered() == 4
    rows = solutions(tmp_path)
    assert len(rows) == 4 and rows["error"].isna().all()
    assert rows.loc["a2", "solution"].endswith("ANSWER: 42")


def _wait_recorded(root: Path, count: int) -> None:
    """Until the ledger holds `count` batches with their ids (the child records each
    right after the provider accepts it)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        recorded = ledger.open_submissions(StudyPaths(root / "studies" / "t"))
        if sum(s.batch_id is not None for s in recorded) >= count:
            return
        time.sleep(0.02)
    pytest.fail("the batches were never recorded")


def test_a_batch_that_expires_half_done_keeps_that_half(tmp_path, capsys, monkeypatch):
    path = batch_study(tmp_path, size=4)
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(1, timeout=90)
            _wait_recorded(tmp_path, 1)
            stop(proc, signal.SIGKILL)
        srv.batches.expire(done=2)
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2
        assert srv.batches.submitted("2 + 3") == 1  # a1, a2 were answered
        assert srv.batches.submitted("100 - 58") == 2  # a3, a4 went again
    rows = solutions(tmp_path)
    assert sorted(rows.index) == ["a1", "a2", "a3", "a4"] and rows["error"].isna().all()


def _judge_reply(body: dict) -> str | None:
    if body.get("model") != "judge-model":
        return None
    return '{"score": 1, "reasoning": "matches the reference"}'


def grade_study(root: Path) -> Path:
    return batch_study(
        root,
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": JUDGE, "max_retries": 0}},
    )


@pytest.mark.parametrize(
    "number", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=str
)
def test_a_stopped_judge_grade_resubmits_nothing_a_batch_holds(
    tmp_path, capsys, monkeypatch, number
):
    path = grade_study(tmp_path)
    with serve(monkeypatch, responder=_judge_reply) as srv:
        srv.batches.auto_complete = True
        assert run(capsys, "generate", str(path), "--yes")[0] == 0
        srv.batches.auto_complete = False
        assert srv.batches.submissions == 2
        with started(path, "grade") as proc:
            assert srv.batches.wait_for(4, timeout=90)
            _wait_recorded(tmp_path, 2)
            stop(proc, number)
        assert srv.answered("Score 1 if right") == 0
        srv.batches.complete()
        code, result = run(capsys, "grade", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 4  # the judge's 2 batches, nothing new
        assert srv.answered("Score 1 if right") == 4
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    judged = grades[grades["grade_kind"] == "judge"]
    assert len(judged) == 4 and judged["parse_ok"].all()
    assert (judged["score"] == 1.0).all() and judged["error"].isna().all()
    assert judged["usd"].gt(0).all()


def test_estimate_prices_batch_calls_and_shows_the_live_price(tmp_path, capsys):
    path = batch_study(tmp_path)
    code, data = run(capsys, "estimate", str(path))
    assert code == 0
    total = data["total"]
    assert data["stages"]["generate"]["calls"] == 4
    assert total["usd_live_expected"] == pytest.approx(2 * total["usd_expected"])
    assert main(["estimate", str(path)]) == 0
    assert "at batch prices" in capsys.readouterr().out


def test_estimate_prices_judge_calls_at_the_batch_price_before_any_solution(
    tmp_path, capsys
):
    """Before generate, the grading a judge will do is projected; in batch mode its
    calls are batch calls, priced as the grade plan prices them once solutions
    exist."""
    path = batch_study(
        tmp_path,
        graders={"j": {"model": JUDGE, "max_tokens": 100}},
        facets__grader=["j"],
        facets__rubric=["r"],
    )
    code, data = run(capsys, "estimate", str(path))
    assert code == 0, data
    (judge,) = [c for c in data["conditions"] if c.get("model") == JUDGE]
    assert judge["calls"] == 4
    assert judge["usd_live_expected"] == pytest.approx(2 * judge["usd_expected"])
    total = data["total"]
    assert total["usd_live_expected"] == pytest.approx(2 * total["usd_expected"])


def test_a_tight_cap_stops_before_a_batch_that_could_cross_it(
    tmp_path, capsys, monkeypatch
):
    # A request's worst case is about $0.00028 at half price: the first batch (one
    # request) fits under $0.00029; once it is answered (~$0.00002) no second request
    # fits, and no open batch could free room.
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, result = run(
            capsys, "generate", str(path), "--yes", "--max-usd", "0.00029"
        )
        assert code == 4, result
        assert result["outcome"] == "budget_stopped"
        assert srv.batches.submissions == 1 and srv.answered() == 1
        rows = solutions(tmp_path)
        assert len(rows) == 1 and rows["error"].isna().all()
        assert rows["usd"].sum() <= 0.00029
        code, _ = run(capsys, "generate", str(path), "--yes")
        assert code == 0 and srv.batches.submissions == 3  # uncapped: 2 + 1
    assert len(solutions(tmp_path)) == 4


def test_cached_cells_of_a_batch_condition_are_served_from_the_cache(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path, cache=True)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        config = path.read_text().replace("batch: 2", "batch: false")
        path.write_text(config)
        assert run(capsys, "generate", str(path), "--yes")[0] == 0  # live, cached
        assert srv.batches.submissions == 0 and srv.answered() == 4
        path.write_text(config.replace("batch: false", "batch: 2"))
        code, result = run(capsys, "generate", str(path), "--yes", "--fresh")
        assert code == 0 and srv.batches.submissions == 2  # --fresh reads no cache
        code, result = run(capsys, "generate", str(path), "--yes", "--force")
        assert code == 0, result
        assert srv.batches.submissions == 2 and srv.answered() == 8
    assert solutions(tmp_path)["cache_hit"].all()


def test_replies_a_batch_cached_are_named_this_study_s_by_estimate(
    tmp_path, capsys, monkeypatch
):
    """A batch reply cached under the live call's key is this study's, as a live
    reply is: after the study is wiped, estimate says so."""
    path = batch_study(tmp_path, cache=True)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        assert run(capsys, "generate", str(path), "--yes")[0] == 0
        assert srv.batches.submissions == 2
    shutil.rmtree(tmp_path / "studies")
    capsys.readouterr()
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "4 from this study's earlier calls" in out, out


def test_status_and_batches_show_open_batches_and_cancel_them(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path, size=4)
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(1, timeout=90)
            _wait_recorded(tmp_path, 1)
            stop(proc, signal.SIGKILL)
        (batch_id,) = srv.batches.open_ids()
        code, data = run(capsys, "estimate", str(path))
        assert code == 0  # the open batch's cells are paid for already
        assert data["stages"].get("generate", {"calls": 0})["calls"] == 0
        code, data = run(capsys, "status", str(path))
        assert code == 0
        (row,) = data["batches"]
        assert row["batch_id"] == batch_id and row["requests"] == 4
        assert row["stage"] == "generate" and row["state"] == "validating"
        assert main(["status", str(path)]) == 0
        assert batch_id in capsys.readouterr().out
        code, data = run(capsys, "batches", str(path), "--cancel")
        assert code == 0 and data["cancelled"][0]["state"] == "cancelled"
        assert srv.batches.open_ids() == []
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2 and srv.answered() == 4
        code, data = run(capsys, "batches", str(path))
        assert code == 0 and data == {"batches": []}


def test_cells_a_cancelled_batch_left_need_the_gate_before_they_go_again(
    tmp_path, capsys, monkeypatch
):
    """The estimate a re-run is approved on leaves out cells an open batch holds; if
    that batch turns out cancelled, sending them again would spend what nobody
    approved. Without --yes above the gate they stay missing (exit 1, saying why),
    and the next run's estimate prices them, so the gate asks (exit 3)."""
    path = batch_study(tmp_path, size=4, budget__confirm_above_usd=0.0001)
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(1, timeout=90)
            _wait_recorded(tmp_path, 1)
            stop(proc, signal.SIGKILL)
        code, data = run(capsys, "batches", str(path), "--cancel")
        assert code == 0 and len(data["cancelled"]) == 1
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path))
        assert code == 1, result
        assert srv.batches.submissions == 1  # nothing went again
        (failure,) = {c["failure"] for c in result["conditions"]}
        assert "4 cell(s) that an earlier run's batch left unanswered" in failure
        assert "would cross the spend gate" in failure
        code, result = run(capsys, "generate", str(path))
        assert code == 3 and srv.batches.submissions == 1  # priced now: it asks
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2 and srv.answered() == 4


def test_a_batch_that_fails_in_the_run_leaves_its_cells_missing_saying_so(
    tmp_path, monkeypatch
):
    """A cell goes once per run: when its batch fails, the run exits 1 naming how the
    batch ended, not 'completed' with nothing written; the next run sends it again."""
    path = batch_study(tmp_path, size=4)
    with serve(monkeypatch) as srv:
        with started(path, "generate", "--json") as proc:
            assert srv.batches.wait_for(1, timeout=90)
            srv.batches.fail()
            out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err
        assert srv.batches.submissions == 1 and srv.answered() == 0
        result = json.loads(out)
        assert result["outcome"] == "failed"
        (failure,) = {c["failure"] for c in result["conditions"]}
        assert "4 request(s) of a batch that ended failed went unanswered" in failure
        srv.batches.auto_complete = True
        with started(path, "generate") as proc:
            proc.communicate(timeout=120)
        assert proc.returncode == 0
        assert srv.batches.submissions == 2 and srv.answered() == 4


def test_a_host_without_a_batch_api_fails_the_condition_and_loses_nothing(
    tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        srv.batches.enabled = False
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 1
        (condition,) = result["conditions"]
        assert "batch submission failed" in condition["failure"]
        assert "test-key" not in json.dumps(result)
        assert ledger.open_submissions(StudyPaths(tmp_path / "studies" / "t")) == []
        srv.batches.enabled, srv.batches.auto_complete = True, True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
    assert len(solutions(tmp_path)) == 4


def test_a_cap_stop_counts_cells_in_open_batches_apart_from_those_not_run():
    """7 of 20 planned cells sit in a batch that is still open: 13 were not run."""
    import io

    from rich.console import Console

    from itemeval.console.render import render_stage
    from itemeval.outcomes import ConditionRun, StageResult

    result = StageResult(
        "generate",
        "t",
        outcome="budget_stopped",
        conditions=[ConditionRun("c", "c-slug", planned=20)],
        held_open=7,
    )
    buffer = io.StringIO()
    render_stage(result, Console(file=buffer, width=200))
    assert (
        "stopped by max_usd: 13 cells were not run and stay missing (not failed), "
        "7 more are in open batches" in buffer.getvalue()
    )
