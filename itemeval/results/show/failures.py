"""`itemeval show CONFIG --condition X --failures`: the cells of some conditions that
have an error or a parse failure, with the message, in grid order."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable

import pyarrow as pa
import pyarrow.compute as pc

from ...records import GenerateCondition, GradeCondition
from ...store import read_store
from ...study.load import Study
from .select import chosen_conditions, find_item


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
