"""A generate killed or interrupted mid-run loses no finished cell and never pays for
one twice (README "What runs, and when").

These run `itemeval generate` as a real subprocess and signal it once its journal holds
some records, so they are slow-ish (a few seconds each) but exercise exactly what a
user's Ctrl-C or an OOM kill does.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from itemeval import signals
from itemeval.cli import main
from itemeval.paths import StudyPaths
from itemeval.store.lock import study_lock
from tests.helpers import TESTS, base_config, write_study
from tests.openai_server import OpenAIServer

ITEMEVAL = [
    sys.executable,
    "-m",
    "itemeval",
]  # the CLI of whatever environment runs the tests
N_ITEMS = 8
# a bound on waits for an event (a journaled row, a call held at the server), not a
# speed: generous, as the machines are shared and may be loaded
EVENT_WAIT_S = 180.0


def write_items_study(root: Path, **overrides) -> Path:
    """N_ITEMS arithmetic items, one call at a time, each question tagged `[qN]` to
    count its requests by."""
    rows = [
        {
            "qid": f"q{i}",
            "question": f"[q{i}] What is {i} + {i + 1}?",
            "answer": str(2 * i + 1),
        }
        for i in range(N_ITEMS)
    ]
    config = base_config(
        **{"solvers__max_connections": 1, "solvers__max_retries": 0, **overrides}
    )
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(root, config, rows=rows, prompt="{input}")


def journal_records(study_dir: Path) -> list[dict]:
    """The complete (newline-terminated) records in the study's journal files."""
    records = []
    for path in sorted((study_dir / "journal").glob("*.jsonl")):
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # replayed and removed since the glob
            continue
        for line in data.splitlines(keepends=True):
            if line.endswith(b"\n"):
                records.append(json.loads(line)["row"])
    return records


@contextlib.contextmanager
def generate_until(
    path: Path, env: dict[str, str], *, records: int, extra: tuple[str, ...] = ()
) -> Iterator[subprocess.Popen]:
    """Start `itemeval generate` and yield it once its journal holds `records`
    complete records; never leak it."""
    proc = subprocess.Popen(
        [*ITEMEVAL, "generate", str(path), "--display", "none", *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        study_dir = path.parent / "studies" / "t"
        deadline = time.monotonic() + EVENT_WAIT_S
        while len(journal_records(study_dir)) < records:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                _, err = proc.communicate(timeout=10)
                pytest.fail(
                    f"generate ended (rc {proc.returncode}) or stalled before "
                    f"journaling {records} rows:\n" + err.decode()
                )
            time.sleep(0.02)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def manifest(study_dir: Path) -> dict:
    (path,) = (study_dir / "manifests").glob("*.json")
    return json.loads(path.read_text())


@pytest.mark.parametrize("cache", [False, True], ids=["cache-off", "cache-on"])
def test_sigkill_mid_run_keeps_every_journaled_cell_and_never_requests_it_again(
    tmp_path, capsys, monkeypatch, cache
):
    # The local server, not an offline model, so "no request" is counted where requests
    # arrive.
    path = write_items_study(
        tmp_path, cache=cache, solvers__models=["openai-api/local/slow"]
    )
    study_dir = tmp_path / "studies" / "t"
    with OpenAIServer(delay=0.3) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        with generate_until(path, dict(os.environ), records=3) as proc:
            assert (
                manifest(study_dir)["outcome"] == "running"
            )  # written when the run started
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)

        journaled = journal_records(
            study_dir
        )  # every record that reached the disk before the kill
        assert 3 <= len(journaled) < N_ITEMS
        requests_before = {f"q{i}": srv.count(f"[q{i}]") for i in range(N_ITEMS)}

        capsys.readouterr()
        assert (
            main(["status", str(path), "--json"]) == 0
        )  # the next command of any kind recovers them
        (row,) = json.loads(capsys.readouterr().out)["generate"]
        assert row["done"] == len(journaled) and row["errors"] == 0
        assert not list((study_dir / "journal").glob("*.jsonl"))
        stored = pd.read_parquet(study_dir / "solutions.parquet").set_index("item_id")
        for record in journaled:
            assert stored.loc[record["item_id"], "sample_uuid"] == record["sample_uuid"]
            assert stored.loc[record["item_id"], "solution"] == record["solution"]

        capsys.readouterr()
        assert main(["generate", str(path), "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
        requests_after = {f"q{i}": srv.count(f"[q{i}]") for i in range(N_ITEMS)}

    recovered = {record["item_id"] for record in journaled}
    assert result["totals"]["planned"] == N_ITEMS - len(recovered)
    assert {
        item: requests_after[item] - requests_before[item] for item in recovered
    } == dict.fromkeys(recovered, 0)
    final = pd.read_parquet(study_dir / "solutions.parquet").set_index("item_id")
    assert len(final) == N_ITEMS and final["error"].isna().all()
    killed_run = journaled[0]["run_id"]
    assert (
        final.loc[sorted(recovered), "run_id"] == killed_run
    ).all()  # never re-run, with or without cache


# With evals of 3 cells each batch's journal is replayed and removed as it ends, so the
# signal is sent at the first journaled record: it lands inside the first eval, or just
# after it while its rows are being replayed, and the later evals must not start.
@pytest.mark.parametrize(
    ("cells_per_eval", "records"),
    [(None, 2), ("3", 1)],
    ids=["one-eval", "evals-of-3-cells"],
)
def test_ctrl_c_mid_run_exits_130_keeps_finished_rows_and_releases_the_lock(
    tmp_path, capsys, cells_per_eval, records
):
    path = write_items_study(tmp_path, cache=False)
    study_dir = tmp_path / "studies" / "t"
    env = {**os.environ, "ITEMEVAL_OFFLINE_LATENCY": "0.3"}
    if cells_per_eval:
        env["ITEMEVAL_CELLS_PER_EVAL"] = cells_per_eval

    with generate_until(path, env, records=records, extra=("--json",)) as proc:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)

    assert proc.returncode == 130, err.decode()
    result = json.loads(out)  # still exactly one JSON document on stdout
    assert result["outcome"] == "interrupted" and result["exit_code"] == 130
    run = manifest(study_dir)
    assert (
        run["outcome"] == "interrupted"
        and run["ended_at"]
        and run["run_id"] == result["run_id"]
    )
    rows = pd.read_parquet(study_dir / "solutions.parquet")
    assert records <= len(rows) < N_ITEMS and (rows["run_id"] == result["run_id"]).all()
    assert (
        rows["error"].isna().all()
    )  # the call cut off by Ctrl-C is missing, not a failed row
    assert result["totals"]["rows"] == len(rows) and result["totals"]["errors"] == 0
    assert not list((study_dir / "journal").glob("*.jsonl"))
    with study_lock(StudyPaths(study_dir), "test"):  # released
        pass

    capsys.readouterr()
    assert main(["generate", str(path), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["totals"]["planned"] == N_ITEMS - len(rows)
    assert len(pd.read_parquet(study_dir / "solutions.parquet")) == N_ITEMS


@pytest.mark.parametrize(
    ("signal_number", "code"),
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGTERM", "SIGHUP"],
)
def test_a_schedulers_signal_stops_like_ctrl_c_with_its_own_exit_code(
    tmp_path, signal_number, code
):
    path = write_items_study(tmp_path, cache=False)
    study_dir = tmp_path / "studies" / "t"
    env = {**os.environ, "ITEMEVAL_OFFLINE_LATENCY": "0.3"}

    with generate_until(path, env, records=2, extra=("--json",)) as proc:
        proc.send_signal(signal_number)
        out, err = proc.communicate(timeout=30)

    assert proc.returncode == code, err.decode()
    result = json.loads(out)
    assert result["outcome"] == "interrupted" and result["exit_code"] == code
    assert manifest(study_dir)["outcome"] == "interrupted"
    rows = pd.read_parquet(study_dir / "solutions.parquet")
    assert 2 <= len(rows) < N_ITEMS and rows["error"].isna().all()
    with study_lock(StudyPaths(study_dir), "test"):  # released
        pass


STALLED_CLI = [sys.executable, str(TESTS / "stalled_sample_end.py")]


@pytest.mark.parametrize(
    ("signal_number", "code"),
    [(signal.SIGKILL, -9), (signal.SIGINT, 130), (signal.SIGTERM, 143)],
    ids=["SIGKILL", "SIGINT", "SIGTERM"],
)
def test_a_paid_reply_is_journaled_when_its_call_returns_not_when_its_sample_ends(
    tmp_path, capsys, monkeypatch, signal_number, code
):
    # Samples' ends are held back for minutes and the server answers 3 calls, then holds
    # the next: the 3 paid replies must reach the journal anyway, and after the signal
    # and a re-run (cache off) no reply the server sent before the signal is paid for
    # again.
    path = write_items_study(
        tmp_path,
        cache=False,
        solvers__max_connections=4,
        solvers__models=["openai-api/local/m"],
    )
    study_dir = tmp_path / "studies" / "t"
    with OpenAIServer(answer_limit=3) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        # Held for good under SIGKILL; for a few seconds otherwise, since a stopping
        # eval waits for its hooks.
        stall = {
            "TEST_STALL_S": "300" if signal_number == signal.SIGKILL else "4",
            "ITEMEVAL_DRAIN_S": "1",
        }
        proc = subprocess.Popen(
            [*STALLED_CLI, "generate", str(path), "--display", "none"],
            env={**os.environ, **stall},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + EVENT_WAIT_S
            while len(journal_records(study_dir)) < 3 or srv.in_flight < 1:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        "3 answered calls were not journaled while their "
                        "samples' ends were held "
                        f"(journal {len(journal_records(study_dir))}, answered "
                        f"{srv.answered()})"
                    )
                time.sleep(0.02)
            in_flight = srv.in_flight
            paid_before = {record["item_id"] for record in journal_records(study_dir)}
            proc.send_signal(signal_number)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
        assert proc.returncode == code, err.decode()
        # the held call's reply goes out now: paid for, whether or not anyone reads it
        srv.release()

        capsys.readouterr()
        assert main(["generate", str(path), "--json"]) == 0
        answered = {f"q{i}": srv.answered(f"[q{i}]") for i in range(N_ITEMS)}

    assert len(paid_before) == 3 and all(answered[item] == 1 for item in paid_before), (
        answered
    )
    repaid = sum(count - 1 for count in answered.values() if count > 1)
    assert repaid <= in_flight
    final = pd.read_parquet(study_dir / "solutions.parquet")
    assert sorted(final["item_id"]) == sorted(answered) and final["error"].isna().all()


def test_no_call_starts_after_ctrl_c(tmp_path, capsys, monkeypatch):
    # Ctrl-C lands just before the 4th reply goes out, one call at a time: the sample
    # waiting for the connection that reply frees must not make its call.
    path = write_items_study(
        tmp_path, cache=False, solvers__models=["openai-api/local/m"]
    )

    def interrupt(number: int) -> None:
        if number == 4:
            os.kill(os.getpid(), signal.SIGINT)

    with OpenAIServer(before_reply=interrupt) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        assert main(["generate", str(path), "--json"]) == 130
        assert len(srv.requests) == 4
    rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    # The 4th call was in flight at the signal: it may return (and is kept), but nothing
    # starts after it.
    assert len(rows) == 4 and rows["error"].isna().all()


def test_a_first_ctrl_c_lets_the_calls_in_flight_return_so_none_is_paid_twice(
    tmp_path, capsys, monkeypatch
):
    path = write_items_study(
        tmp_path,
        cache=False,
        solvers__max_connections=4,
        solvers__models=["openai-api/local/m"],
    )
    # The server holds every reply until the command has taken the signal: four calls
    # are in flight then, however slow the machine, and they may only return into the
    # drain.
    srv = OpenAIServer(answer_limit=0)

    def interrupt_when_all_connections_are_busy() -> None:
        deadline = time.monotonic() + EVENT_WAIT_S
        while srv.in_flight < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)
        while not signals.stop_requested() and time.monotonic() < deadline:
            time.sleep(0.01)
        srv.release()

    with srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        interrupter = threading.Thread(target=interrupt_when_all_connections_are_busy)
        interrupter.start()
        capsys.readouterr()
        assert main(["generate", str(path), "--json"]) == 130
        interrupter.join()
        assert "waiting up to 10 s for 4 call(s) in flight" in capsys.readouterr().err
        assert len(srv.requests) == 4
        rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
        assert len(rows) == 4 and rows["error"].isna().all()  # all four replies kept
        assert main(["generate", str(path), "--json"]) == 0
        assert len(srv.requests) == N_ITEMS  # the re-run asked only for the rest


def test_the_hard_stop_after_a_cancel_is_disarmed_when_the_eval_ends(monkeypatch):
    # A cancelled eval that never unwinds is ended by a timer; one that does unwind must
    # not be: the timer would kill whatever the process does next (another command in
    # the same process, a test worker).
    from itemeval import signals

    exits: list[int] = []
    monkeypatch.setattr(signals.os, "_exit", exits.append)
    monkeypatch.setattr(signals, "HARD_STOP_S", 0.2)
    signals._hard_stop_later()
    timer = signals._hard_stop
    signals._forget_cancel()  # what sigint_handler_kept does once the eval returns
    timer.join(timeout=5)
    assert exits == [] and signals._hard_stop is None

    signals._hard_stop_later()
    signals._hard_stop.join(timeout=5)  # never disarmed: it fires
    assert exits == [signals.interrupted_exit_code()]
    signals._forget_cancel()
