"""Tests for itemeval.plan.draws: a judge's draws of one answer reduced to one grade."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from itemeval.plan.draws import draw_reducer, per_answer, reducing_draws


def state(*rows: tuple) -> pd.DataFrame:
    """Grade state rows: (grade condition, item, draw, state, score)."""
    frame = pd.DataFrame(
        rows, columns=["grade_condition_id", "item_id", "draw", "state", "score"]
    )
    return frame.assign(
        gen_condition_id="c",
        epoch=1,
        parse_ok=frame["state"] != "parse_failed",
        answer=[f"reply {i}" for i in range(len(frame))],
        state=pd.Categorical(
            frame["state"], categories=["done", "parse_failed", "error", "pending"]
        ),
    )


DRAWS = state(
    ("g", "a", 1, "done", 1.0),
    ("g", "b", 1, "done", 0.0),
    ("g", "c", 1, "parse_failed", None),
    ("g", "d", 1, "pending", None),
    ("g", "a", 2, "done", 0.0),
    ("g", "b", 2, "done", 1.0),
    ("g", "c", 2, "done", 0.5),
    ("g", "d", 2, "pending", None),
    ("g", "a", 3, "done", 1.0),
    ("g", "b", 3, "error", None),
    ("g", "c", 3, "done", 0.5),
    ("g", "d", 3, "pending", None),
)


@pytest.mark.parametrize(
    "how, scores",
    [
        # a: 1, 0, 1; b: 0, 1 (draw 3 failed); c: 0.5, 0.5 (draw 1 did not parse)
        ("mean", {"a": 2 / 3, "b": 0.5, "c": 0.5}),
        ("median", {"a": 1.0, "b": 0.5, "c": 0.5}),
        # b's two draws tie: the mean of the tied scores
        ("majority", {"a": 1.0, "b": 0.5, "c": 0.5}),
    ],
)
def test_draws_reduce_to_one_grade_per_answer(how, scores):
    reduced = per_answer(DRAWS, how)
    assert reduced["item_id"].tolist() == ["a", "b", "c", "d"]
    assert set(reduced["draw"]) == {1}
    got = dict(zip(reduced["item_id"], reduced["score"]))
    assert all(math.isclose(got[item], score) for item, score in scores.items())
    assert math.isnan(got["d"])
    assert reduced["state"].astype(str).tolist() == ["done"] * 3 + ["pending"]
    assert reduced["answer"].tolist() == ["reply 0", "reply 1", "reply 2", "reply 3"]


def test_one_draw_per_answer_is_the_frame_unchanged():
    single = DRAWS[DRAWS["draw"] == 1]
    assert per_answer(single, "majority") is single


def test_an_unknown_reducer_is_refused_and_the_default_is_mean():
    with pytest.raises(ValueError, match="unknown draw reducer"):
        per_answer(DRAWS, "mode")
    assert draw_reducer() == "mean"
    with reducing_draws("median"):
        assert draw_reducer() == "median"
    assert draw_reducer() == "mean"
