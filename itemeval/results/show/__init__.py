"""`itemeval show`: what the stores hold for one item (`item`), or the failed cells of
some conditions (`failures`), as plain values; console/show.py draws them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ...errors import ConfigError
from ...study.load import Study
from .failures import ConditionFailures, Failure, FailuresView, failures_view
from .item import ConditionView, GradeView, ItemView, SolutionView, item_view
from .select import close_ids, find_item

__all__ = [
    "ConditionFailures",
    "ConditionView",
    "Failure",
    "FailuresView",
    "GradeView",
    "ItemView",
    "ShowOptions",
    "ShowView",
    "SolutionView",
    "close_ids",
    "failures_view",
    "find_item",
    "item_view",
    "show_study",
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


ShowView = Union[ItemView, FailuresView]


def show_study(study: Study, options: ShowOptions) -> ShowView:
    """The one library call of `itemeval show`."""
    if options.failures:
        return failures_view(study, options.conditions, item_id=options.item_id)
    if options.item_id is None:
        raise ConfigError(USAGE)
    return item_view(study, options.item_id, options.conditions)
