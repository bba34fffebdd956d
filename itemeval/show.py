"""`itemeval show`: what the stores hold for one item, or the failed cells of some
conditions, as plain values."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Union

import pyarrow as pa
import pyarrow.compute as pc

from . import cascade
from .errors import ConfigError
from .generate import render_prompt
from .grid import select
from .pairwise_export import item_verdicts
from .records import GenerateCondition, GradeCondition, Item
from .results import grade_conditions
from .store import read_store
from .study import Study

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
USAGE = (
    "itemeval show needs an item id (itemeval show CONFIG ITEM_ID) or --failures "
    "(itemeval show CONFIG --condition X --failures)"
)


@dataclass(frozen=True)
class ShowOptions:
    """What `itemeval show` was asked for."""

    item_id: str | None = None
    conditions: tuple[str, ...] = ()
    """--condition selectors (exact id, id prefix or slug) of generate or grade
    conditions."""
    failures: bool = False


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


@dataclass(frozen=True)
class Failure:
    """A cell with an error or a parse failure; grade cells also name the solution's
    generate condition."""

    item_id: str
    epoch: int
    kind: str
    """error or parse_failure."""
    message: str
    gen_condition_id: str | None = None
    gen_condition_slug: str | None = None


@dataclass(frozen=True)
class ConditionFailures:
    condition_id: str
    slug: str
    stage: str
    """generate or grade."""
    failures: list[Failure]


@dataclass(frozen=True)
class FailuresView:
    """`show CONFIG --condition X --failures`: the failed cells of each chosen
    condition."""

    study: str
    item_id: str | None
    conditions: list[ConditionFailures]

    def as_dict(self) -> dict[str, Any]:
        return {"view": "failures", **asdict(self)}


ShowView = Union[ItemView, FailuresView]


def show_study(study: Study, options: ShowOptions) -> ShowView:
    """The one library call of `itemeval show`."""
    if options.failures:
        return failures_view(study, options.conditions, item_id=options.item_id)
    if options.item_id is None:
        raise ConfigError(USAGE)
    return item_view(study, options.item_id, options.conditions)


def find_item(study: Study, item_id: str) -> Item:
    """The study's item with this id; an unknown id is an error naming the closest
    ones."""
    for item in study.items:
        if item.id == item_id:
            return item
    ids = [item.id for item in study.items]
    close = close_ids(item_id, ids)
    hint = (
        f"did you mean {', '.join(close)}?" if close else f"its items are {_some(ids)}"
    )
    raise ConfigError(f"no item {item_id!r} in study {study.config.study}; {hint}")


def close_ids(wanted: str, ids: list[str], shown: int = 3) -> list[str]:
    """Ids that start like `wanted`, then ids spelled like it (case aside), closest
    first."""
    folded = {known.casefold(): known for known in ids}
    starting = [
        known for known in ids if known.casefold().startswith(wanted.casefold())
    ]
    similar = [
        folded[f]
        for f in difflib.get_close_matches(
            wanted.casefold(), list(folded), n=shown, cutoff=0.5
        )
    ]
    return list(dict.fromkeys([*starting[:shown], *similar]))[:shown]


def _some(ids: list[str], shown: int = 5) -> str:
    more = f", … ({len(ids)} in all)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def chosen_conditions(
    study: Study, selectors: tuple[str, ...]
) -> tuple[list[GenerateCondition], list[GradeCondition]]:
    """The generate and grade conditions the selectors name (all of both without a
    selector)."""
    chosen = select([*study.generate, *grade_conditions(study)], list(selectors))
    return (
        [c for c in chosen if isinstance(c, GenerateCondition)],
        [c for c in chosen if isinstance(c, GradeCondition)],
    )


# ---- one item
# --------------------------------------------------------------------------------------


def item_view(study: Study, item_id: str, selectors: tuple[str, ...] = ()) -> ItemView:
    """Everything stored about one item; selectors of one side (generate or grade)
    narrow only that side."""
    item = find_item(study, item_id)
    generate, grade = chosen_conditions(study, selectors)
    if selectors and not generate:
        generate = list(study.generate)
    if selectors and not grade:
        grade = grade_conditions(study)
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
        },
    ).to_pylist()
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


def _item_flags(study: Study, item_id: str) -> dict[str, list[str]]:
    """The item analysis' flags (results --items) per grade condition slug."""
    from .item_results import flags_of

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
    views = [
        solution_view(row, [g for g in grades if g["epoch"] == row["epoch"]], grade)
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
    )


def solution_view(
    row: dict[str, Any], grades: list[dict[str, Any]], grade: list[GradeCondition]
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


# ---- failed cells
# --------------------------------------------------------------------------------------


def failures_view(
    study: Study, selectors: tuple[str, ...], *, item_id: str | None = None
) -> FailuresView:
    """Per chosen condition, its stored cells with an error (or, for grades, a parse
    failure)."""
    items = [find_item(study, item_id).id] if item_id is not None else None
    generate, grade = chosen_conditions(study, selectors)
    slugs = {c.id: c.slug for c in study.generate}
    order = _grid_order(study)
    conditions = [
        ConditionFailures(
            c.id,
            c.slug,
            "generate",
            sorted(_solution_failures(study, c, items), key=order),
        )
        for c in generate
    ]
    conditions += [
        ConditionFailures(
            c.id,
            c.slug,
            "grade",
            sorted(_grade_failures(study, c, items, slugs), key=order),
        )
        for c in grade
    ]
    return FailuresView(
        study=study.config.study, item_id=item_id, conditions=conditions
    )


def _failed_rows(
    study: Study, store: str, columns: list[str], where: dict[str, Any], failed: Any
) -> list[dict]:
    """The rows of a store that `failed` (a function of the table giving a boolean
    mask) keeps, as dicts."""
    table = read_store(study.paths, store, columns, where=where)
    return table.filter(pc.fill_null(failed(table), False)).to_pylist()


def _solution_failures(
    study: Study, condition: GenerateCondition, items: list[str] | None
) -> list[Failure]:
    where = {
        "condition_id": [condition.id],
        **({"item_id": items} if items is not None else {}),
    }
    rows = _failed_rows(
        study,
        "solutions",
        ["item_id", "epoch", "error"],
        where,
        lambda table: pc.is_valid(table["error"]),
    )
    return [
        Failure(row["item_id"], row["epoch"], "error", row["error"]) for row in rows
    ]


def _grade_failures(
    study: Study,
    condition: GradeCondition,
    items: list[str] | None,
    slugs: dict[str, str],
) -> list[Failure]:
    """Errors and parse failures of a grade condition over the solutions of the
    study's generate conditions."""
    where = {
        "grade_condition_id": [condition.id],
        "gen_condition_id": list(slugs),
        **({"item_id": items} if items is not None else {}),
    }
    rows = _failed_rows(
        study,
        "grades",
        ["gen_condition_id", "item_id", "epoch", "error", "parse_ok", "parse_error"],
        where,
        _grade_failed,
    )
    return [
        Failure(
            row["item_id"],
            row["epoch"],
            "error" if row["error"] is not None else "parse_failure",
            row["error"]
            if row["error"] is not None
            else row["parse_error"] or "parse failure",
            row["gen_condition_id"],
            slugs[row["gen_condition_id"]],
        )
        for row in rows
    ]


def _grade_failed(table: pa.Table) -> pa.ChunkedArray:
    return pc.or_kleene(pc.is_valid(table["error"]), pc.invert(table["parse_ok"]))


def _grid_order(study: Study) -> Callable[[Failure], tuple[int, int, str, int]]:
    """Failures in grid order: by their solution's generate condition, then item,
    then replication."""
    conditions = {c.id: index for index, c in enumerate(study.generate)}
    items = {item.id: index for index, item in enumerate(study.items)}

    def key(failure: Failure) -> tuple[int, int, str, int]:
        return (
            conditions.get(failure.gen_condition_id or "", -1),
            items.get(failure.item_id, len(items)),
            failure.item_id,
            failure.epoch,
        )

    return key
