"""The stored state planners work from: the grid's cells and grade pairs joined with what the stores hold."""

from __future__ import annotations

import pandas as pd

from . import plan
from .cost import ObservedLengths
from .records import GenerateCondition, GradeCondition
from .store import read_store
from .study import Study, extra_judges


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


def observed_lengths(study: Study, stage: str) -> ObservedLengths:
    """Mean reply lengths already stored for a stage's calls, which the estimate's expected figure uses."""
    if stage == "generate":
        rows = read_store(study.paths, "solutions", ["condition_id", "model", "error", "output_tokens"]).to_pandas()
        return ObservedLengths.from_rows(rows, "condition_id", "model")
    rows = read_store(study.paths, "grades", ["grade_condition_id", "grader_model", "error", "output_tokens",
                                              "grade_kind"]).to_pandas()
    return ObservedLengths.from_rows(rows[rows["grade_kind"] == "judge"], "grade_condition_id", "grader_model")


def superseded_notes(study: Study, conditions: list[GenerateCondition]) -> list[str]:
    """Say when a condition's id changed under its slug (an edited template or setting): old rows stay put."""
    stored = read_store(study.paths, "solutions", ["condition_id", "condition_slug"]).to_pandas()
    current = {c.id for c in study.generate}
    notes = []
    for condition in conditions:
        old = stored[(stored["condition_slug"] == condition.slug) & ~stored["condition_id"].isin(current)]
        for old_id, rows in old.groupby("condition_id"):
            notes.append(f"{condition.slug}: its prompt or settings changed, so its id is now {condition.id}; "
                         f"the {len(rows)} rows stored under the old id {old_id} stay there and never mix with it")
    return notes
