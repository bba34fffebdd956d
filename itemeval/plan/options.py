"""What a command was asked to cover and do: the selection of cells every stage and
`estimate` share, and each stage's own options."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, TypeVar

from ..records import Item, Shard
from . import items as plan_items

Ask = Callable[[str], bool]
Tell = Callable[[str], None]

S = TypeVar("S", bound="Selection")


@dataclass(frozen=True)
class Selection:
    """Which cells a command covers: the conditions (`--condition`), and the items
    (`--limit`, `--items`, `--sample` drawn with `seed`, stratified by `stratify`)."""

    conditions: tuple[str, ...] = ()
    limit: int | None = None
    ids: tuple[str, ...] = ()
    """Only the items with these ids (`--items`)."""
    sample: int | None = None
    """A reproducible random subset of this many items (`--sample`), drawn with
    `seed`, stratified by `stratify`."""
    seed: int = 0
    stratify: str | None = None

    @classmethod
    def of(cls: type[S], selection: Selection, **rest: Any) -> S:
        """These options over `selection`'s cells (the selection's fields copied
        once, here)."""
        chosen = {f.name: getattr(selection, f.name) for f in fields(Selection)}
        return cls(**chosen, **rest)

    def chosen(self, items: list[Item]) -> list[Item]:
        """The items of `items` (a study's) that --limit, --items and --sample
        select."""
        return plan_items.choose_items(
            items,
            limit=self.limit,
            sample=self.sample,
            seed=self.seed,
            stratify=self.stratify,
            ids=self.ids,
        )


@dataclass(frozen=True)
class StageOptions(Selection):
    """The options generate and grade share (README "A short tour")."""

    force: bool = False
    fresh: bool = False
    """Re-run the selected cells with new draws: the response cache is not read (new
    cost)."""
    pilot: int | None = None
    """Run this many random items first; the rest is projected from their replies
    (`--pilot`)."""
    shard: Shard | None = None
    """Only this shard's cells, without the study lock, into journal parts that
    `itemeval commit` merges."""
    yes: bool = False
    max_usd: float | None = None
    """A cap for this run; None keeps the study's `budget.max_usd`."""
    display: str = "none"

    def cache_scope(self, condition_id: str, run_id: str) -> str:
        """A fresh run caches under its own scope, so nothing an earlier run cached
        is read back."""
        return f"{condition_id}@fresh-{run_id}" if self.fresh else condition_id


@dataclass(frozen=True)
class GenerateOptions(StageOptions):
    """What `itemeval generate` was asked to do."""


@dataclass(frozen=True)
class GradeOptions(StageOptions):
    """What `itemeval grade` was asked to do; `graders`/`rubrics` select judge
    conditions only."""

    graders: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    """Only the grades in these states (`parse-failures`, `errors`), re-run whatever
    they are."""


@dataclass(frozen=True)
class EstimateOptions(Selection):
    """What `itemeval estimate` was asked to price."""

    force: bool = False
    graders: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()
    stage: str = "all"
    """all | generate | grade"""

    def grade_options(self) -> GradeOptions:
        """The estimate's selection, as both stages' plans take it."""
        return GradeOptions.of(
            self, graders=self.graders, rubrics=self.rubrics, force=self.force
        )
