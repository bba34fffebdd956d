"""`itemeval show CONFIG ITEM_ID`: what the stores hold for one item, per generate
condition its rendered prompt, its solutions and their grades, as plain values."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ...plan.generate_tasks import input_hash, render_prompt
from ...records import GenerateCondition, GradeCondition, Item
from ...store import read_store
from ...study import cascade
from ...study.load import Study
from ..compute import grade_conditions
from .select import chosen_conditions, find_item
from .verdicts import item_verdicts

SOLUTION_COLUMNS = [
    "condition_id",
    "item_id",
    "epoch",
    "solution",
    "solution_hash",
    "error",
    "stop_reason",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "usd",
    "cache_hit",
    "turns",
    "tool_calls",
    "limit_hit",
    "transcript",
    "log_file",
    "input_hash",
]
GRADE_COLUMNS = [
    "grade_condition_id",
    "gen_condition_id",
    "item_id",
    "epoch",
    "solution_hash",
    "score",
    "score_raw",
    "parse_ok",
    "parse_error",
    "reasoning",
    "explanation",
    "judge_completion",
    "error",
    "usd",
    "score_metadata",
]


@dataclass(frozen=True)
class GradeView:
    """One stored grade of one solution."""

    grade_condition_id: str
    slug: str
    kind: str
    """judge, verifiable or model_graded."""
    grader: str | None
    """The judge's grader name or the scorer's name."""
    grader_model: str | None
    score: float | None
    score_raw: str | None
    parse_ok: bool | None
    parse_error: str | None
    reasoning: str | None
    explanation: str | None
    judge_completion: str | None
    error: str | None
    usd: float | None
    stale: bool
    """The grade is of an older text of the solution (a later generate replaced it)."""
    decided_by: str | None = None
    """A cascade's deciding stage (None: no stage gave a verdict)."""


@dataclass(frozen=True)
class SolutionView:
    """One stored solution (one replication) with its grades."""

    epoch: int
    solution: str | None
    error: str | None
    stop_reason: str | None
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None
    usd: float | None
    cache_hit: bool | None
    grades: list[GradeView]
    input_changed: bool = False
    """The answer was written for an earlier version of the item (its rendered input
    differs from the prompt shown above it)."""
    turns: int | None = None
    """An agent's: the model's turns, its tool calls, the limit it hit and its
    transcript turn by turn (the whole one is in `log_file`)."""
    tool_calls: int | None = None
    limit_hit: str | None = None
    transcript: str | None = None
    log_file: str | None = None


@dataclass(frozen=True)
class ConditionView:
    """A generate condition as the item meets it: its rendered prompt and stored
    solutions."""

    condition_id: str
    slug: str
    model: str
    prompt_ref: str
    model_config: str
    params: dict[str, Any]
    prompt: str
    solutions: list[SolutionView]
    missing: list[int]
    """Replications with no stored solution yet."""
    solver: str = "plain"
    """The facets.solver level: plain, task or an agents: name."""


@dataclass(frozen=True)
class ItemView:
    """`show CONFIG ITEM_ID`: the item, and per generate condition its prompt,
    solutions and grades."""

    study: str
    replications: int
    item: dict[str, Any]
    conditions: list[ConditionView]
    pairwise: list[dict[str, Any]] = field(default_factory=list)
    """The item's pairwise verdicts, with each judge's reasoning."""

    def as_dict(self) -> dict[str, Any]:
        return {"view": "item", **asdict(self)}


def item_view(study: Study, item_id: str, selectors: tuple[str, ...] = ()) -> ItemView:
    """Everything stored about one item; selectors of one side (generate or grade)
    narrow only that side."""
    item = find_item(study, item_id)
    generate, grade = chosen_conditions(study, selectors)
    if selectors and not generate:
        generate = list(study.generate)
    if selectors and not grade:
        grade = grade_conditions(study)
    solutions, grades = _stored_rows(study, item, generate, grade)
    views = [
        condition_view(
            condition,
            item,
            study.replications,
            [row for row in solutions if row["condition_id"] == condition.id],
            [row for row in grades if row["gen_condition_id"] == condition.id],
            grade,
        )
        for condition in generate
    ]
    return ItemView(
        study=study.config.study,
        replications=study.replications,
        item={**item_dict(item), "flags": _item_flags(study, item.id)},
        conditions=views,
        pairwise=item_verdicts(study, item.id),
    )


def _stored_rows(
    study: Study,
    item: Item,
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The item's stored solutions of the generate conditions, and their grades by
    the grade conditions."""
    solutions = read_store(
        study.paths,
        "solutions",
        SOLUTION_COLUMNS,
        where={"item_id": [item.id], "condition_id": [c.id for c in generate]},
    ).to_pylist()
    grades = read_store(
        study.paths,
        "grades",
        GRADE_COLUMNS,
        where={
            "item_id": [item.id],
            "grade_condition_id": [c.id for c in grade],
            "gen_condition_id": [c.id for c in generate],
            # one grade per answer, as it always showed: a judge's first draw
            "draw": [1],
        },
    ).to_pylist()
    return solutions, grades


def _item_flags(study: Study, item_id: str) -> dict[str, list[str]]:
    """The item analysis' flags (results --items) per grade condition slug."""
    from ..items import flags_of

    return flags_of(study, grade_conditions(study), item_id)


def item_dict(item: Item) -> dict[str, Any]:
    return {
        "id": item.id,
        "input": item.input,
        "target": item.target,
        "targets": list(item.targets),
        "choices": list(item.choices),
        "grading_scheme": item.grading_scheme,
        "metadata": dict(item.metadata),
        "dataset_id": item.dataset_id,
        "dataset_revision": item.dataset_revision,
        "row": item.row,
    }


def condition_view(
    condition: GenerateCondition,
    item: Item,
    replications: int,
    solutions: list[dict[str, Any]],
    grades: list[dict[str, Any]],
    grade: list[GradeCondition],
) -> ConditionView:
    """One generate condition's prompt for the item and its stored solutions, in
    replication order."""
    rows = sorted(solutions, key=lambda row: row["epoch"])
    current = input_hash(condition, item) if condition.kind == "generated" else None
    views = [
        solution_view(
            row, [g for g in grades if g["epoch"] == row["epoch"]], grade, current
        )
        for row in rows
    ]
    stored = {row["epoch"] for row in rows}
    return ConditionView(
        condition_id=condition.id,
        slug=condition.slug,
        model=condition.model,
        prompt_ref=condition.prompt.ref,
        model_config=condition.model_config_name,
        params=dict(condition.params),
        prompt=render_prompt(condition, item),
        solutions=views,
        missing=[epoch for epoch in range(1, replications + 1) if epoch not in stored],
        solver=condition.solver,
    )


def solution_view(
    row: dict[str, Any],
    grades: list[dict[str, Any]],
    grade: list[GradeCondition],
    current_input: str | None = None,
) -> SolutionView:
    by_id = {g["grade_condition_id"]: g for g in grades}
    views = [
        grade_view(condition, by_id[condition.id], row["solution_hash"])
        for condition in grade
        if condition.id in by_id
    ]
    return SolutionView(
        epoch=row["epoch"],
        solution=row["solution"],
        error=row["error"],
        stop_reason=row["stop_reason"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        reasoning_tokens=row["reasoning_tokens"],
        usd=row["usd"],
        cache_hit=row["cache_hit"],
        grades=views,
        input_changed=bool(
            current_input
            and row.get("input_hash")
            and row["input_hash"] != current_input
        ),
        turns=row.get("turns"),
        tool_calls=row.get("tool_calls"),
        limit_hit=row.get("limit_hit"),
        transcript=row.get("transcript"),
        log_file=row.get("log_file") if row.get("transcript") else None,
    )


def grade_view(
    condition: GradeCondition, row: dict[str, Any], solution_hash: str | None
) -> GradeView:
    grader = condition.grader_name if condition.is_judge else condition.scorer
    return GradeView(
        grade_condition_id=condition.id,
        slug=condition.slug,
        kind=condition.kind,
        grader=grader,
        grader_model=condition.grader_model,
        score=row["score"],
        score_raw=row["score_raw"],
        parse_ok=row["parse_ok"],
        parse_error=row["parse_error"],
        reasoning=row["reasoning"],
        explanation=row["explanation"],
        judge_completion=row["judge_completion"],
        error=row["error"],
        usd=row["usd"],
        stale=row["solution_hash"] != solution_hash,
        decided_by=cascade.decided_by(row.get("score_metadata"))
        if condition.is_cascade
        else None,
    )
