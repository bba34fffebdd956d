"""What a generate or grade run was asked to do, shared by both stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..records import Item
from . import cells as plan

Ask = Callable[[str], bool]
Tell = Callable[[str], None]


@dataclass(frozen=True)
class StageOptions:
    """The options generate and grade share (README "A short tour")."""

    conditions: tuple[str, ...] = ()
    limit: int | None = None
    ids: tuple[str, ...] = ()
    """Only the items with these ids (`--items`)."""
    sample: int | None = None
    """A reproducible random subset of this many items (`--sample`), drawn with
    `seed`, stratified by `stratify`."""
    seed: int = 0
    stratify: str | None = None
    force: bool = False
    fresh: bool = False
    """Re-run the selected cells with new draws: the response cache is not read (new
    cost)."""
    pilot: int | None = None
    """Run this many random items first; the rest is projected from their replies
    (`--pilot`)."""
    shard: plan.Shard | None = None
    """Only this shard's cells, without the study lock, into journal parts that
    `itemeval commit` merges."""
    yes: bool = False
    max_usd: float | None = None
    """A cap for this run; None keeps the study's `budget.max_usd`."""
    display: str = "none"

    def chosen(self, items: list[Item]) -> list[Item]:
        """The items of `items` (a study's) that --limit, --items and --sample
        select."""
        return plan.choose_items(
            items,
            limit=self.limit,
            sample=self.sample,
            seed=self.seed,
            stratify=self.stratify,
            ids=self.ids,
        )

    def cache_scope(self, condition_id: str, run_id: str) -> str:
        """A fresh run caches under its own scope, so nothing an earlier run cached
        is read back."""
        return f"{condition_id}@fresh-{run_id}" if self.fresh else condition_id
