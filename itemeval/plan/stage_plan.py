"""A stage's plan as one value: the cells a run executes, the inspect tasks that run
them, and their estimate.

Every stage is plan -> approve -> execute: the stage runs `plan.specs` once the gate
approved `plan.lines`, `estimate` prints the lines, `launch` splits `plan.keys` by
shard. A new kind of work adds what it plans here, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..outcomes import ConditionRun
from ..records import GenerateCondition, GradeCondition, Shard, TaskSpec
from ..study import cascade
from . import shards as plan_shards
from .estimates import EstimateLine


@dataclass
class Settled:
    """A plan's cascade cells after their first stages: the grade rows they decided
    and, for the cells left to the judge, what each stage said."""

    rows: list[dict[str, Any]]
    trails: dict[tuple[str, str, str, int], cascade.Trail]
    """(grade condition, gen condition, item, epoch) -> the trail."""


@dataclass(frozen=True)
class StagePlan:
    """What one run of a stage will execute and what it costs."""

    stage: str
    generate: tuple[GenerateCondition, ...]
    """The generate conditions the run covers (the manifest records them)."""
    grade: tuple[GradeCondition, ...]
    """The grade conditions the run covers, pairwise ones included; none for
    generate."""
    cells: pd.DataFrame
    """One row per cell: generate's (condition, item, epoch), or grade's pending
    (grade condition, solution) pairs with the solution's hash."""
    owners: Mapping[str, str]
    """Condition id -> the model (or scorer) that `--shard-by model` keeps together."""
    specs: tuple[TaskSpec, ...]
    """The inspect tasks that run the cells models answer."""
    lines: tuple[EstimateLine, ...]
    """The estimate of exactly these cells."""
    notes: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    """The models whose providers must be known before anything is written."""
    pair_cells: pd.DataFrame | None = None
    """A grade's pending pairwise verdicts (their own key: two answers, an order)."""
    settled: Settled | None = None
    """A grade's cascade cells its scorers decided while planning (rows to write) and
    the trails of those left to the judge."""

    @property
    def column(self) -> str:
        """The cells' condition column."""
        return "condition_id" if self.stage == "generate" else "grade_condition_id"

    @property
    def keys(self) -> pd.DataFrame:
        """Every cell as (condition, item): what `launch` splits by shard."""
        frames = [f for f in (self.cells, self.pair_cells) if f is not None]
        if len(frames) == 1:
            return self.cells
        columns = [self.column, "item_id"]
        return pd.concat([f[columns] for f in frames], ignore_index=True)

    @property
    def empty(self) -> bool:
        return self.cells.empty and (self.pair_cells is None or self.pair_cells.empty)

    @property
    def planned(self) -> dict[str, int]:
        """Cells per condition id."""
        counts: dict[str, int] = {}
        for frame in (self.cells, self.pair_cells):
            if frame is not None and not frame.empty:
                sizes = frame.groupby(self.column).size().items()
                counts.update({str(k): int(v) for k, v in sizes})
        return counts

    @property
    def conditions(self) -> tuple[GenerateCondition | GradeCondition, ...]:
        """The conditions whose cells this run counts."""
        return self.generate if self.stage == "generate" else self.grade

    def condition_runs(self) -> list[ConditionRun]:
        """Each condition's summary, planned with its number of cells."""
        planned = self.planned
        return [
            ConditionRun(c.id, c.slug, planned=planned.get(c.id, 0))
            for c in self.conditions
        ]

    def in_shard(self, shard: Shard) -> pd.Series:
        """Which of `keys` belong to `shard`."""
        return plan_shards.in_shard(self.keys, shard, self.column, dict(self.owners))
