"""The active queue as plain values: the draws a label row holds, the strata of a
judge's verdicts, and draws from a pool (free when the answer is labelled)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from itemeval.records import GradeCondition
from itemeval.results.active_queue import ActiveQueue, label_draws, strata_of
from itemeval.results.labels import Scale

JUDGE = GradeCondition(
    id="j--1", slug="j", kind="judge", payload={}, grader_name="j", rubric=None
)


@pytest.mark.parametrize(
    "label, expected",
    [
        (None, []),
        ({"score_metadata": None}, []),
        ({"score_metadata": json.dumps({"criteria": {"a": 1}})}, []),
        ({"score_metadata": "not json"}, []),
        ({"score_metadata": json.dumps({"draws": [{"p": 0.1}]})}, [{"p": 0.1}]),
    ],
)
def test_label_draws(label, expected):
    assert label_draws(label) == expected


def _pool(scores_by_cell: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {
            "condition_id": cell,
            "item_id": f"i{k}",
            "epoch": 1,
            "solution_hash": f"h{cell}{k}",
            "judge": score,
        }
        for cell, scores in scores_by_cell.items()
        for k, score in enumerate(scores)
    ]
    pool = pd.DataFrame(rows)
    pool["stratum"] = strata_of(pool)
    pool["cell_size"] = pool.groupby("condition_id")["item_id"].transform("size")
    return pool


def test_strata_are_cells_by_verdicts_or_quartiles():
    two = _pool({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    assert two.groupby("stratum").size().tolist() == [2, 2, 2, 2]
    fine = _pool({"a": [x / 10 for x in range(12)]})
    assert fine["stratum"].nunique() == 4  # more than six verdicts: quartiles


def test_draws_of_labelled_answers_are_free_and_every_answer_keeps_a_floor():
    pool = _pool({"a": [1.0] * 10, "b": [1.0] * 10})
    labels = {
        ("a", f"i{k}", 1): {"score": 1.0, "solution_hash": f"ha{k}"} for k in range(9)
    }
    queue = ActiveQueue(pool, JUDGE, Scale(0, 1), share=0.2, seed=3)
    free: list[dict] = []
    position = queue.draw(labels, free)
    assert position == 0
    entry = queue.entries[0]
    assert (entry["condition_id"], entry["item_id"]) not in {
        (k[0], k[1]) for k in labels
    }
    assert all(d["entry"]["condition_id"] == "a" for d in free)
    for drawn in [entry["draw"], *(d["draw"] for d in free)]:
        assert drawn["p"] >= 0.2 / 20 and drawn["pool"] == 20
        assert drawn["n_cell"] == 10 and drawn["judge"] == "j--1"
    everything = {
        (c, i, 1): {"score": 1.0, "solution_hash": h}
        for c, i, h in pool[["condition_id", "item_id", "solution_hash"]].itertuples(
            index=False
        )
    }
    assert queue.draw(everything, []) is None  # every answer labelled


def test_a_stale_label_is_no_label():
    pool = _pool({"a": [1.0, 0.0]})
    labels = {("a", "i0", 1): {"score": 1.0, "solution_hash": "old"}}
    queue = ActiveQueue(pool, JUDGE, Scale(0, 1))
    assert queue.labelled(labels).tolist() == [False, False]
    free: list[dict] = []
    assert queue.draw(labels, free) == 0 and free == []  # nothing drawn is free
