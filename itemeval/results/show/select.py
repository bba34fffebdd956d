"""Which item and which conditions `itemeval show` was asked about: an unknown item id
is an error naming the closest ones."""

from __future__ import annotations

import difflib

from ...errors import ConfigError
from ...records import GenerateCondition, GradeCondition, Item
from ...study.grid import select
from ...study.load import Study
from ..compute import grade_conditions


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
