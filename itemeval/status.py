"""The study's grid with per-condition completion and spend, read from the stores without locking them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from . import plan
from .records import GenerateCondition, GradeCondition
from .store import read_store
from .study import Study, extra_judges


@dataclass(frozen=True)
class GenerateRow:
    condition: GenerateCondition
    cells: int
    done: int
    errors: int
    empty: int
    truncated: int
    missing: int
    usd: float | None  # None: a stored row's model is unpriced


@dataclass(frozen=True)
class GradeRow:
    condition: GradeCondition
    solutions: int
    done: int
    parse_failed: int
    stale: int
    errors: int
    pending: int
    usd: float | None  # None: a stored grade's judge is unpriced


@dataclass(frozen=True)
class StatusReport:
    study: Study
    generate: list[GenerateRow]
    grade: list[GradeRow]
    journal_rows: int = 0
    notes: list[str] = field(default_factory=list)


def solution_state(study: Study, condition_ids: list[str] | None = None, item_ids: list[str] | None = None) -> pd.DataFrame:
    """The grid's cells (optionally only some conditions and items) merged with their stored solutions' state."""
    ids = condition_ids if condition_ids is not None else [c.id for c in study.generate]
    items = item_ids if item_ids is not None else [item.id for item in study.items]
    cells = plan.grid_cells(ids, items, study.replications)
    stored = read_store(study.paths, "solutions", plan.GENERATE_STATE_COLUMNS, where={"condition_id": ids}).to_pandas()
    return plan.attach_solutions(cells, stored)


def grade_state(study: Study, conditions: list[GradeCondition], merged: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every (grade condition × gradable solution) with its state (done, parse_failed, stale, error, pending)."""
    merged = solution_state(study) if merged is None else merged
    gradable = plan.gradable(merged, study.config.solvers.on_empty)
    where = {"grade_condition_id": [c.id for c in conditions]}
    grades = read_store(study.paths, "grades", plan.GRADE_STATE_COLUMNS, where=where).to_pandas()
    return plan.grade_state(gradable, grades, [c.id for c in conditions])


def graded_extra_judges(study: Study) -> list[GradeCondition]:
    """Judges of `graders:` entries outside facets.grader that `grade --grader NAME` has already run."""
    extra = extra_judges(study, list(study.config.graders))
    if not extra:
        return []
    stored = read_store(study.paths, "grades", ["grade_condition_id"], where={"grade_condition_id": [c.id for c in extra]})
    graded = set(stored.column("grade_condition_id").to_pylist())
    return [c for c in extra if c.id in graded]


def study_status(study: Study) -> StatusReport:
    from .run import recover_if_idle

    recovered, pending = recover_if_idle(study)
    notes = [f"recovered {n} {store} rows from the journal of an interrupted run" for store, n in recovered.items()]
    merged = solution_state(study)
    gen_counts = plan.generate_counts(merged, study.config.solvers.on_empty)
    grade = study.grade + graded_extra_judges(study)
    grade_counts = plan.grade_counts(grade_state(study, grade, merged))
    return StatusReport(
        study=study,
        generate=[GenerateRow(c, **_counts(gen_counts, c.id, GenerateRow)) for c in study.generate],
        grade=[GradeRow(c, **_counts(grade_counts, c.id, GradeRow)) for c in grade],
        journal_rows=pending,
        notes=notes,
    )


def _counts(table: pd.DataFrame, condition_id: str, row_type: type) -> dict[str, Any]:
    names = [name for name in row_type.__dataclass_fields__ if name != "condition"]
    if condition_id not in table.index:
        return {name: 0.0 if name == "usd" else 0 for name in names}
    row = table.loc[condition_id]
    counts = {name: int(row[name]) for name in names if name != "usd"}
    return {**counts, "usd": None if pd.isna(row["usd"]) else float(row["usd"])}
