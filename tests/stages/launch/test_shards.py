"""Shards (SPEC §19) under kills and races: a killed shard or launcher loses no paid
reply and pays again only for the calls it had in flight; two committers at once store
each row once.

The shards and launchers run as real subprocesses against the local OpenAI-compatible
server with the response cache off, so every call a re-run makes again is counted where
the calls arrive. The server holds replies past `answer_limit`, which pins "calls in
flight at the kill" however slow the machine is.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import psutil
import pytest

from itemeval.cli import main
from itemeval.plan import shards as plan_shards
from itemeval.stages.launch import pool
from itemeval.stages.launch.shards import failure_reason
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

ITEMEVAL = [sys.executable, "-m", "itemeval"]
N_ITEMS = 48
KEY = ["condition_id", "item_id", "epoch"]
TAGS = [f"[q{i:02d}]" for i in range(N_ITEMS)]
WAIT_S = 120.0


def server_study(root: Path, model: str = "openai-api/local/m") -> Path:
    """N_ITEMS arithmetic items, each question starting with a `[qNN]` tag to count
    its calls by; 8 connections (4 for each of 2 shards)."""
    rows = [
        {
            "qid": f"q{i:02d}",
            "question": f"{TAGS[i]} What is {i} + {i + 1}?",
            "answer": str(2 * i + 1),
        }
        for i in range(N_ITEMS)
    ]
    config = base_config(
        **{
            "cache": False,
            "solvers__models": [model],
            "solvers__max_connections": 8,
            "solvers__max_retries": 0,
        }
    )
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(root, config, rows=rows, prompt="{input}")


def journal_rows(root: Path, prefix: str = "") -> list[dict]:
    """Complete (newline-terminated) solution records in the journal parts whose name
    starts with `prefix`."""
    rows = []
    for path in sorted((root / "studies" / "t" / "journal").glob(f"{prefix}*.jsonl")):
        with contextlib.suppress(
            FileNotFoundError
        ):  # committed and removed since the glob
            rows += [
                json.loads(line)["row"]
                for line in path.read_bytes().splitlines(keepends=True)
                if line.endswith(b"\n")
            ]
    return rows


def solutions(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "solutions.parquet")


def start(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """A command in a session of its own, so a SIGKILL to its process group reaches
    it and nothing else."""
    return subprocess.Popen(
        [*ITEMEVAL, *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 300) -> tuple[int, str]:
    """Wait for the command; (exit code, the tail of stderr)."""
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err.decode(errors="replace")[-2000:]


@contextlib.contextmanager
def reaped(*procs: subprocess.Popen) -> Iterator[None]:
    """Never leak a command (nor a child it started in a session of its own) past the
    test."""
    try:
        yield
    finally:
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                for child in psutil.Process(proc.pid).children(recursive=True):
                    child.kill()
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)


def wait_for(
    condition: Callable[[], bool], what: Callable[[], str], *alive: subprocess.Popen
) -> None:
    """Poll until `condition` holds; fail, saying `what`, if a command in `alive`
    ends first or WAIT_S pass."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        ended = [proc for proc in alive if proc.poll() is not None]
        if ended or time.monotonic() > deadline:
            details = [
                f"rc {p.returncode}: "
                f"{p.communicate()[1].decode(errors='replace')[-1500:]}"
                for p in ended
            ]
            pytest.fail(
                f"{'a command ended' if ended else 'timed out'} waiting: {what()}\n"
                + "\n".join(details)
            )
        time.sleep(0.02)


def held_after_kill(*servers: OpenAIServer) -> int:
    """Calls in flight when the client died: requests the servers still hold, once
    any the kernel had already accepted have reached a handler (the accept loop polls
    every 0.05 s)."""
    time.sleep(0.5)
    return sum(srv.in_flight for srv in servers)


def repaid(*servers: OpenAIServer) -> tuple[dict[str, int], int]:
    """Answered calls per cell over all servers, and those beyond each cell's first:
    paid for twice."""
    answered = {tag: sum(srv.answered(tag) for srv in servers) for tag in TAGS}
    return answered, sum(count - 1 for count in answered.values() if count > 1)


def ended(procs: list[psutil.Process]) -> bool:
    """Whether every process has exited (a zombie has: it only waits for its new
    parent to reap it)."""

    def gone(proc: psutil.Process) -> bool:
        try:
            return proc.status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    return all(gone(proc) for proc in procs)


def shard_of_tags(condition_id: str) -> dict[str, int]:
    """Each item's shard of 2, by its question's `[qNN]` tag (a prompt starts with
    it)."""
    return {tag: plan_shards.shard_of(condition_id, tag[1:-1], 2) for tag in TAGS}


def assert_each_cell_stored_once(root: Path) -> pd.DataFrame:
    rows = solutions(root)
    assert len(rows) == N_ITEMS, f"{len(rows)} rows for {N_ITEMS} cells"
    assert not rows.duplicated(KEY).any(), rows[rows.duplicated(KEY, keep=False)][KEY]
    assert rows["error"].isna().all(), rows["error"].dropna().tolist()
    assert sorted(rows["item_id"]) == [f"q{i:02d}" for i in range(N_ITEMS)]
    return rows


def test_sigkill_one_shard_mid_run_then_rerun_recovers_every_paid_reply(
    tmp_path, capsys
):
    path = server_study(tmp_path)
    # Shard 0 talks to its own server, which answers 5 calls and holds the rest, so the
    # kill finds paid replies journaled and calls in flight; shard 1 talks to a server
    # that answers everything.
    with OpenAIServer(answer_limit=5) as held, OpenAIServer() as free:
        shard = [
            "generate",
            str(path),
            "--yes",
            "--json",
            "--display",
            "none",
            "--shard",
        ]
        zero = start([*shard, "0/2"], {**os.environ, **held.env()})
        one = start([*shard, "1/2"], {**os.environ, **free.env()})
        with reaped(zero, one):
            wait_for(
                lambda: (
                    len(journal_rows(tmp_path, "shard-0-of-2-")) == 5
                    and held.in_flight >= 1
                ),
                lambda: (
                    "shard 0 journaled "
                    f"{len(journal_rows(tmp_path, 'shard-0-of-2-'))} of 5 "
                    "answered calls, "
                    f"{held.in_flight} in flight"
                ),
                zero,
            )
            paid_before = {
                row["item_id"] for row in journal_rows(tmp_path, "shard-0-of-2-")
            }
            os.killpg(zero.pid, signal.SIGKILL)
            assert finish(zero, timeout=30)[0] == -signal.SIGKILL
            in_flight = held_after_kill(held)
            code, err = finish(one)
            assert code == 0, err

        # the held calls are answered now: paid for, though nobody reads the replies
        held.release()
        rerun = start([*shard, "0/2"], {**os.environ, **held.env()})
        with reaped(rerun):
            code, err = finish(rerun)
        assert code == 0, err
        capsys.readouterr()
        assert main(["commit", str(path), "--json"]) == 0
        answered, twice = repaid(held, free)

    print(f"shard 0 killed with {in_flight} call(s) in flight; re-paid {twice}")
    assert in_flight >= 1 and len(paid_before) == 5
    assert all(answered[f"[{item}]"] == 1 for item in paid_before), (
        answered
    )  # no journaled reply asked again
    assert twice <= in_flight, answered
    stored = assert_each_cell_stored_once(tmp_path)
    assert (
        free.answered() == stored["run_id"].str.startswith("shard-1-of-2-").sum()
    )  # shard 1 paid once per cell
    assert not list((tmp_path / "studies" / "t" / "journal").glob("*.jsonl"))
    (killed_run,) = set(
        stored.loc[stored["item_id"].isin(paid_before), "run_id"]
    )  # kept, not re-run
    assert killed_run.startswith("shard-0-of-2-")


def test_two_concurrent_committers_store_each_row_once(tmp_path, capsys):
    path = server_study(tmp_path, model="itemeval/arith-good")
    shard = ["generate", str(path), "--yes", "--json", "--display", "none", "--shard"]
    shards = [start([*shard, f"{k}/2"], dict(os.environ)) for k in range(2)]
    with reaped(*shards):
        ends = [finish(proc) for proc in shards]
    assert [code for code, _ in ends] == [0, 0], ends
    assert len(journal_rows(tmp_path)) == N_ITEMS
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()

    committers = [
        start(["commit", str(path), "--json"], dict(os.environ)) for _ in range(2)
    ]  # both before a wait
    with reaped(*committers):
        outputs = [proc.communicate(timeout=300) for proc in committers]
    codes = [proc.returncode for proc in committers]
    # Each takes the study lock without waiting: one that finds it held exits 5 naming
    # the holder (EXIT_LOCKED).
    assert sorted(codes) in ([0, 0], [0, 5]), [
        err.decode()[-1000:] for _, err in outputs
    ]
    for code, (out, err) in zip(codes, outputs):
        if code == 5:  # --json: the error as the one JSON document on stdout
            # named by pid, or (when it lost the race in the instant between the
            # other's flock and its writing its pid) by the lock file
            assert json.loads(out)["error"]["kind"] == "locked"
            assert any(
                text in err.decode()
                for text in ("is locked by pid", "locked by another itemeval command")
            ), err.decode()
    committed = [
        json.loads(out)["recovered_rows"].get("solutions", 0)
        for code, (out, _) in zip(codes, outputs)
        if code == 0
    ]
    assert (
        sum(committed) == N_ITEMS
    )  # every journaled row merged by exactly one of them

    capsys.readouterr()
    assert main(["commit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {}
    before = assert_each_cell_stored_once(tmp_path)
    version = os.readlink(
        tmp_path / "studies" / "t" / "solutions.parquet"
    )  # the store's current version dir
    assert main(["commit", str(path), "--json"]) == 0  # again: a no-op
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {}
    pd.testing.assert_frame_equal(solutions(tmp_path), before)
    assert (
        os.readlink(tmp_path / "studies" / "t" / "solutions.parquet") == version
    )  # no new version written
    print(f"concurrent committers exited {codes}")


@pytest.mark.parametrize("killed", ["launcher-group", "every-process"])
def test_a_killed_launch_resumes_without_repaying(tmp_path, killed):
    # launcher-group: `kill -9 -PGID` of the launcher, as a shell or a supervisor sends
    # it to a job (the shards run in sessions of their own); every-process: the launcher
    # and its shards die together, as when a cgroup is killed.
    path = server_study(tmp_path)
    launch = ["launch", "generate", str(path), "--shards", "2", "--yes", "--json"]
    with OpenAIServer(answer_limit=5) as srv:
        env = {**os.environ, **srv.env()}
        first = start(launch, env)
        shards: list[psutil.Process] = []
        try:
            with reaped(first):
                # 8 held: both shards are past planning, each with its 4 connections
                # busy.
                wait_for(
                    lambda: len(journal_rows(tmp_path)) == 5 and srv.in_flight == 8,
                    lambda: (
                        f"journaled {len(journal_rows(tmp_path))} of 5 "
                        f"answered calls, {srv.in_flight} of 8 "
                        "in flight"
                    ),
                    first,
                )
                shards = psutil.Process(first.pid).children(recursive=True)
                os.killpg(
                    first.pid, signal.SIGKILL
                )  # first, so the launcher cannot start a killed shard again
                if killed == "every-process":
                    for shard in shards:
                        shard.kill()
                assert finish(first, timeout=30)[0] == -signal.SIGKILL
            in_flight = held_after_kill(srv)
            seen_at_kill = len(srv.requests)
            owner = shard_of_tags(journal_rows(tmp_path)[0]["condition_id"])

            second = start(launch, env)
            with reaped(second):
                # Released once both of the second launch's shards have planned and
                # called, so what each shard of either launch does is decided while the
                # first launch's calls are still held.
                wait_for(
                    lambda: (
                        {owner[call["prompt"][:5]] for call in srv.calls[seen_at_kill:]}
                        == {0, 1}
                    ),
                    lambda: (
                        "the second launch's shards did not both call "
                        f"({len(srv.requests)} requests)"
                    ),
                    second,
                )
                srv.release()
                code, err = finish(second)
            assert code == 0, err
            rows_after_launch = len(solutions(tmp_path))
            wait_for(
                lambda: ended(shards),
                lambda: (
                    f"shard process(es) of the killed launch still running: {shards}"
                ),
            )
        finally:
            for shard in shards:
                with contextlib.suppress(psutil.Error):
                    shard.kill()
        answered, twice = repaid(srv)

    print(
        f"launch killed ({killed}): {len(shards)} shard process(es), "
        f"{in_flight} call(s) in flight; "
        f"re-paid {twice}; {rows_after_launch} rows stored by the second launch"
    )
    assert len(shards) == 2 and in_flight == 8
    assert twice <= in_flight, (
        f"re-paid {twice} > {in_flight} in flight at the kill; answered per "
        f"cell: {answered}"
    )
    assert rows_after_launch == N_ITEMS
    assert_each_cell_stored_once(tmp_path)


@pytest.mark.parametrize(
    "code, err, reason",
    [
        (
            -9,
            b"warning: prompt 'p': {x} is not a known placeholder\n",
            "killed by SIGKILL",
        ),
        (-15, b"", "killed by SIGTERM"),
        (-200, b"", "killed by signal 200"),
        (
            1,
            b"progress 3/10\nerror: disk full at x\nbye\n",
            "error: disk full at x (exit 1)",
        ),
        (2, b"Traceback ...\nValueError: bad\n", "ValueError: bad (exit 2)"),
        (1, b"", "exit 1"),
    ],
)
def test_a_shards_failure_is_told_by_what_ended_it(code, err, reason):
    assert failure_reason(code, err) == reason


def test_a_shard_killed_and_run_again_is_reported_with_its_signal(
    tmp_path, monkeypatch
):
    """The first attempt of shard 1 kills itself with SIGKILL after printing a
    warning; the pool runs it again, and its outcome says it was killed, not the
    warning."""
    marker = tmp_path / "first"
    script = (
        "import os, signal, sys, pathlib; m = pathlib.Path(sys.argv[1]);"
        "shard = sys.argv[3];"
        "first = shard.startswith('1/') and not m.exists(); m.touch() if first else 0;"
        "print('warning: a placeholder', file=sys.stderr, flush=True);"
        "os.kill(os.getpid(), signal.SIGKILL) if first else print('{}')"
    )

    def command(args, index, shards, cap):
        return [
            sys.executable,
            "-c",
            script,
            str(marker),
            "--shard",
            f"{index}/{shards}",
        ]

    monkeypatch.setattr(pool, "_command", command)
    told: list[str] = []
    outcomes, interrupted = pool.run_pool(
        [], 2, {0: None, 1: None}, tmp_path, told.append
    )
    assert not interrupted and {k: o["code"] for k, o in outcomes.items()} == {
        0: 0,
        1: 0,
    }
    assert told == ["shard 1/2 failed (killed by SIGKILL); running it again"]
    assert (
        outcomes[1]["earlier"] == ["killed by SIGKILL"] and outcomes[0]["earlier"] == []
    )
