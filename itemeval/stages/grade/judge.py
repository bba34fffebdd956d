"""Judges and model-graded scorers inside `itemeval grade`: one inspect task per
condition, and the grade row of each reply."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...outcomes import SampleResult
from ...plan.pricing import PriceTable, call_usd, total_usd
from ...plan.stage_plan import Settled
from ...records import Cell, GradeCondition, Item, TaskSpec
from ...scorers import ScoreResult
from ...scorers.criteria import format_suffix, rubric_criteria
from ...scorers.judge import judge_fields, quoted_objects, with_format_suffix
from ...scorers.reference import reference_targets
from ...study import cascade
from ...study.config import CallLimits
from ...study.judges import Judging
from ...study.prompts import render
from . import pairwise as pairwise_grade
from .verifiable import (
    NO_RESULT,
    Solutions,
    grade_base,
    solution_texts,
    solution_transcripts,
    verifiable_row,
)

if TYPE_CHECKING:
    from ...engine.runner import RowSink


NO_TRANSCRIPT = "(no transcript: the answer came from one model call, without tools)"
"""What `{transcript}` reads for a plain condition's answer."""


def judge_prompt(
    condition: GradeCondition, item: Item, solution: str, transcript: str | None = None
) -> str:
    values = {
        **item.metadata,
        "input": item.input,
        "solution": solution,
        "transcript": transcript or NO_TRANSCRIPT,
        "target": item.target,
        "grading_scheme": item.grading_scheme,
        "id": item.id,
    }
    criteria, body = rubric_criteria(condition.rubric.text)
    if criteria:
        return f"{render(body, values).rstrip()}\n\n{format_suffix(criteria)}"
    return with_format_suffix(render(body, values))


def judge_row(
    condition: GradeCondition, outcome: SampleResult, *, run_id: str, usd: float | None
) -> dict[str, Any]:
    """One grades row from a judge call: the parsed score, or the parse failure, or
    the call's error."""
    meta = outcome.metadata
    row = {
        **grade_base(
            condition,
            meta["gen_condition_id"],
            meta["item_id"],
            meta["replication"],
            meta["solution_hash"],
            run_id,
        ),
        **outcome.usage,
        "usage_reported": outcome.usage_reported,
        "usd": usd,
        "cache_hit": outcome.cache_hit,
        "latency_s": outcome.latency_s,
        "log_file": outcome.log_file,
        "judge_completion": outcome.completion,
        "error": outcome.error,
        "draw": int(meta.get("draw", 1)),
    }
    if outcome.error is None:
        expected = rubric_criteria(condition.rubric.text)[0] if condition.rubric else ()
        row.update(
            judge_fields(
                outcome.completion or "", meta.get("quoted_verdicts", ()), expected
            )
        )
    return row


def model_graded_row(
    condition: GradeCondition, outcome: SampleResult, *, run_id: str, usd: float | None
) -> dict[str, Any]:
    """One grades row from a model-graded scorer's verdict on a replayed solution (or
    the error of its calls)."""
    meta = outcome.metadata
    key = (meta["gen_condition_id"], meta["item_id"], meta["replication"])
    verdict = (
        ScoreResult(**outcome.score)
        if outcome.error is None and outcome.score
        else None
    )
    row = verifiable_row(
        condition, key, meta["solution_hash"], verdict or NO_RESULT, run_id=run_id
    )
    usage = _summed(outcome.calls)
    row.update(
        **usage,
        usage_reported=outcome.usage_reported,
        usd=usd,
        cache_hit=bool(outcome.calls) and all(cached for _, _, cached in outcome.calls),
        latency_s=outcome.latency_s,
        log_file=outcome.log_file,
        error=outcome.error,
    )
    if verdict is None:
        row.update(
            score=None,
            score_raw=None,
            parse_ok=None,
            parse_error=None,
            answer=None,
            explanation=None,
        )
    return row


def _summed(
    calls: tuple[tuple[str, dict[str, int | None], bool], ...],
) -> dict[str, int | None]:
    """Tokens of every call, added up; a count no call reported stays unknown."""
    total: dict[str, int | None] = {}
    for _, usage, _ in calls:
        for name, value in usage.items():
            total[name] = (
                value if total.get(name) is None else total[name] + (value or 0)
            )
    return total


def judge_specs(
    solutions: Solutions,
    todo: pd.DataFrame,
    conditions: list[GradeCondition],
    judging: Judging,
) -> list[TaskSpec]:
    """One inspect task per judge or model-graded condition with pending solutions
    (cached under `judging.cache_scope`)."""
    items = {item.id: item for item in solutions.items}
    specs = []
    for condition in conditions:
        group = todo[todo["grade_condition_id"] == condition.id]
        if group.empty:
            continue
        specs.append(
            TaskSpec(
                name=condition.id,
                model=condition.models[0],
                config=_judge_config(condition, judging),
                cells=_grading_cells(solutions, condition, group, items),
                cache_scope=judging.cache_scope(condition.id),
                metadata={
                    "itemeval_stage": "grade",
                    "grade_condition_id": condition.id,
                    "grade_kind": condition.kind,
                    **_criteria_of(condition),
                },
                scorer={"name": condition.scorer, "params": condition.scorer_params}
                if condition.is_model_graded
                else None,
            )
        )
    return specs


def _grading_cells(
    solutions: Solutions,
    condition: GradeCondition,
    group: pd.DataFrame,
    items: dict[str, Item],
) -> list[Cell]:
    """A grading cell per pending solution of one condition, read one generate
    condition's solutions at a time."""
    cells = []
    reads_transcript = bool(condition.rubric) and "{transcript}" in (
        condition.rubric.text if condition.rubric else ""
    )
    for gen_id, frame in group.groupby("gen_condition_id", sort=False):
        texts = solution_texts(solutions.paths, gen_id)
        transcripts = (
            solution_transcripts(solutions.paths, gen_id) if reads_transcript else {}
        )
        draws = frame["draw"] if "draw" in frame else [1] * len(frame)
        for item_id, epoch, draw, solution_hash in zip(
            frame["item_id"], frame["epoch"], draws, frame["solution_hash"]
        ):
            cell = _grading_cell(
                condition,
                items[item_id],
                gen_id,
                int(epoch),
                solution_hash,
                (
                    texts.get((item_id, int(epoch))) or "",
                    transcripts.get((item_id, int(epoch))),
                ),
            )
            cells.append(as_draw(cell, int(draw)))
    return cells


def as_draw(cell: Cell, draw: int) -> Cell:
    """The cell as draw `draw` of its judge: draw 1 is the cell as it was before
    draws existed (its sample id, cache key and request); a later draw has a sample id
    of its own and, through its metadata, its own cache scope and seed."""
    if draw == 1:
        return cell
    return replace(
        cell,
        sample_id=f"{cell.sample_id}~draw{draw}",
        metadata={**cell.metadata, "draw": draw},
    )


def _criteria_of(condition: GradeCondition) -> dict[str, Any]:
    """The criteria a judge's rubric asks for, which its log's scorer checks too."""
    criteria = rubric_criteria(condition.rubric.text)[0] if condition.rubric else ()
    return {"criteria": list(criteria)} if criteria else {}


def _grading_cell(
    condition: GradeCondition,
    item: Item,
    gen_id: str,
    epoch: int,
    solution_hash: str,
    answer: tuple[str, str | None],
) -> Cell:
    """A judge sees the rendered rubric; a model-graded scorer sees the item's input
    and replays the solution. `answer`: the solution and its agent's transcript (None
    for one plain call, or when the rubric does not read it)."""
    solution, transcript = answer
    metadata = {
        "grade_condition_id": condition.id,
        "gen_condition_id": gen_id,
        "item_id": item.id,
        "replication": epoch,
        "solution_hash": solution_hash,
    }
    if condition.is_model_graded:
        return Cell(
            sample_id=f"{gen_id}/{item.id}#{epoch}",
            prompt=item.input,
            metadata={
                **metadata,
                "solution": solution,
                "targets": list(reference_targets(item, condition.reference)),
            },
        )
    # Verdicts the solution holds: a judge quoting one has not given a verdict.
    quoted = quoted_objects(solution)
    return Cell(
        sample_id=f"{gen_id}/{item.id}#{epoch}",
        prompt=judge_prompt(condition, item, solution, transcript),
        metadata={**metadata, **({"quoted_verdicts": quoted} if quoted else {})},
    )


def _judge_config(condition: GradeCondition, judging: Judging) -> dict[str, Any]:
    # the limits of `graders:` defaults; the scorer's models carry them
    if condition.is_model_graded:
        max_tokens = condition.scorer_params.get("max_tokens")
        return {
            **CallLimits().inspect_limits(),
            **({"max_tokens": max_tokens} if max_tokens else {}),
        }
    return judging.config(condition)


def judge_sink(
    conditions: list[GradeCondition],
    prices: PriceTable,
    run_id: str,
    settled: Settled | None = None,
) -> RowSink:
    by_id = {c.id: c for c in conditions}
    trails = settled.trails if settled else {}

    def to_row(outcome: SampleResult) -> tuple[str, dict[str, Any]]:
        condition = by_id[outcome.metadata["grade_condition_id"]]
        if condition.is_pairwise:
            usd = call_usd(
                prices.lookup(condition.grader_model),
                outcome.usage,
                cache_hit=outcome.cache_hit,
            )
            row = pairwise_grade.verdict_row(condition, outcome, run_id=run_id, usd=usd)
            return pairwise_grade.STORE, row
        if condition.is_model_graded:
            usd = total_usd(
                call_usd(prices.lookup(model), usage, cache_hit=cached)
                for model, usage, cached in outcome.calls
            )
            row = model_graded_row(condition, outcome, run_id=run_id, usd=usd)
        else:
            usd = call_usd(
                prices.lookup(condition.grader_model),
                outcome.usage,
                cache_hit=outcome.cache_hit,
            )
            row = judge_row(condition, outcome, run_id=run_id, usd=usd)
        if condition.is_cascade:
            meta = outcome.metadata
            key = (condition.id, meta["gen_condition_id"], meta["item_id"])
            trail = trails.get((*key, int(meta["replication"])))
            row = cascade.judged_row(condition, row, trail)
        return "grades", row

    return to_row
