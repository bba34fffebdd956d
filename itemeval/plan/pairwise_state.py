"""The stored state of pairwise verdicts: every verdict the pairwise conditions ask of
the stored answers, joined with the pairwise store, and the ones to ask now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..paths import StudyPaths
from ..records import PAIRWISE_KEY, GenerateCondition, GradeCondition, Item, Shard
from ..store import read_store
from ..store.journal import journaled_keys
from ..study.load import Study, extra_pairwise
from . import pairwise as pairwise_plan
from . import shards as plan_shards
from .state import Stored, stored_of

STORE = "pairwise"


def pending(
    stored: Stored,
    generate: list[GenerateCondition],
    conditions: list[GradeCondition],
    items: list[Item],
    *,
    force: bool,
    only: tuple[str, ...] = (),
) -> pd.DataFrame:
    """The verdicts to ask now, over the selected generate conditions (and each
    condition's baseline)."""
    return pairwise_plan.plan_pairs(
        _state(stored, generate, conditions, items), force=force, only=only
    )


def state(
    study: Study,
    generate: list[GenerateCondition],
    conditions: list[GradeCondition],
    items: list[Item] | None = None,
    *,
    extra: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Every verdict the conditions ask of the stored answers (over `items`, else
    every item), with its state (and the stored verdict's `extra` columns where there
    is one)."""
    every = study.items if items is None else items
    return _state(stored_of(study), generate, conditions, every, extra=extra)


def _state(
    stored: Stored,
    generate: list[GenerateCondition],
    conditions: list[GradeCondition],
    items: Sequence[Item],
    *,
    extra: tuple[str, ...] = (),
) -> pd.DataFrame:
    if not conditions:
        return pairwise_plan.pair_state(
            pd.DataFrame(columns=pairwise_plan.CELL_COLUMNS),
            pd.DataFrame(columns=pairwise_plan.STATE_COLUMNS),
        )
    gen_ids = [c.id for c in generate]
    wanted = sorted({*gen_ids, *(c.baseline for c in conditions if c.baseline)})
    gradable = stored.gradable(stored.solutions(wanted, [i.id for i in items]))
    cells = pd.concat(
        [pairwise_plan.pair_cells(gradable, c, gen_ids) for c in conditions],
        ignore_index=True,
    )
    verdicts = read_store(
        stored.paths,
        STORE,
        [*pairwise_plan.STATE_COLUMNS, *extra],
        where={"grade_condition_id": [c.id for c in conditions]},
    ).to_pandas()
    return pairwise_plan.pair_state(cells, verdicts)


def shard_pending(
    paths: StudyPaths,
    conditions: list[GradeCondition],
    todo: pd.DataFrame,
    shard: Shard,
) -> pd.DataFrame:
    """The shard's verdicts (by grade condition and item, or by judge model), less its
    journaled ones."""
    owners = {c.id: c.grader_model or "" for c in conditions}
    todo = todo[plan_shards.in_shard(todo, shard, "grade_condition_id", owners)]
    done = journaled_keys(paths, "", STORE, PAIRWISE_KEY)  # every part's (generate)
    if done and len(todo):
        keys = zip(*(todo[name] for name in PAIRWISE_KEY))
        todo = todo[np.asarray([_key(v) not in done for v in keys], dtype=bool)]
    return todo.reset_index(drop=True)


def _key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(
        int(v) if name in ("epoch", "order") else v
        for name, v in zip(PAIRWISE_KEY, values)
    )


def current_ids(study: Study) -> set[str]:
    """The ids of every pairwise condition of the study, those of pairwise graders
    outside facets.grader included."""
    current = {c.id for c in study.pairwise}
    current |= {
        c.id
        for c in extra_pairwise(
            study.loaded, study.generate, list(study.config.graders)
        )
    }
    return current
