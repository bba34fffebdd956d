"""A judge's draws of one answer reduced to one grade, so every figure read from the
grades (a cell's mean, agreement, the item analysis, the metrics) keeps the meaning it
had with one draw."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import pandas as pd

DRAW_REDUCERS = ("mean", "majority", "median")
"""`results --draws`: how the scored draws of one answer become its score."""

ANSWER = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]

_REDUCER: ContextVar[str] = ContextVar("itemeval_draw_reducer", default="mean")


@contextmanager
def reducing_draws(how: str) -> Iterator[None]:
    """Within the block, readers of `plan.state.grade_state` get each answer's
    draws reduced by `how`: `results --draws` for every figure of one run."""
    token = _REDUCER.set(how)
    try:
        yield
    finally:
        _REDUCER.reset(token)


def draw_reducer() -> str:
    """How draws are reduced here (`reducing_draws`; mean outside any)."""
    return _REDUCER.get()


def per_answer(state: pd.DataFrame, how: str = "mean") -> pd.DataFrame:
    """The grade state (plan.cells.grade_state) with one row per answer: draw 1's
    row, its score the `how` of the answer's scored draws.

    An answer with any scored draw is done, whatever its other draws hold (a draw
    still pending or failed leaves the figure to those that were scored); one with
    none keeps draw 1's state. `majority` is the most frequent score, a tie the mean
    of the tied scores (0.5 for a 0/1 judge split evenly).
    """
    if how not in DRAW_REDUCERS:
        known = ", ".join(DRAW_REDUCERS)
        raise ValueError(f"unknown draw reducer {how!r}; use {known}")
    if "draw" not in state or not (state["draw"] > 1).any():
        return state  # one draw per answer: the frame as it always was
    done = state[(state["state"] == "done") & state["score"].notna()]
    scores = _reduced(done, how)
    first = state[state["draw"] == 1].reset_index(drop=True)
    index = pd.MultiIndex.from_frame(first[ANSWER].astype(object))
    score = scores.reindex(index).to_numpy()
    scored = ~pd.isna(score)
    states = first["state"].astype(object).where(~scored, "done")
    return first.assign(
        score=pd.Series(score, dtype="float64").where(scored, first["score"]),
        state=pd.Series(states, dtype=first["state"].dtype),
        # a reply's own columns stay draw 1's; the parse did succeed for a score
        parse_ok=first["parse_ok"].where(~scored, True),
    )


def _reduced(done: pd.DataFrame, how: str) -> pd.Series:
    """Per answer (indexed by ANSWER, the ids as plain values), its draws' score."""
    keys = done[ANSWER].astype(object)
    score = done["score"].astype("float64")
    if how != "majority":
        return score.groupby([keys[k] for k in ANSWER], sort=False).agg(how)
    frame = keys.assign(score=score)
    counts = frame.groupby([*ANSWER, "score"], sort=False).size().rename("n")
    counts = counts.reset_index()
    top = counts.groupby(ANSWER, sort=False)["n"].transform("max")
    tied = counts[counts["n"] == top]
    return tied.groupby(ANSWER, sort=False)["score"].mean()
