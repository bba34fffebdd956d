"""A study on object storage (SPEC §19): `output_dir: s3://...` against a loopback S3
server (moto).

Each "machine" is a working dir of its own (ITEMEVAL_WORK_DIR); they meet only at the
bucket.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip(
    "deltalake",
    reason="studies on object storage need itemeval[delta] (make test installs it)",
)
pytest.importorskip(
    "moto", reason="the loopback S3 server is moto's (make test installs it)"
)

from itemeval.cli import main  # noqa: E402
from tests.helpers import REPO, base_config, write_study  # noqa: E402
from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture

ROWS = [
    {"qid": f"q{i:02d}", "question": f"What is {i} + {i}?", "answer": str(2 * i)}
    for i in range(1, 13)
]
MODELS = ["itemeval/arith-good", "itemeval/arith-weak"]
MAPPING = {"input": "question", "target": "answer", "id": "qid"}  # no metadata
CELLS = len(MODELS) * len(ROWS) * 2
SOLUTION_KEY = ["condition_id", "item_id", "epoch"]
GRADE_KEY = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
HOW_MADE = [
    "latency_s",
    "created_at",
    "run_id",
    "log_file",
    "sample_uuid",
    "effective_config",
]


def study(root: Path, output_dir: str) -> Path:
    config = base_config(
        **{
            "cache": False,
            "output_dir": output_dir,
            "solvers__models": MODELS,
            "facets__replications": 2,
            "benchmark__mapping": MAPPING,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge", "max_tokens": 256}},
        }
    )
    return write_study(root, config, rows=ROWS)


def machine(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    monkeypatch.setenv("ITEMEVAL_WORK_DIR", str(root))
    return root


def snapshot(s3, store: str) -> pd.DataFrame:
    """A store as an outside reader sees it: latest.json, then one plain parquet
    file, with pandas."""
    options = {
        "client_kwargs": {"endpoint_url": s3.endpoint},
        "key": "testing",
        "secret": "testing",
    }
    latest = json.loads(
        pd.io.common.get_handle(
            s3.uri("team", "t", "latest.json"), "r", storage_options=options
        ).handle.read()
    )
    return pd.read_parquet(
        s3.uri("team", "t", latest["stores"][store]["path"]), storage_options=options
    )


def ordered(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    frame = frame.drop(columns=[c for c in HOW_MADE if c in frame.columns])
    return frame.sort_values(key).reset_index(drop=True)


def run(capsys, *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def test_a_study_on_s3_runs_end_to_end_and_equals_the_same_study_on_disk(
    s3_server, tmp_path, capsys, monkeypatch
):
    local = study(tmp_path / "local", "studies")
    assert (
        main(["generate", str(local), "--yes"]) == 0
        and main(["grade", str(local), "--yes"]) == 0
    )
    machine(monkeypatch, tmp_path / "work")
    remote = study(tmp_path / "remote", "s3://studies/team")
    assert run(capsys, "generate", str(remote), "--yes")[1]["totals"]["rows"] == CELLS
    assert run(capsys, "grade", str(remote), "--yes")[1]["totals"]["rows"] == 2 * CELLS
    assert (
        run(capsys, "generate", str(remote), "--yes")[1]["totals"]["planned"] == 0
    )  # planned from the table

    on_disk = tmp_path / "local" / "studies" / "t"
    for store, key in (("solutions", SOLUTION_KEY), ("grades", GRADE_KEY)):
        shared = snapshot(s3_server, store)
        assert not shared.duplicated(key).any() and len(shared) == (
            CELLS if store == "solutions" else 2 * CELLS
        )
        pd.testing.assert_frame_equal(
            ordered(shared, key),
            ordered(pd.read_parquet(on_disk / f"{store}.parquet"), key),
            check_dtype=False,
        )
    code, status = run(capsys, "status", str(remote))
    assert code == 0 and status["generate"][0]["done"] == len(ROWS) * 2
    assert run(capsys, "results", str(remote))[0] == 0
    keys = {
        o["Key"]
        for o in s3_server.client().list_objects_v2(Bucket="studies", Prefix="team/t/")[
            "Contents"
        ]
    }
    assert {"team/t/latest.json", "team/t/dataset_locks.json"} <= keys
    assert (
        sum(k.startswith("team/t/manifests/") for k in keys) == 2
    )  # generate and grade; the no-op wrote none
    assert any(k.startswith("team/t/solutions/_delta_log/") for k in keys)


def shard(
    path: Path, work: Path, index: int, count: int, *extra: str
) -> subprocess.Popen:
    env = {**os.environ, "ITEMEVAL_WORK_DIR": str(work)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "itemeval",
            "generate",
            str(path),
            "--shard",
            f"{index}/{count}",
            "--yes",
            "--json",
            *extra,
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_shards_on_two_machines_meet_in_the_bucket_and_any_machine_commits(
    s3_server, tmp_path, capsys, monkeypatch
):
    path = study(tmp_path / "cfg", "s3://studies/team")
    procs = [shard(path, tmp_path / f"node{k}", k, 2) for k in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [p.returncode for p in procs] == [0, 0], [
        err.decode()[-800:] for _, err in outputs
    ]
    assert sum(json.loads(out)["totals"]["rows"] for out, _ in outputs) == CELLS
    listed = s3_server.client().list_objects_v2(
        Bucket="studies", Prefix="team/t/journal/"
    )
    assert (
        len(listed.get("Contents", [])) >= 2
    )  # each shard uploaded its parts when it ended

    machine(monkeypatch, tmp_path / "committer")  # a third machine, which ran nothing
    code, committed = run(capsys, "commit", str(path))
    assert code == 0 and committed["recovered_rows"] == {"solutions": CELLS}
    assert (
        not s3_server.client()
        .list_objects_v2(Bucket="studies", Prefix="team/t/journal/")
        .get("Contents")
    )
    solutions = snapshot(s3_server, "solutions")
    assert len(solutions) == CELLS and not solutions.duplicated(SOLUTION_KEY).any()
    assert run(capsys, "commit", str(path))[1]["recovered_rows"] == {}
    assert run(capsys, "generate", str(path), "--yes")[1]["totals"]["planned"] == 0


def test_a_part_committed_twice_by_two_machines_is_merged_once(
    s3_server, tmp_path, capsys, monkeypatch
):
    # Two committers on two machines start on the same uploaded parts at once: the
    # study's lease lets one in (the other exits 5 naming it, or runs after it), and
    # Delta's MERGE with the parts' app transactions leaves each row once either way.
    path = study(tmp_path / "cfg", "s3://studies/team")
    procs = [shard(path, tmp_path / f"node{k}", k, 2) for k in range(2)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    env = {**os.environ}
    committers = [
        subprocess.Popen(
            [sys.executable, "-m", "itemeval", "commit", str(path), "--json"],
            env={**env, "ITEMEVAL_WORK_DIR": str(tmp_path / f"committer{k}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for k in range(2)
    ]
    outputs = [c.communicate(timeout=300) for c in committers]
    codes = [c.returncode for c in committers]
    assert 0 in codes and set(codes) <= {0, 5}, [e.decode()[-800:] for _, e in outputs]
    for code, (_, err) in zip(codes, outputs):
        assert code == 0 or "is leased to pid" in err.decode()
    machine(monkeypatch, tmp_path / "reader")
    code, status = run(capsys, "status", str(path))
    solutions = snapshot(s3_server, "solutions")
    assert len(solutions) == CELLS and not solutions.duplicated(SOLUTION_KEY).any()
    assert code == 0 and sum(row["done"] for row in status["generate"]) == CELLS


def test_launch_on_s3_equals_one_process(s3_server, tmp_path, capsys, monkeypatch):
    machine(monkeypatch, tmp_path / "work")
    path = study(tmp_path / "cfg", "s3://studies/team")
    code, result = run(
        capsys, "launch", "generate", str(path), "--shards", "2", "--yes"
    )
    assert code == 0 and result["totals"]["rows"] == CELLS
    code, result = run(capsys, "launch", "grade", str(path), "--shards", "2", "--yes")
    assert code == 0 and result["totals"]["rows"] == 2 * CELLS
    grades = snapshot(s3_server, "grades")
    assert len(grades) == 2 * CELLS and not grades.duplicated(GRADE_KEY).any()


def test_a_missing_bucket_is_one_clear_error(s3_server, tmp_path, capsys, monkeypatch):
    machine(monkeypatch, tmp_path / "work")
    path = study(tmp_path / "cfg", "s3://no-such-bucket/team")
    code = main(["generate", str(path), "--yes"])
    err = capsys.readouterr().err
    assert code == 1 and "no-such-bucket" in err and "Traceback" not in err


def test_the_s3_demo_config_is_the_demo_but_for_its_output_dir():
    configs = REPO / "configs"
    demo, s3 = (
        (configs / name).read_text().splitlines()
        for name in ("demo.yaml", "demo_s3.yaml")
    )
    differing = [(a, b) for a, b in zip(demo, s3) if a != b]
    assert (
        len(demo) == len(s3)
        and len(differing) == 1
        and differing[0][1].startswith("output_dir: s3://studies/team")
    )


def test_a_shard_killed_on_one_machine_resumes_on_another_from_what_it_uploaded(
    s3_server, tmp_path, capsys, monkeypatch
):
    import signal
    import time

    path = study(tmp_path / "cfg", "s3://studies/team")
    # 2-s calls on the first node: its first wave's rows are uploaded long before its
    # last cells could finish, so the kill below finds a partial upload however slow
    # the machine (0.05-s calls once let all 48 cells finish before the poll saw 5)
    env = {"ITEMEVAL_OFFLINE_LATENCY": "2.0", "ITEMEVAL_UPLOAD_S": "0.2"}
    monkeypatch.setenv("ITEMEVAL_OFFLINE_LATENCY", "0.05")
    first = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "itemeval",
            "generate",
            str(path),
            "--shard",
            "0/1",
            "--yes",
            "--json",
        ],
        env={**os.environ, **env, "ITEMEVAL_WORK_DIR": str(tmp_path / "nodeA")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    client = s3_server.client()

    def uploaded_rows() -> int:
        listed = client.list_objects_v2(Bucket="studies", Prefix="team/t/journal/").get(
            "Contents", []
        )
        return sum(
            client.get_object(Bucket="studies", Key=o["Key"])["Body"]
            .read()
            .count(b"\n")
            for o in listed
        )

    deadline = time.monotonic() + 180
    while uploaded_rows() < 5:
        assert first.poll() is None and time.monotonic() < deadline, (
            first.communicate()[1].decode()[-2000:]
        )
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    kept = uploaded_rows()
    assert 5 <= kept < CELLS  # partial uploads only: the node and its disk are gone

    machine(monkeypatch, tmp_path / "nodeB")  # the retry lands on another node
    code, retry = run(capsys, "generate", str(path), "--shard", "0/1", "--yes")
    assert (
        code == 0 and retry["totals"]["planned"] <= CELLS - kept
    )  # resumed from the uploaded rows
    machine(monkeypatch, tmp_path / "nodeC")
    assert run(capsys, "commit", str(path))[0] == 0
    solutions = snapshot(s3_server, "solutions")
    assert len(solutions) == CELLS and not solutions.duplicated(SOLUTION_KEY).any()
    assert solutions["error"].isna().all()


def test_pairwise_verdicts_on_s3_are_a_delta_table_with_a_snapshot(
    s3_server, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
    machine(monkeypatch, tmp_path / "work")
    config = write_study(
        tmp_path / "remote",
        base_config(
            cache=False,
            output_dir="s3://studies/team",
            solvers__models=MODELS,
            benchmark__mapping=MAPPING,
            facets__scorer=None,
            facets__grader=["pw"],
            graders={"pw": {"model": "itemeval/judge", "kind": "pairwise"}},
        ),
        rows=ROWS,
    )
    assert run(capsys, "generate", str(config), "--yes")[0] == 0
    pairs = len(MODELS) * (len(MODELS) - 1) // 2
    code, result = run(capsys, "grade", str(config), "--yes")
    assert code == 0 and result["totals"]["rows"] == pairs * len(ROWS) * 2
    key = ["grade_condition_id", "condition_a", "condition_b", "item_id", "epoch"]
    shared = snapshot(s3_server, "pairwise")
    assert len(shared) == pairs * len(ROWS) * 2
    assert not shared.duplicated([*key, "order"]).any()
    assert run(capsys, "grade", str(config), "--yes")[1]["totals"]["planned"] == 0
    code, report = run(capsys, "results", str(config))
    assert code == 0 and len(report["pairwise"]) == pairs
