"""The study's grid with per-condition completion and spend, read from the stores
without locking them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..outcomes import recovered_note
from ..plan import cells as plan
from ..plan import pairwise as pairwise_plan
from ..plan.pairwise_state import state as state_of_pairs
from ..plan.state import (
    grade_ids,
    grade_state,
    grade_superseded_notes,
    graded_extra_judges,
    solution_state,
    superseded_notes,
)
from ..records import GenerateCondition, GradeCondition
from ..store.backend import lease_holder
from ..store.lock import lock_holder
from ..store.recovery import recover_if_idle
from ..study.load import Study
from . import pairwise as pairwise_results


@dataclass(frozen=True)
class GenerateRow:
    condition: GenerateCondition
    cells: int
    done: int
    errors: int
    empty: int
    truncated: int
    changed: int
    """Answers to an earlier version of their item (solvers.on_input_change)."""
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
    running: dict[str, Any] | None = None
    """Who holds the study lock right now (pid, host, command, started_at), when a
    command is running."""


def study_status(study: Study) -> StatusReport:
    """The grid's completion and spend; first recovers a dead run's journal when the
    study is idle."""
    recovered, pending = recover_if_idle(study.paths)
    notes = [recovered_note(n, store) for store, n in recovered.items()]
    merged = solution_state(study)
    solvers = study.config.solvers
    gen_counts = plan.generate_counts(merged, solvers.on_empty, solvers.on_input_change)
    notes += _changed_notes(gen_counts, solvers.on_input_change)
    grade = study.grade + graded_extra_judges(study)
    grade_counts = plan.grade_counts(grade_state(study, grade, merged, all_draws=True))
    current = {c.id for c in study.generate}
    notes += superseded_notes(
        study.paths, study.generate, current
    ) + grade_superseded_notes(study.paths, grade, grade_ids(study))
    # A pairwise judge's `solutions` are the verdicts it asks (pairs × items × epochs ×
    # orders).
    pairs = pairwise_results.pairwise_conditions(study)
    if pairs:
        grade_counts = pd.concat(
            [
                grade_counts,
                pairwise_plan.pair_counts(state_of_pairs(study, study.generate, pairs)),
            ]
        )
        grade = grade + pairs
    return StatusReport(
        study=study,
        generate=[
            GenerateRow(c, **_counts(gen_counts, c.id, GenerateRow))
            for c in study.generate
        ],
        grade=[GradeRow(c, **_counts(grade_counts, c.id, GradeRow)) for c in grade],
        journal_rows=pending,
        notes=notes,
        running=lock_holder(study.paths) or lease_holder(study.paths),
    )


def _changed_notes(counts: pd.DataFrame, policy: str) -> list[str]:
    """Say how many stored answers were written for an earlier version of their
    item, and what happens to them."""
    changed = int(counts["changed"].sum()) if "changed" in counts else 0
    if not changed:
        return []
    if policy == "keep":
        return [
            f"{changed} answer(s) were written for an earlier version of their item: "
            "kept and graded (solvers.on_input_change: keep), flagged input_changed "
            "in export and show"
        ]
    return [
        f"{changed} answer(s) were written for an earlier version of their item: "
        "the next generate runs them again (they are not graded until then)"
    ]


def _counts(table: pd.DataFrame, condition_id: str, row_type: type) -> dict[str, Any]:
    names = [name for name in row_type.__dataclass_fields__ if name != "condition"]
    if condition_id not in table.index:
        return {name: 0.0 if name == "usd" else 0 for name in names}
    row = table.loc[condition_id]
    counts = {name: int(row[name]) for name in names if name != "usd"}
    return {**counts, "usd": None if pd.isna(row["usd"]) else float(row["usd"])}
