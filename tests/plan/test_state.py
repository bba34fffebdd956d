"""state.all_generated: the arrow count a no-op generate trusts, checked against the
pandas planner on the same stored rows (issue 27)."""

from __future__ import annotations

import pytest

from itemeval.plan import cells as plan
from itemeval.plan.state import all_generated, solution_state
from itemeval.store import upsert
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study


def _study(tmp_path, on_empty="skip"):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        solvers__on_empty=on_empty,
        facets__replications=2,
    )
    return load_study(str(write_study(tmp_path, config)))


def _rows(study, *, skip=(), error=(), blank=(), extra=()):
    """A solution row per cell, less `skip`; cells in `error`/`blank` so marked."""
    rows = []
    for condition in study.generate:
        for item in study.items:
            for epoch in range(1, study.replications + 1):
                cell = (condition.id, item.id, epoch)
                if cell in skip:
                    continue
                rows.append(
                    {
                        "condition_id": cell[0],
                        "item_id": cell[1],
                        "epoch": epoch,
                        "error": "boom" if cell in error else None,
                        "blank": cell in blank,
                    }
                )
    return rows + [dict(row) for row in extra]


def _all_generated(study, conditions, items):
    return all_generated(
        study.paths,
        conditions,
        items,
        replications=study.replications,
        on_empty=study.config.solvers.on_empty,
    )


def _planner_idle(study, conditions, items):
    merged = solution_state(study, conditions, items)
    on_empty = study.config.solvers.on_empty
    return plan.plan_generate(merged, on_empty=on_empty, force=False).empty


CASES = {
    "every cell done": ("skip", {}, True),
    "one cell missing": ("skip", {"skip": "first"}, False),
    "one cell errored": ("skip", {"error": "first"}, False),
    "a blank reply is done when skipped": ("skip", {"blank": "first"}, True),
    "a blank reply runs again under rerun": ("rerun", {"blank": "first"}, False),
    "an epoch beyond the replications does not count": (
        "skip",
        {"skip": "first", "extra_epoch": True},
        False,
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_all_generated_agrees_with_the_planner(tmp_path, case):
    on_empty, marks, expected = CASES[case]
    study = _study(tmp_path, on_empty)
    first = (study.generate[0].id, study.items[0].id, 1)
    cells = {k: {first} for k, v in marks.items() if v == "first"}
    extra = []
    if marks.get("extra_epoch"):  # a stored row the grid no longer has
        extra = [{"condition_id": first[0], "item_id": first[1], "epoch": 99}]
    upsert(study.paths, "solutions", _rows(study, extra=extra, **cells))
    conditions = [c.id for c in study.generate]
    items = [item.id for item in study.items]
    assert _all_generated(study, conditions, items) is expected
    assert _planner_idle(study, conditions, items) is expected


def test_all_generated_counts_only_the_selected_items_and_conditions(tmp_path):
    study = _study(tmp_path)
    missing = (study.generate[1].id, study.items[-1].id, 2)
    upsert(study.paths, "solutions", _rows(study, skip={missing}))
    conditions = [c.id for c in study.generate]
    items = [item.id for item in study.items]
    assert not _all_generated(study, conditions, items)
    assert _all_generated(study, conditions[:1], items)
    assert _all_generated(study, conditions, items[:-1])
    assert _all_generated(study, [], items)  # nothing selected: nothing to do
