"""Shards (SPEC §19): `generate --shard K/N` runs a disjoint, stable part of the
cells without the study lock, into journal parts that `itemeval commit` merges;
together they equal one process's run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.paths import StudyPaths
from itemeval.plan import shards as plan_shards
from itemeval.records import Shard
from itemeval.store.lock import study_lock
from tests.helpers import base_config, write_study

ROWS = [
    {"qid": f"q{i:02d}", "question": f"What is {i} + {i}?", "answer": str(2 * i)}
    for i in range(1, 25)
]
MODELS = ["itemeval/arith-good", "itemeval/arith-weak"]
TIMING = [
    "latency_s",
    "created_at",
    "run_id",
    "log_file",
    "sample_uuid",
    "effective_config",
]
"""Columns of how a row was made, not what it holds: a shard sends its share of
max_connections."""


def cells(conditions: int, items: int) -> pd.DataFrame:
    return pd.DataFrame(
        [(f"c{c}", f"i{i}") for c in range(conditions) for i in range(items)],
        columns=["condition_id", "item_id"],
    )


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_are_disjoint_and_cover_every_cell(count):
    frame = cells(5, 60)
    owners = [
        plan_shards.in_shard(frame, Shard(k, count), "condition_id", {})
        for k in range(count)
    ]
    assert (sum(mask.astype(int) for mask in owners) == 1).all()
    if count > 1:
        assert all(
            0 < mask.sum() < len(frame) for mask in owners
        )  # every shard gets work


def test_a_cells_shard_is_stable_as_the_grid_grows_and_whatever_the_order():
    small, large = cells(3, 20), cells(4, 50).sample(frac=1.0, random_state=1)
    shard = Shard(1, 4)
    before = set(
        map(tuple, small[plan_shards.in_shard(small, shard, "condition_id", {})].values)
    )
    after = set(
        map(tuple, large[plan_shards.in_shard(large, shard, "condition_id", {})].values)
    )
    assert before == {cell for cell in after if cell in set(map(tuple, small.values))}


def test_shard_by_model_keeps_a_models_cells_together():
    frame = cells(6, 30)
    models = {f"c{c}": f"model-{c % 3}" for c in range(6)}
    for k in range(2):
        mask = plan_shards.in_shard(frame, Shard(k, 2, "model"), "condition_id", models)
        owned = frame[mask]["condition_id"].map(models)
        assert set(owned).isdisjoint(set(frame[~mask]["condition_id"].map(models)))


@pytest.mark.parametrize("count", [2, 3])
def test_shard_by_model_deals_every_model_a_shard_of_its_own(count):
    """Two models on two shards: one each (a hash of each put both on one shard)."""
    frame = cells(4, 10)
    models = {
        f"c{c}": ["openai-api/local/m1", "openai-api/local/m2"][c % 2] for c in range(4)
    }
    owners = [
        set(
            frame[
                plan_shards.in_shard(
                    frame, Shard(k, count, "model"), "condition_id", models
                )
            ]["condition_id"].map(models)
        )
        for k in range(count)
    ]
    assert sorted(len(o) for o in owners)[-2:] == [1, 1] and set().union(*owners) == {
        "openai-api/local/m1",
        "openai-api/local/m2",
    }


def test_a_shard_of_another_partition_pays_for_no_cell_a_part_holds(tmp_path, capsys):
    """Shards 0/2 and 1/2 ran, not committed; shard 0/1 (or 0/2 by model) then plans
    nothing they hold: every cell in any journal part is paid for already."""
    path = study(tmp_path)
    for shard in ("0/2", "1/2"):
        assert main(["generate", str(path), "--shard", shard, "--yes", "--json"]) == 0
    capsys.readouterr()
    assert main(["generate", str(path), "--shard", "0/1", "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0
    command = ["generate", str(path), "--shard", "0/2", "--shard-by", "model"]
    assert main([*command, "--yes", "--json"]) == 0  # a KeyError before
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0


def test_a_model_shard_keeps_all_of_its_models_connections(tmp_path, capsys):
    """By model, a model's cells are all on one shard: its connections are not
    shared out (by cell, each shard takes its share)."""
    path = study(tmp_path)
    for args in (
        ["--shard", "0/2", "--shard-by", "model"],
        ["--shard", "1/2", "--shard-by", "model"],
    ):
        assert main(["generate", str(path), *args, "--yes", "--json"]) == 0
    assert main(["commit", str(path)]) == 0
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert len(solutions) == len(MODELS) * 2 * len(ROWS)  # 2 replications
    assert not solutions["effective_config"].str.contains("max_connections").any()


@pytest.mark.parametrize("text", ["2/2", "1", "a/3", "-1/3", "1/0"])
def test_a_bad_shard_is_a_config_error(text):
    with pytest.raises(ConfigError, match="K/N"):
        Shard.parse(text)


def study(root: Path) -> Path:
    config = base_config(
        **{
            "cache": False,
            "solvers__models": MODELS,
            "facets__replications": 2,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
        }
    )
    return write_study(root, config, rows=ROWS)


def stored(root: Path) -> pd.DataFrame:
    frame = pd.read_parquet(root / "studies" / "t" / "solutions.parquet").drop(
        columns=TIMING
    )
    return frame.sort_values(["condition_id", "item_id", "epoch"]).reset_index(
        drop=True
    )


def test_two_concurrent_shards_then_commit_equal_one_process_row_for_row(
    tmp_path, capsys
):
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    assert main(["generate", str(study(single)), "--yes", "--json"]) == 0
    path = study(sharded)
    env = {**os.environ, "ITEMEVAL_OFFLINE_LATENCY": "0.02"}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "itemeval",
                "generate",
                str(path),
                "--shard",
                f"{k}/2",
                "--yes",
                "--json",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for k in range(2)
    ]
    # the two shards run side by side (a whole-study writer may not: issue 26 case 1)
    outputs = [proc.communicate(timeout=300) for proc in procs]
    results = [json.loads(out) for out, _ in outputs]
    assert [p.returncode for p in procs] == [0, 0], [
        err.decode()[-500:] for _, err in outputs
    ]
    assert sum(r["totals"]["rows"] for r in results) == len(MODELS) * len(ROWS) * 2
    assert all(r["totals"]["rows"] > 0 for r in results)
    assert not (
        sharded / "studies" / "t" / "solutions.parquet"
    ).exists()  # shards write no store
    assert all(
        r["run_id"].startswith(f"shard-{k}-of-2-") for k, r in enumerate(results)
    )

    capsys.readouterr()
    assert main(["commit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {
        "solutions": len(MODELS) * len(ROWS) * 2
    }
    pd.testing.assert_frame_equal(stored(sharded), stored(single))
    assert (
        main(["commit", str(path), "--json"]) == 0
    )  # idempotent: nothing left to merge
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {}
    assert main(["generate", str(path), "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0


def test_a_shard_resumes_from_its_own_journal_parts(tmp_path, capsys):
    path = study(tmp_path)
    capsys.readouterr()
    assert main(["generate", str(path), "--shard", "0/3", "--yes", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["totals"]["rows"] > 0
    assert (
        main(["generate", str(path), "--shard", "0/3", "--yes", "--json"]) == 0
    )  # not committed yet
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0
    assert main(["generate", str(path), "--shard", "1/3", "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["rows"] > 0


def test_a_running_shards_journal_parts_are_left_alone_by_other_commands(
    tmp_path, capsys
):
    # Another command recovers a dead run's journal; a live shard's parts are not dead:
    # they stay put.
    path = study(tmp_path)
    journal = tmp_path / "studies" / "t" / "journal"
    env = {**os.environ, "ITEMEVAL_OFFLINE_LATENCY": "0.2"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "itemeval",
            "generate",
            str(path),
            "--shard",
            "0/1",
            "--yes",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while (
            not any(p.stat().st_size for p in journal.glob("*.jsonl"))
            if journal.is_dir()
            else True
        ):
            assert proc.poll() is None and time.monotonic() < deadline, (
                proc.communicate()
            )
            time.sleep(0.05)
        parts = sorted(journal.glob("*.jsonl"))
        assert main(["status", str(path), "--json"]) == 0
        assert (
            sorted(journal.glob("*.jsonl")) == parts
        )  # not replayed under the running shard
        capsys.readouterr()
        assert (
            main(["generate", str(path), "--shard", "0/1", "--yes"]) == 5
        )  # the same shard twice would pay twice
        assert f"pid {proc.pid}" in capsys.readouterr().err
        assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()
    finally:
        proc.communicate(timeout=300)
    assert proc.returncode == 0
    capsys.readouterr()
    assert main(["commit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {
        "solutions": len(MODELS) * len(ROWS) * 2
    }


def test_launch_with_two_local_shards_equals_one_process_row_for_row(tmp_path, capsys):
    single, launched = tmp_path / "single", tmp_path / "launched"
    assert main(["generate", str(study(single)), "--yes", "--json"]) == 0
    path = study(launched)
    capsys.readouterr()
    assert (
        main(["launch", "generate", str(path), "--shards", "2", "--yes", "--json"]) == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert (
        result["outcome"] == "completed"
        and result["totals"]["rows"] == len(MODELS) * len(ROWS) * 2
    )
    pd.testing.assert_frame_equal(stored(launched), stored(single))
    (manifest,) = (launched / "studies" / "t" / "manifests").glob("*.json")
    assert json.loads(manifest.read_text())["outcome"] == "completed"
    assert not list(
        (launched / "studies" / "t" / "journal").glob("*.jsonl")
    )  # committed


def test_a_second_launcher_exits_5_naming_the_first(tmp_path, capsys):
    path = study(tmp_path)
    with study_lock(
        StudyPaths(tmp_path / "studies" / "t"),
        "itemeval launch generate config.yaml --shards 4",
    ):
        assert main(["launch", "generate", str(path), "--shards", "2", "--yes"]) == 5
    assert "itemeval launch generate config.yaml --shards 4" in capsys.readouterr().err


def test_launch_splits_the_cap_so_all_shards_together_never_exceed_it(tmp_path, capsys):
    path = study(tmp_path)
    capsys.readouterr()
    assert main(["estimate", str(path), "--stage", "generate", "--json"]) == 0
    ceiling = json.loads(capsys.readouterr().out)["total"]["usd_ceiling"]
    cap = ceiling / 20  # far below the whole run's worst case: the shards must stop
    code = main(
        [
            "launch",
            "generate",
            str(path),
            "--shards",
            "3",
            "--yes",
            "--json",
            "--max-usd",
            str(cap),
        ]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 4 and result["outcome"] == "budget_stopped"
    spent = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")[
        "usd"
    ].sum()
    assert 0 < spent <= cap and result["totals"]["rows"] < len(MODELS) * len(ROWS) * 2


GRADE_TIMING = ["latency_s", "created_at", "run_id", "log_file"]
GRADE_KEY = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]


def graded_study(root: Path) -> Path:
    config = base_config(
        **{
            "cache": False,
            "solvers__models": MODELS,
            "facets__replications": 2,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge", "max_tokens": 256}},
        }
    )
    path = write_study(root, config, rows=ROWS)
    assert main(["generate", str(path), "--yes", "--json"]) == 0
    return path


def graded(root: Path) -> pd.DataFrame:
    frame = pd.read_parquet(root / "studies" / "t" / "grades.parquet").drop(
        columns=GRADE_TIMING
    )
    return frame.sort_values(GRADE_KEY).reset_index(drop=True)


def test_grade_shards_then_commit_equal_one_grade_run_row_for_row(tmp_path, capsys):
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    assert main(["grade", str(graded_study(single)), "--yes", "--json"]) == 0
    path = graded_study(sharded)
    capsys.readouterr()
    rows = []
    for k in range(3):
        assert main(["grade", str(path), "--shard", f"{k}/3", "--yes", "--json"]) == 0
        rows.append(json.loads(capsys.readouterr().out)["totals"]["rows"])
    expected = len(MODELS) * len(ROWS) * 2 * 2  # a judge and the numeric scorer
    assert sum(rows) == expected and min(rows) > 0
    grades = sharded / "studies" / "t" / "grades.parquet"
    assert (
        not grades.exists()
    )  # verifiable grades too went to the shard's journal parts, not the store
    assert (
        main(["grade", str(path), "--shard", "1/3", "--yes", "--json"]) == 0
    )  # resumes from its parts
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0
    assert main(["commit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recovered_rows"] == {"grades": expected}
    pd.testing.assert_frame_equal(graded(sharded), graded(single))
    assert main(["grade", str(path), "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["planned"] == 0


def test_launch_grade_with_two_local_shards_equals_one_grade_run(tmp_path, capsys):
    single, launched = tmp_path / "single", tmp_path / "launched"
    assert main(["grade", str(graded_study(single)), "--yes", "--json"]) == 0
    path = graded_study(launched)
    capsys.readouterr()
    assert main(["launch", "grade", str(path), "--shards", "2", "--yes", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["stage"] == "grade" and result["outcome"] == "completed"
    assert result["totals"]["rows"] == len(MODELS) * len(ROWS) * 2 * 2
    pd.testing.assert_frame_equal(graded(launched), graded(single))
    failures = int(graded(single)["parse_ok"].eq(False).sum())
    assert result["totals"]["parse_failures"] == failures
    manifests = [
        json.loads(p.read_text())
        for p in (launched / "studies" / "t" / "manifests").glob("*grade*.json")
    ]
    assert [m["outcome"] for m in manifests] == ["completed"]


def test_shard_connections_are_the_models_share_rounded_up():
    from itemeval.plan.spend import share_connections
    from itemeval.records import TaskSpec

    spec = TaskSpec(
        name="c",
        model="m",
        config={"max_connections": 10},
        cells=[],
        cache_scope=None,
        metadata={},
    )
    assert [
        share_connections(spec, n).config["max_connections"] for n in (1, 2, 3, 4, 20)
    ] == [10, 5, 4, 3, 1]
    bare = TaskSpec(
        name="c", model="m", config={}, cells=[], cache_scope=None, metadata={}
    )
    assert (
        share_connections(bare, 4).config["max_connections"] == 3
    )  # inspect's default of 10, shared


def test_launch_works_beside_a_folder_named_itemeval_in_the_working_directory(
    tmp_path, capsys
):
    # A clone launched from its parent: `python -m itemeval` would import this folder.
    clone = tmp_path / "itemeval"
    clone.mkdir()
    (clone / "__init__.py").write_text("# an unrelated checkout, no __version__\n")
    os.chdir(tmp_path)
    path = study(tmp_path / "work")
    capsys.readouterr()
    assert (
        main(["launch", "generate", str(path), "--shards", "2", "--yes", "--json"]) == 0
    ), capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)
    assert result["totals"]["rows"] == len(MODELS) * len(ROWS) * 2


def _held_study(root: Path) -> Path:
    config = base_config(
        **{
            "cache": False,
            "solvers__models": ["openai-api/local/m"],
            "solvers__max_retries": 0,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
        }
    )
    return write_study(root, config, rows=ROWS[:8])


def _wait_for(check, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("first", ["whole", "shard"])
def test_a_shard_and_a_whole_study_writer_never_run_side_by_side(
    tmp_path, capsys, monkeypatch, first
):
    # Issue 26 case 1: a shard beside a plain run paid 273 of 560 cells twice.
    from inspect_ai.model import _model

    from tests.openai_server import OpenAIServer

    with OpenAIServer(answer_limit=0) as srv:  # every reply held until release()
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        path = _held_study(tmp_path)
        args = ["generate", str(path), "--yes", "--json"]
        if first == "shard":
            args += ["--shard", "0/2"]
        running = subprocess.Popen(
            [sys.executable, "-m", "itemeval", *args],
            cwd=tmp_path,
            env={**os.environ, **srv.env()},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            _wait_for(lambda: srv.in_flight >= 1, "the first run's calls")
            second = (
                [["generate", str(path), "--yes"]]
                + [["launch", "generate", str(path), "--shards", "2", "--yes"]]
                if first == "shard"
                else [["generate", str(path), "--yes", "--shard", "1/2"]]
            )
            for command in second:
                # a process of its own, bounded: on a build without the lock it would
                # wait on the held replies instead of exiting
                done = subprocess.run(
                    [sys.executable, "-m", "itemeval", *command],
                    cwd=tmp_path,
                    env={**os.environ, **srv.env()},
                    capture_output=True,
                    text=True,
                    timeout=90,
                )
                assert done.returncode == 5, (command, done.stderr[-2000:])
                assert f"pid {running.pid}" in done.stderr, command
        finally:
            srv.release()
            out, err = running.communicate(timeout=300)
    _model._models.clear()
    assert running.returncode == 0, err.decode()[-2000:]
    prompts = [json.dumps(body) for body in srv.requests]
    assert len(prompts) == len(set(prompts))  # nothing paid twice


def test_shards_run_side_by_side_by_hand_and_under_a_launch(tmp_path, capsys):
    path = study(tmp_path)
    paths = StudyPaths(tmp_path / "studies" / "t")
    from itemeval.store.lock import shard_lock

    with shard_lock(paths):  # another shard of the same study, running
        assert main(["generate", str(path), "--yes", "--shard", "1/2", "--json"]) == 0
        assert main(["generate", str(path), "--yes"]) == 5
    capsys.readouterr()
    assert main(["launch", "generate", str(path), "--shards", "2", "--yes"]) == 0
