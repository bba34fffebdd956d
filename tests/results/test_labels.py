"""Human labels: rows of human-<rater>, keyed and durable, stale when the answer
changed, measured against the judges in `results` (agreement with CIs and the
prediction-powered corrected mean)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.records import Template
from itemeval.results.label_queue import (
    QueueOptions,
    label_queue,
    label_status,
    queue_labels,
)
from itemeval.results.labels import (
    Scale,
    human_condition,
    human_conditions,
    label_row,
    pick_rubric,
    rubric_scale,
)
from itemeval.stages.label_writer import LabelWriter
from itemeval.store import read_store, upsert
from itemeval.store.lock import study_lock
from tests import view_study


def _rubric(text: str) -> Template:
    return Template("r", "rubric", text, "h", "local", "")


@pytest.mark.parametrize(
    "text, override, expected",
    [
        ("Score 1 if right, else 0.", None, Scale(0, 1)),
        ("Rate the answer on a scale from 1 to 10.", None, Scale(1, 10)),
        ("Give a score of 1-5 for clarity.", None, Scale(1, 5)),
        ("Score 0 to 4, where 4 is perfect.", None, Scale(0, 4)),
        (
            "Compare with 2019 to 2023 figures.",
            None,
            Scale(0, 1),
        ),  # a year range is no scale
        ("Score 1 if right.", "1-7", Scale(1, 7)),
        (
            "---\ncriteria: [accuracy, clarity]\n---\nScore each 1 to 5.",
            None,
            Scale(1, 5, ("accuracy", "clarity")),
        ),
    ],
)
def test_rubric_scale(text, override, expected):
    assert rubric_scale(_rubric(text), override) == expected


def test_a_bad_scale_or_rater_is_a_config_error():
    with pytest.raises(ConfigError, match="--scale"):
        rubric_scale(_rubric("x"), "10-1")
    with pytest.raises(ConfigError, match="--rater"):
        human_condition("Alice Smith", None)


@pytest.fixture()
def study(tmp_path):
    """Two conditions x 30 items; the numeric scorer is right, the judge passes every
    answer."""
    items = view_study.rows(30)
    _, study = view_study.build(
        tmp_path / "s",
        items,
        answer=lambda c, row: (
            f"ANSWER: {int(row['answer']) + (c if int(row['answer']) % 2 else 0)}"
        ),
        scores=lambda g, c, row, text: (
            1.0 if g == 0 else float(text.endswith(row["answer"]))
        ),
    )
    return study


def test_the_queue_is_fixed_by_the_seed(study):
    first = label_queue(study, QueueOptions(sample=10, seed=4))
    assert len(first) == 10
    assert first.equals(label_queue(study, QueueOptions(sample=10, seed=4)))
    assert not first.equals(label_queue(study, QueueOptions(sample=10, seed=5)))
    everything = label_queue(study, QueueOptions(seed=4))
    assert len(everything) == 60  # every stored answer
    assert everything.head(10).equals(first)


def _label(study, writer, entry, score, rater="alice"):
    condition = human_condition(rater, pick_rubric(study, None))
    solution = {**entry, "solution_hash": entry["solution_hash"]}
    return writer.write(label_row(condition, solution, score, run_id=writer.run_id))


def test_a_relabel_replaces_and_a_changed_answer_makes_the_label_stale(study):
    writer = LabelWriter(study)
    entry = label_queue(study, QueueOptions(sample=1)).iloc[0].to_dict()
    assert _label(study, writer, entry, 0) == "store"
    assert _label(study, writer, entry, 1) == "store"
    condition = human_condition("alice", pick_rubric(study, None))
    stored = read_store(
        study.paths, "grades", where={"grade_condition_id": [condition.id]}
    )
    assert stored.num_rows == 1 and stored.column("score").to_pylist() == [1.0]
    assert stored.column("grade_kind").to_pylist() == ["human"]
    assert [c.slug for c in human_conditions(study)] == ["human-alice"]
    labels = queue_labels(study, condition)
    assert label_status(entry, labels) == "labelled"
    changed = view_study.solution_row(
        study,
        study.generate.index(
            next(c for c in study.generate if c.id == entry["condition_id"])
        ),
        entry["item_id"],
        int(entry["epoch"]),
        "a new text",
    )
    upsert(study.paths, "solutions", [changed])
    assert (
        label_status({**entry, "solution_hash": changed["solution_hash"]}, labels)
        == "stale"
    )


def test_a_label_given_while_another_command_holds_the_lock_is_journaled(study):
    writer = LabelWriter(study)
    queue = label_queue(study, QueueOptions(sample=2, seed=1)).to_dict("records")
    condition = human_condition("bob", pick_rubric(study, None))
    with study_lock(study.paths, "itemeval generate"):
        assert _label(study, writer, queue[0], 1, "bob") == "journal"
        assert label_status(queue[0], queue_labels(study, condition)) == "labelled"
    assert (
        _label(study, writer, queue[1], 0, "bob") == "store"
    )  # merges the journal first
    stored = read_store(
        study.paths, "grades", where={"grade_condition_id": [condition.id]}
    )
    keys = sorted(
        zip(stored.column("item_id").to_pylist(), stored.column("score").to_pylist())
    )
    assert keys == sorted([(queue[0]["item_id"], 1.0), (queue[1]["item_id"], 0.0)])
    assert not list(study.paths.journal.glob("*.jsonl"))


def test_a_relabel_journaled_under_the_lock_shows_the_last_label(study):
    """Each journaled label is a file whose name ends in a random suffix: the view
    must still show the last label given, as the merge keeps it."""
    writer = LabelWriter(study)
    queue = label_queue(study, QueueOptions(sample=8, seed=3)).to_dict("records")
    condition = human_condition("carl", pick_rubric(study, None))
    with study_lock(study.paths, "itemeval grade"):
        for entry in queue:
            assert _label(study, writer, entry, 0, "carl") == "journal"
            assert _label(study, writer, entry, 1, "carl") == "journal"
        labels = queue_labels(study, condition)
        shown = {key: row["score"] for key, row in labels.items()}
    assert len(shown) == 8 and set(shown.values()) == {1.0}


CHILD_LABEL = """
import sys
from itemeval.results.label_queue import QueueOptions, label_queue
from itemeval.results.labels import human_condition, label_row, pick_rubric
from itemeval.stages.label_writer import LabelWriter
from itemeval.study import load_study

study = load_study(sys.argv[1], sys.argv[2])
writer = LabelWriter(study)
entry = label_queue(study, QueueOptions(sample=1, seed=4)).iloc[0].to_dict()
condition = human_condition("dana", pick_rubric(study, None))
print(writer.write(label_row(condition, entry, 1, run_id=writer.run_id)), flush=True)
sys.stdin.read()  # a view that lives on
"""


def test_a_journaled_label_is_merged_by_the_next_command_while_the_view_lives(
    study, capsys
):
    """A view journaled a label under another command's lock and keeps running; the
    next command that takes the lock merges the label all the same (its part is
    sealed: whole, and no longer its live writer's)."""
    condition = human_condition("dana", pick_rubric(study, None))
    config = study.loaded.path
    with study_lock(study.paths, "itemeval grade"):
        view = subprocess.Popen(
            [sys.executable, "-c", CHILD_LABEL, str(config), str(config.parent)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert view.stdout.readline().strip() == "journal"
        except BaseException:
            view.kill()
            raise
    try:
        (part,) = study.paths.journal.glob("*.jsonl")
        assert "-sealed-" in part.name
        assert main(["grade", str(config), "--yes", "--display", "none"]) == 0
        capsys.readouterr()
        stored = read_store(
            study.paths, "grades", where={"grade_condition_id": [condition.id]}
        )
        assert stored.column("score").to_pylist() == [1.0]
        assert not list(study.paths.journal.glob("*.jsonl"))
        assert view.poll() is None  # merged while its writer lives
    finally:
        view.kill()
        view.wait(timeout=30)


def test_results_measure_the_judge_against_the_human(study, capsys):
    """Label 20 answers as the truth (the numeric scorer's verdict); the judge passes
    everything."""
    writer = LabelWriter(study)
    queue = label_queue(study, QueueOptions(sample=20, seed=0)).to_dict("records")
    for entry in queue:
        truth = float(
            int(entry["item_id"][1:]) % 2 == 1
            or entry["condition_id"] == study.generate[0].id
        )
        _label(study, writer, entry, truth)
    config = study.loaded.path
    assert main(["export", str(config), "--json"]) == 0
    assert main(["results", str(config), "--json"]) == 0
    capsys.readouterr()
    assert main(["results", str(config), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    human = human_condition("alice", pick_rubric(study, None)).id
    judge = study.grade[0].id
    row = next(r for r in report["agreement"] if {r["a"], r["b"]} == {judge, human})
    assert (row["kind_a"], row["kind_b"]) == ("judge", "human")
    long = pd.read_parquet(study.paths.export / "grades_long.parquet")
    wide = long.pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_id",
        values="score",
    ).dropna(subset=[judge, human])
    assert row["n"] == len(wide) == 20
    assert row["bias"] == pytest.approx((wide[judge] - wide[human]).mean())
    assert row["bias_ci_low"] <= row["bias"] <= row["bias_ci_high"]
    assert row["exact"] == pytest.approx((wide[judge] == wide[human]).mean())
    corrected = [r for r in report["corrected"] if r["grade_condition_id"] == judge]
    assert {r["rater"] for r in corrected} == {"alice"}
    for cell in corrected:
        mine = wide.loc[cell["gen_condition_id"]]
        assert cell["n_labelled"] == len(mine)
        assert cell["n_judged"] == 30
        assert cell["mean"] == pytest.approx(1.0 + (mine[human] - mine[judge]).mean())
        assert cell["method"] == "ppi"
        assert (cell["design"], cell["labels_saved"]) == ("uniform", 0)
        assert cell["labels_only_se"] == pytest.approx(
            mine[human].std(ddof=1) / np.sqrt(len(mine))
        )
        assert cell["ci_low"] < cell["mean"] < cell["ci_high"] or np.isclose(
            cell["se"], 0
        )
    out = study.paths.root / "report.html"
    assert main(["report", str(config), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "Judge means corrected by human labels" in html and "human-alice" in html


def test_two_raters_are_measured_against_each_other(study, capsys):
    writer = LabelWriter(study)
    queue = label_queue(study, QueueOptions(sample=12, seed=2)).to_dict("records")
    for number, entry in enumerate(queue):
        _label(study, writer, entry, number % 2, "alice")
        _label(study, writer, entry, int(number % 3 == 0), "bob")
    capsys.readouterr()
    assert main(["results", str(study.loaded.path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    slugs = report["slugs"]
    row = next(
        r
        for r in report["agreement"]
        if {slugs[r["a"]], slugs[r["b"]]} == {"human-alice", "human-bob"}
    )
    assert (row["kind_a"], row["kind_b"]) == ("human", "human")
    alice = np.array([n % 2 for n in range(12)], float)
    bob = np.array([int(n % 3 == 0) for n in range(12)], float)
    assert row["n"] == 12
    assert row["exact"] == pytest.approx((alice == bob).mean())
    sign = 1 if slugs[row["a"]] == "human-alice" else -1
    assert row["bias"] == pytest.approx(sign * (alice - bob).mean())


def test_a_rater_is_not_counted_like_a_judge(study, capsys):
    """Unlabelled answers are not pending grades, a rater leads no headline, and the
    terminal's corrected means show the judge's own mean beside the corrected one."""
    writer = LabelWriter(study)
    for entry in label_queue(study, QueueOptions(sample=6, seed=1)).to_dict("records"):
        _label(study, writer, entry, 1.0)
    config = str(study.loaded.path)
    capsys.readouterr()
    assert main(["results", config, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    human = human_condition("alice", pick_rubric(study, None)).id
    cells = [c for c in report["cells"] if c["grade_condition_id"] == human]
    assert cells and all(c["pending"] == 0 for c in cells)
    assert sum(c["grades"] for c in cells) == 6
    assert all(h["grade_condition_id"] != human for h in report["headline"])
    assert main(["results", config]) == 0
    out = capsys.readouterr().out
    corrected = out.split("judge mean corrected by human labels", 1)[1]
    assert "judge" in corrected.splitlines()[1]  # a column of the judge's own mean
    judge_mean = report["corrected"][0]["judge_mean"]
    assert f"{judge_mean:.3f}" in corrected
