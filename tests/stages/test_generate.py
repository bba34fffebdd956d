"""Stage 1 as a user drives it: `itemeval generate` on the offline models, read back
with pandas.

Every test runs the real CLI in-process (`itemeval.cli.main`) on real inspect and reads
`studies/t/solutions.parquet`, the status JSON or the manifest, never itemeval's
internals.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
import yaml

from itemeval.cli import main
from itemeval.hashing import content_hash, text_hash
from itemeval.paths import StudyPaths
from itemeval.store.lock import study_lock
from tests.helpers import ARITH, base_config, write_study
from tests.openai_server import OpenAIServer

KEY = ["condition_id", "item_id", "epoch"]
PROMPT = "Q: {input}\nEnd with ANSWER: <n>."
DEMO_PRICES = {
    "itemeval/arith-good": (1.0, 4.0),
    "itemeval/arith-weak": (0.1, 0.4),
}  # pricing.json, USD / 1M tokens


# ---- helpers
# --------------------------------------------------------------------------------------


def generate(capsys, path: Path, *args: str) -> tuple[int, dict]:
    """`itemeval generate PATH ARGS --json`: the exit code and the one JSON document
    it printed."""
    capsys.readouterr()
    code = main(["generate", str(path), "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def status(capsys, path: Path) -> dict:
    capsys.readouterr()
    assert main(["status", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def solutions(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "solutions.parquet")


def by_key(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index(KEY).sort_index()


def assert_same_rows(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same keys and values in every column (run_id, created_at, sample_uuid
    included); NaN-widened ints allowed."""
    pd.testing.assert_frame_equal(actual, expected, check_dtype=False)


def rewrite(path: Path, **overrides) -> None:
    """Change the config file in place, like a user editing it between runs."""
    config = yaml.safe_load(path.read_text())
    for dotted, value in overrides.items():
        node = config
        *parents, leaf = dotted.split("__")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def manifests(root: Path) -> list[Path]:
    return sorted((root / "studies" / "t" / "manifests").glob("*.json"))


def conditions(result: dict) -> dict[str, dict]:
    return {c["slug"]: c for c in result["conditions"]}


# ---- rows
# --------------------------------------------------------------------------------------


def test_one_row_per_cell_with_every_spec_column_filled(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        facets__replications=2,
    )
    path = write_study(tmp_path, config, prompt=PROMPT)
    started = datetime.now(timezone.utc)

    code, result = generate(capsys, path)

    assert code == 0 and result["outcome"] == "completed"
    rows = solutions(tmp_path)
    assert len(rows) == 2 * 4 * 2 and not rows.duplicated(KEY).any()
    ids = {c["slug"]: c["condition_id"] for c in result["conditions"]}
    assert set(ids) == {"arith-good_p_default", "arith-weak_p_default"}
    expected_cells = {
        (cid, item["qid"], epoch)
        for cid in ids.values()
        for item in ARITH
        for epoch in (1, 2)
    }
    assert set(map(tuple, rows[KEY].values.tolist())) == expected_cells

    locks = json.loads((tmp_path / "studies/t/dataset_locks.json").read_text())
    revision = locks["datasets"]["data/arith.jsonl"]["revision"]
    assert (rows["dataset_id"] == "data/arith.jsonl").all() and (
        rows["dataset_revision"] == revision
    ).all()
    assert (
        rows["condition_id"].str.rsplit("--", n=1).str[0] == rows["condition_slug"]
    ).all()
    assert (
        rows["condition_id"].str.fullmatch(r"[a-z0-9-]+_p_default--[0-9a-f]{12}").all()
    )
    assert set(rows["model"]) == set(DEMO_PRICES)
    assert (rows["prompt_name"] == "p").all() and (
        rows["prompt_hash"] == content_hash(PROMPT)
    ).all()
    assert (rows["model_config_name"] == "default").all()
    # requested and effective sampling params
    assert (rows["temperature"] == 0.5).all() and (rows["max_tokens"] == 256).all()
    assert (rows["effective_temperature"] == 0.5).all() and (
        rows["effective_max_tokens"] == 256
    ).all()
    assert rows["top_p"].isna().all() and rows["seed"].isna().all()
    # the answer, its hash and how it ended
    assert rows["error"].isna().all() and (rows["stop_reason"] == "stop").all()
    assert rows["solution"].str.contains(r"\nANSWER: -?\d+$").all()
    assert (rows["solution_hash"] == rows["solution"].map(text_hash)).all()
    # tokens and dollars from the packaged demo prices (no fake 0, no cache)
    assert (rows["input_tokens"] > 0).all() and (rows["output_tokens"] > 0).all()
    assert (rows["total_tokens"] == rows["input_tokens"] + rows["output_tokens"]).all()
    prices = rows["model"].map(DEMO_PRICES)
    expected_usd = (
        rows["input_tokens"] * prices.str[0] + rows["output_tokens"] * prices.str[1]
    ) / 1e6
    assert (rows["usd"] > 0).all() and (
        (rows["usd"] - expected_usd).abs() < 1e-12
    ).all()
    assert not rows["cache_hit"].any()
    assert (rows["latency_s"] >= 0).all()
    # provenance: one run id (the manifest's), a log file that exists, the sample that
    # made the row
    (manifest,) = manifests(tmp_path)
    assert set(rows["run_id"]) == {result["run_id"]} == {manifest.stem}
    study_dir = tmp_path / "studies" / "t"
    assert all((study_dir / log).is_file() for log in rows["log_file"])
    assert (
        rows.groupby("condition_id")["log_file"].nunique().eq(1).all()
    )  # one log per condition's task
    assert rows["sample_uuid"].notna().all() and rows["sample_uuid"].is_unique
    assert (
        rows["created_at"]
        .between(started - timedelta(seconds=1), datetime.now(timezone.utc))
        .all()
    )
    # the run's summary agrees with the store
    for slug, summary in conditions(result).items():
        mine = rows[rows["condition_slug"] == slug]
        assert (
            summary["planned"],
            summary["rows"],
            summary["errors"],
            summary["cache_hits"],
        ) == (8, 8, 0, 0)
        assert summary["usd"] == pytest.approx(mine["usd"].sum())


def test_a_run_cut_into_several_evals_writes_every_cell_once_with_its_own_log(
    tmp_path, capsys, monkeypatch
):
    from inspect_ai.log import read_eval_log

    monkeypatch.setenv(
        "ITEMEVAL_CELLS_PER_EVAL", "3"
    )  # 16 cells -> 6 evals, each with a slice of both conditions
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        facets__replications=2,
    )
    path = write_study(tmp_path, config)

    code, result = generate(capsys, path)

    assert code == 0 and result["outcome"] == "completed"
    rows = solutions(tmp_path)
    assert (
        len(rows) == 16
        and not rows.duplicated(KEY).any()
        and rows["error"].isna().all()
    )
    assert set(rows["run_id"]) == {result["run_id"]} and len(manifests(tmp_path)) == 1
    assert (
        rows.groupby("condition_id")["log_file"].nunique().eq(4).all()
    )  # 8 cells each, 2 per eval
    study_dir = tmp_path / "studies" / "t"
    assert len(list((study_dir / "logs" / "generate").glob("*.eval"))) == 8
    for log_file, mine in rows.groupby("log_file"):
        samples = {s.uuid: s for s in read_eval_log(str(study_dir / log_file)).samples}
        assert set(samples) == set(mine["sample_uuid"])
        assert all(
            samples[r.sample_uuid].output.completion == r.solution
            for r in mine.itertuples()
        )
    assert {c["slug"]: (c["planned"], c["rows"]) for c in result["conditions"]} == {
        "arith-good_p_default": (8, 8),
        "arith-weak_p_default": (8, 8),
    }
    assert generate(capsys, path)[1]["totals"]["planned"] == 0
    assert (
        gc.get_freeze_count() == 0
    )  # the collector sees every object again once the evals are over


def test_a_slow_call_holds_up_only_itself_not_the_rest_of_the_eval(
    tmp_path, capsys, monkeypatch
):
    # 8 cells, fed to one inspect task two at a time. The first call to arrive is held
    # at the server: the other seven must all be answered meanwhile (a batch of cells
    # would wait for the held one), and never more than two at once (the cells in
    # flight bound the memory).
    rows = [
        {"qid": f"q{i}", "question": f"[q{i}] What is {i} + 1?", "answer": str(i + 1)}
        for i in range(8)
    ]
    config = base_config(
        solvers__models=["openai-api/local/m"], solvers__max_connections=4
    )
    config["benchmark"]["mapping"]["metadata"] = []
    path = write_study(tmp_path, config, rows=rows, prompt="{input}")
    monkeypatch.setenv("ITEMEVAL_CELLS_IN_FLIGHT", "2")
    release, lock, arrivals, seen = threading.Event(), threading.Lock(), [], []

    def delay(prompt: str) -> float:
        with lock:
            arrivals.append(prompt)
            first = len(arrivals) == 1
        if first:
            release.wait(120)
        return 0.0

    with OpenAIServer(delay=delay) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)

        def release_once_the_rest_is_answered() -> None:
            deadline = time.monotonic() + 120
            while srv.answered() < 7 and time.monotonic() < deadline:
                time.sleep(0.05)
            seen.append(srv.answered())
            release.set()

        watcher = threading.Thread(target=release_once_the_rest_is_answered)
        watcher.start()
        try:
            code, result = generate(capsys, path)
        finally:
            release.set()
            watcher.join()

    assert seen == [7], (
        f"only {seen} other cells were answered while the first call was held"
    )
    assert srv.max_in_flight <= 2
    assert code == 0 and result["totals"]["rows"] == 8
    stored = solutions(tmp_path)
    assert (
        sorted(stored["item_id"]) == [f"q{i}" for i in range(8)]
        and stored["error"].isna().all()
    )
    assert stored["log_file"].nunique() == 1  # one task (and log), fed cell by cell


@pytest.mark.parametrize(
    "setting", ["ITEMEVAL_CELLS_PER_EVAL", "ITEMEVAL_CELLS_IN_FLIGHT"]
)
@pytest.mark.parametrize("value", ["0", "lots"])
def test_a_bad_cells_setting_exits_2_before_anything_is_written(
    tmp_path, capsys, monkeypatch, setting, value
):
    monkeypatch.setenv(setting, value)
    path = write_study(tmp_path)
    capsys.readouterr()
    assert main(["generate", str(path)]) == 2
    assert f"{setting}={value!r}" in capsys.readouterr().err
    assert (
        not manifests(tmp_path)
        and not (tmp_path / "studies" / "t" / "solutions.parquet").exists()
    )


def test_log_file_holds_the_rows_sample(tmp_path, capsys):
    from inspect_ai.log import read_eval_log

    path = write_study(
        tmp_path,
        base_config(benchmark__datasets=[{"id": "data/arith.jsonl", "limit": 2}]),
    )
    assert generate(capsys, path)[0] == 0
    rows = solutions(tmp_path)
    (log_file,) = set(rows["log_file"])
    log = read_eval_log(str(tmp_path / "studies" / "t" / log_file))
    samples = {sample.uuid: sample for sample in log.samples}
    for row in rows.itertuples():
        assert samples[row.sample_uuid].output.completion == row.solution


def test_max_tokens_truncation_is_stored_and_counted_in_status(tmp_path, capsys):
    config = base_config(
        facets__model_config=[{"name": "short", "max_tokens": 3}, {"name": "roomy"}]
    )
    path = write_study(tmp_path, config)

    assert generate(capsys, path)[0] == 0

    rows = solutions(tmp_path)
    short, roomy = (
        rows[rows["model_config_name"] == "short"],
        rows[rows["model_config_name"] == "roomy"],
    )
    assert (short["stop_reason"] == "max_tokens").all() and (
        short["solution"].str.len() <= 12
    ).all()
    assert (short["output_tokens"] <= 3).all() and (
        short["effective_max_tokens"] == 3
    ).all()
    assert (roomy["stop_reason"] == "stop").all()
    counts = {row["model_config"]: row for row in status(capsys, path)["generate"]}
    assert (
        counts["short"]["done"],
        counts["short"]["truncated"],
        counts["short"]["errors"],
    ) == (4, 4, 0)
    assert (counts["roomy"]["done"], counts["roomy"]["truncated"]) == (4, 0)


# ---- resume
# --------------------------------------------------------------------------------------


def test_second_run_has_nothing_to_do_and_starts_no_run(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__replications=2))
    assert generate(capsys, path)[0] == 0
    before = solutions(tmp_path)
    logs = sorted((tmp_path / "studies/t/logs/generate").iterdir())

    code, result = generate(capsys, path)

    assert code == 0 and result["outcome"] == "completed"
    assert result["totals"]["planned"] == 0 and result["totals"]["rows"] == 0
    assert result["run_id"] is None and result["manifest"] is None
    assert (
        len(manifests(tmp_path)) == 1
    )  # no run was started, so no manifest and no inspect eval
    assert sorted((tmp_path / "studies/t/logs/generate").iterdir()) == logs
    assert_same_rows(by_key(solutions(tmp_path)), by_key(before))
    capsys.readouterr()
    assert main(["generate", str(path)]) == 0
    assert "nothing to do" in capsys.readouterr().err


def test_only_errored_cells_rerun_and_a_holed_item_keeps_its_good_epoch(
    tmp_path, capsys, monkeypatch
):
    path = write_study(tmp_path, base_config(facets__replications=2))
    monkeypatch.setenv("ITEMEVAL_OFFLINE_FAIL_RATE", "0.5")
    monkeypatch.setenv(
        "ITEMEVAL_OFFLINE_SEED", "7"
    )  # reproducible draws: this one leaves a holed item

    code, first = generate(capsys, path)

    assert code == 0  # sample errors are data, not a failed command
    rows = by_key(solutions(tmp_path))
    failed = rows[rows["error"].notna()]
    assert len(rows) == 8 and 0 < len(failed) < 8
    assert (
        failed["error"].str.contains("injected failure").all()
        and failed["solution"].isna().all()
    )
    holed = {item for (_, item, _) in failed.index} & {
        item for (_, item, _) in rows[rows["error"].isna()].index
    }
    assert holed, "the draw should leave an item with one good and one failed epoch"
    assert first["totals"]["errors"] == len(failed)
    assert status(capsys, path)["generate"][0]["errors"] == len(failed)

    monkeypatch.setenv("ITEMEVAL_OFFLINE_FAIL_RATE", "0")
    code, second = generate(capsys, path)

    assert (
        code == 0
        and second["totals"]["planned"] == len(failed)
        and second["totals"]["errors"] == 0
    )
    after = by_key(solutions(tmp_path))
    good = rows.index.difference(failed.index)
    assert_same_rows(
        after.loc[good], rows.loc[good]
    )  # byte-identical, same run id and time
    assert (after.loc[failed.index, "run_id"] == second["run_id"]).all()
    assert after["error"].isna().all() and len(after) == 8


def test_force_reruns_every_selected_cell_and_nothing_else(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"], cache=False
    )
    path = write_study(tmp_path, config)
    assert generate(capsys, path)[0] == 0
    before = by_key(solutions(tmp_path))

    code, result = generate(
        capsys, path, "--force", "--condition", "arith-weak_p_default"
    )

    assert code == 0 and [(c["slug"], c["planned"]) for c in result["conditions"]] == [
        ("arith-weak_p_default", 4)
    ]
    after = by_key(solutions(tmp_path))
    weak = after["model"] == "itemeval/arith-weak"
    assert (after.loc[weak, "run_id"] == result["run_id"]).all() and not after.loc[
        weak, "cache_hit"
    ].any()
    assert_same_rows(after.loc[~weak], before.loc[~weak])


def test_condition_selected_by_id_prefix_or_slug_and_unknown_is_exit_2(
    tmp_path, capsys
):
    config = base_config(solvers__models=["itemeval/arith-good", "itemeval/arith-weak"])
    path = write_study(tmp_path, config)
    grid = {
        row["slug"]: row["condition_id"] for row in status(capsys, path)["generate"]
    }
    good, weak = grid["arith-good_p_default"], grid["arith-weak_p_default"]

    code, result = generate(capsys, path, "--condition", good)  # the exact id
    assert code == 0 and set(solutions(tmp_path)["condition_id"]) == {good}
    assert (
        conditions(result)["arith-good_p_default"]["planned"] == 4
        and len(result["conditions"]) == 1
    )

    code, result = generate(
        capsys, path, "--condition", weak[: len("arith-weak_p_default--") + 4]
    )  # a prefix
    assert code == 0 and [c["condition_id"] for c in result["conditions"]] == [weak]
    assert len(solutions(tmp_path)) == 8

    code, result = generate(
        capsys, path, "--condition", "arith-weak_p_default", "--force"
    )  # the slug
    assert code == 0 and result["totals"]["planned"] == 4

    code, result = generate(
        capsys, path, "--condition", "arith-good_p_default", "--condition", weak
    )  # repeated
    assert code == 0 and [c["condition_id"] for c in result["conditions"]] == [
        good,
        weak,
    ]
    assert result["totals"]["planned"] == 0

    runs = len(manifests(tmp_path))
    capsys.readouterr()
    assert main(["generate", str(path), "--condition", "arith-nope"]) == 2
    err = capsys.readouterr().err
    assert (
        "arith-nope" in err
        and "arith-good_p_default" in err
        and "arith-weak_p_default" in err
    )
    assert len(manifests(tmp_path)) == runs


def test_limit_runs_only_the_first_items(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__replications=2))

    code, result = generate(capsys, path, "--limit", "2")

    assert code == 0 and result["totals"]["planned"] == 4
    rows = solutions(tmp_path)
    assert sorted(set(rows["item_id"])) == ["a1", "a2"] and len(rows) == 4
    assert status(capsys, path)["generate"][0]["done"] == 4

    code, result = generate(capsys, path, "--limit", "3")
    assert (
        code == 0 and result["totals"]["planned"] == 2
    )  # only a3's two epochs are new


def test_raising_replications_runs_only_the_new_epoch(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__replications=2))
    assert generate(capsys, path)[0] == 0
    before = by_key(solutions(tmp_path))

    rewrite(path, facets__replications=3)
    code, result = generate(capsys, path)

    assert code == 0 and result["totals"]["planned"] == 4
    after = by_key(solutions(tmp_path))
    assert len(after) == 12 and set(
        after.index.get_level_values("condition_id")
    ) == set(
        before.index.get_level_values("condition_id")
    )  # replications are not part of the id
    old = after.index.get_level_values("epoch") <= 2
    assert_same_rows(after[old], before)
    assert (after.loc[~old, "run_id"] == result["run_id"]).all()
    assert sorted(after[~old].index.get_level_values("item_id")) == [
        "a1",
        "a2",
        "a3",
        "a4",
    ]


def test_editing_the_prompt_starts_a_new_empty_condition_and_keeps_old_rows(
    tmp_path, capsys
):
    path = write_study(tmp_path, prompt=PROMPT)
    code, first = generate(capsys, path)
    old_id = first["conditions"][0]["condition_id"]
    before = solutions(tmp_path)

    (tmp_path / "prompts" / "p.md").write_text("Think step by step.\n" + PROMPT)
    report = status(capsys, path)
    (row,) = report["generate"]
    assert row["condition_id"] != old_id and row["slug"] == "arith-good_p_default"
    (note,) = [
        n for n in report["notes"] if n.startswith("arith-good_p_default:")
    ]  # status says so too
    assert old_id in note and row["condition_id"] in note and "4 rows" in note
    assert (row["done"], row["missing"]) == (0, 4)

    code, second = generate(capsys, path)

    assert code == 0 and second["totals"]["planned"] == 4
    (note,) = second["notes"]  # the command says so
    assert (
        "arith-good_p_default" in note
        and old_id in note
        and row["condition_id"] in note
        and "4 rows" in note
    )
    rows = solutions(tmp_path)
    assert len(rows) == 8 and set(rows["condition_id"]) == {old_id, row["condition_id"]}
    assert_same_rows(by_key(rows[rows["condition_id"] == old_id]), by_key(before))
    new = rows[rows["condition_id"] == row["condition_id"]]
    assert (new["prompt_hash"] == content_hash("Think step by step.\n" + PROMPT)).all()


# ---- the local response cache
# --------------------------------------------------------------------------


def test_replications_miss_the_cache_apart_and_a_wiped_study_is_served_from_it(
    tmp_path, capsys
):
    path = write_study(
        tmp_path, base_config(facets__replications=1)
    )  # temperature 0.5, cache on
    assert generate(capsys, path)[0] == 0
    rewrite(path, facets__replications=3)
    assert generate(capsys, path)[0] == 0

    first = by_key(solutions(tmp_path))
    assert not first[
        "cache_hit"
    ].any()  # epochs 2 and 3 were not served epoch 1's entry
    texts = first["solution"].unstack("epoch")
    assert (
        texts.nunique(axis=1) > 1
    ).any()  # replications of a sampled condition differ

    shutil.rmtree(tmp_path / "studies")  # the inspect cache (INSPECT_CACHE_DIR) stays
    code, result = generate(capsys, path)

    assert (
        code == 0
        and result["totals"]["cache_hits"] == 12
        and result["totals"]["usd"] == 0.0
    )
    again = by_key(solutions(tmp_path))
    assert again["cache_hit"].all() and (again["usd"] == 0.0).all()
    assert (again["effective_temperature"] == 0.5).all() and (
        again["stop_reason"] == "stop"
    ).all()
    pd.testing.assert_series_equal(
        again["solution"], first["solution"]
    )  # each epoch got its own entry
    assert (again["input_tokens"] == first["input_tokens"]).all()


def test_two_conditions_never_share_a_cache_entry(tmp_path, capsys):
    # Same model, prompt and sampling params: only the model config's name (so the id)
    # differs.
    path = write_study(
        tmp_path, base_config(facets__model_config=[{"name": "a"}, {"name": "b"}])
    )
    assert generate(capsys, path, "--condition", "arith-good_p_a")[0] == 0

    code, result = generate(capsys, path, "--condition", "arith-good_p_b")

    assert code == 0 and result["totals"]["cache_hits"] == 0
    rows = solutions(tmp_path)
    assert not rows["cache_hit"].any() and len(rows) == 8
    texts = rows.pivot(index="item_id", columns="model_config_name", values="solution")
    assert (
        texts["a"] == texts["b"]
    ).all()  # identical requests, yet b was not served a's entries


def test_cache_off_never_hits(tmp_path, capsys):
    path = write_study(tmp_path, base_config(cache=False))
    assert generate(capsys, path)[0] == 0
    shutil.rmtree(tmp_path / "studies")
    code, result = generate(capsys, path)
    assert code == 0 and result["totals"]["cache_hits"] == 0
    rows = solutions(tmp_path)
    assert not rows["cache_hit"].any() and (rows["usd"] > 0).all()


# ---- manifest, exit codes, output
# ----------------------------------------------------------------------


def test_manifest_of_a_completed_run(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        solvers__seed=7,
        facets__replications=2,
    )
    path = write_study(tmp_path, config, prompt=PROMPT)

    code, result = generate(capsys, path)

    (manifest_path,) = manifests(tmp_path)
    assert result["manifest"] == str(manifest_path)
    manifest = json.loads(manifest_path.read_text())
    assert manifest["run_id"] == result["run_id"] and manifest["stage"] == "generate"
    assert (
        manifest["outcome"] == "completed"
        and manifest["started_at"] <= manifest["ended_at"]
    )
    assert manifest["config_hash"] == content_hash(path.read_text())
    locks = json.loads((tmp_path / "studies/t/dataset_locks.json").read_text())
    assert [(d["key"], d["revision"]) for d in manifest["datasets"]] == [
        ("data/arith.jsonl", locks["datasets"]["data/arith.jsonl"]["revision"])
    ]
    assert {
        "kind": "prompt",
        "ref": "p",
        "hash": content_hash(PROMPT),
        "source": "local",
    }.items() <= next(t for t in manifest["templates"] if t["ref"] == "p").items()
    assert manifest["models"] == [
        "itemeval/arith-good",
        "itemeval/arith-weak",
    ] and manifest["seeds"] == [7]
    assert manifest["replications"] == 2
    versions = manifest["versions"]
    assert {"itemeval", "inspect-ai", "pyarrow", "pandas", "pydantic", "python"} <= set(
        versions
    )
    assert versions["inspect-ai"] == metadata.version("inspect-ai")
    assert versions["inspect-ai tested"] == "0.3.260 to 0.3.285"
    assert all(
        versions[name]
        for name in (
            "itemeval",
            "inspect-ai",
            "pyarrow",
            "pandas",
            "pydantic",
            "python",
        )
    )
    grid = {entry["slug"]: entry for entry in manifest["grid"]["generate"]}
    assert set(grid) == {"arith-good_p_default", "arith-weak_p_default"}
    entry = grid["arith-good_p_default"]
    assert entry["requested_params"] == {
        "temperature": 0.5,
        "max_tokens": 256,
        "seed": 7,
    }
    assert entry["payload"]["prompt"] == {"ref": "p", "hash": content_hash(PROMPT)}
    assert manifest["estimate"]["total"]["calls"] == 16
    rows = solutions(tmp_path)
    for condition_id, counts in manifest["per_condition"].items():
        mine = rows[rows["condition_id"] == condition_id]
        assert (
            counts["planned"],
            counts["rows"],
            counts["errors"],
            counts["failure"],
        ) == (8, 8, 0, None)
        assert counts["usd"] == pytest.approx(mine["usd"].sum())
        (effective,) = manifest["effective_params"][condition_id]
        assert (
            json.loads(effective)["temperature"] == 0.5
            and json.loads(effective)["seed"] == 7
        )
    assert manifest["spend_usd"] == pytest.approx(rows["usd"].sum())


def test_locked_study_exits_5_and_runs_nothing(tmp_path, capsys):
    path = write_study(tmp_path)
    paths = StudyPaths(tmp_path / "studies" / "t")
    with study_lock(paths, "itemeval grade config.yaml (held by the test)"):
        capsys.readouterr()
        assert main(["generate", str(path)]) == 5
        err = capsys.readouterr().err
    assert "locked" in err and "held by the test" in err
    assert not paths.solutions.exists() and not manifests(tmp_path)
    assert generate(capsys, path)[0] == 0  # released: the next command runs


def test_json_is_the_only_stdout_and_a_failed_condition_exits_1(tmp_path):
    """A subprocess, because inspect's banner and display go to the real process
    stdout."""
    config = base_config(solvers__models=["itemeval/arith-good", "mistral/x"])
    path = write_study(tmp_path, config)

    proc = subprocess.run(  # the key is set, but mistral's package is not installed
        [sys.executable, "-m", "itemeval", "generate", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MISTRAL_API_KEY": "k"},
    )

    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)  # the whole of stdout is one JSON document
    assert result["exit_code"] == 1 and "hooks enabled" not in proc.stderr
    assert result["outcome"] == "failed"  # --json says what the exit code says
    good, bad = (
        conditions(result)["arith-good_p_default"],
        conditions(result)["x_p_default"],
    )
    assert good["rows"] == 4 and good["failure"] is None
    assert bad["rows"] == 0 and "mistralai" in bad["failure"]
    assert "[bold]" not in bad["failure"]  # inspect's markup, as plain text
    rows = solutions(tmp_path)
    assert set(rows["model"]) == {"itemeval/arith-good"} and rows["error"].isna().all()
    manifest = json.loads(Path(result["manifest"]).read_text())
    assert (
        manifest["command"][1:4] == ["generate", str(path), "--json"]
        and manifest["outcome"] == "failed"
    )
    assert manifest["per_condition"][bad["condition_id"]]["failure"] == bad["failure"]
