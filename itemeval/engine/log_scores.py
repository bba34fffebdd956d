"""Each grade's verdict as the score of its sample in the grade run's `.eval` log, so
`inspect view` on logs/grade shows what grades.parquet (or pairwise.parquet) holds.

The judge call is the grade task's solver; these are the task's scorers, which inspect
runs on each sample after it and records in the log (`sample.scores["verdict"]`). They
read the reply with the same functions the grade rows are made with, so a log's score
and its grade row agree. A reply that gives no verdict (a parse failure) gets no score:
its row says why, in `parse_error`.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from ..scorers.judge import judge_fields

NO_CALL = "itemeval_no_call"
"""Sample metadata: refused by the spend cap or after a signal, so no call was made
(the cell stays missing)."""
VERDICT = "itemeval_verdict"
"""Sample metadata: where a replay task's solver leaves the model-graded scorer's
ScoreResult."""

SCORE_NAME = "verdict"
"""The score's name in the log (`inspect view`, read_eval_log's sample.scores)."""


def grade_scorer(metadata: dict[str, Any]) -> Scorer | None:
    """The scorer that records a grade task's verdicts (its TaskSpec metadata says
    which kind); None for a generate task."""
    if metadata.get("itemeval_stage") != "grade":
        return None
    kind = metadata.get("grade_kind")
    if kind == "pairwise":
        return pairwise_verdict()
    if kind == "model_graded":
        return model_graded_verdict()
    return judge_verdict(list(metadata.get("criteria", ())))


def _no_reply(state: TaskState) -> bool:
    """A sample that made no call (stopped by Ctrl-C or the cap): nothing to score."""
    return bool(state.metadata.get(NO_CALL))


@scorer(metrics=[mean(), stderr()], name=SCORE_NAME)
def judge_verdict(criteria: list[str]) -> Scorer:
    """The judge's score, read from its reply as grades.parquet reads it."""

    async def score(state: TaskState, target: Target) -> Score | None:
        if _no_reply(state):
            return None
        fields = judge_fields(
            state.output.completion,
            state.metadata.get("quoted_verdicts", ()),
            tuple(criteria),
        )
        if fields["score"] is None:
            return None
        return Score(
            value=fields["score"],
            answer=fields["score_raw"],
            explanation=fields["reasoning"],
        )

    return score


@scorer(metrics=[mean(), stderr()], name=SCORE_NAME)
def model_graded_verdict() -> Scorer:
    """An inspect model-graded scorer's verdict, as the solver kept it for the row."""

    async def score(state: TaskState, target: Target) -> Score | None:
        verdict = state.metadata.get(VERDICT)
        if _no_reply(state) or not verdict or verdict.get("score") is None:
            return None
        return Score(
            value=verdict["score"],
            answer=verdict.get("answer"),
            explanation=verdict.get("explanation"),
        )

    return score


@scorer(metrics=[], name=SCORE_NAME)
def pairwise_verdict() -> Scorer:
    """The winner's position as shown (A, B or tie), and as its answer the winning
    condition's id (or tie), which the row stores."""
    from ..study.pairwise import parse_verdict, winner_id

    async def score(state: TaskState, target: Target) -> Score | None:
        if _no_reply(state):
            return None
        verdict = parse_verdict(
            state.output.completion, state.metadata.get("quoted_verdicts", ())
        )
        if not verdict.parse_ok:
            return None
        meta = state.metadata
        winner = winner_id(
            verdict.position,
            int(meta["order"]),
            meta["condition_a"],
            meta["condition_b"],
        )
        return Score(
            value=verdict.position, answer=winner, explanation=verdict.reasoning
        )

    return score
