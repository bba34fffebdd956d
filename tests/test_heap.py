"""heap.frozen: the heap alive on entry is hidden from the collector; nested blocks
leave the unfreeze to the outermost one, and a freeze someone else made is never
undone."""

from __future__ import annotations

import gc

import pytest

from itemeval import heap


@pytest.fixture(autouse=True)
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_block_freezes_on_entry_and_unfreezes_on_exit_even_after_an_error():
    with pytest.raises(RuntimeError):
        with heap.frozen():
            assert gc.get_freeze_count() > 1000
            raise RuntimeError("stage failed")
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("collect_first", [False, True])
def test_an_inner_block_adds_to_the_freeze_and_only_the_outer_block_unfreezes(
    collect_first,
):
    with heap.frozen():
        outer = gc.get_freeze_count()
        made = [
            [] for _ in range(5_000)
        ]  # created inside the outer block: not frozen by it
        with heap.frozen(collect_first=collect_first):  # a judge eval inside a grade
            assert gc.get_freeze_count() >= outer + len(made)
        assert gc.get_freeze_count() >= outer + len(made), (
            "the inner block undid the outer freeze"
        )
    assert gc.get_freeze_count() == 0


def test_a_freeze_made_elsewhere_is_not_undone():
    gc.freeze()
    with heap.frozen():
        pass
    assert gc.get_freeze_count() > 1000
