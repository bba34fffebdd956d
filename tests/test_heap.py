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


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield before
    heap._settled_threshold = None
    gc.set_threshold(*before)


def test_a_starting_run_collects_lazily_until_it_settles(thresholds):
    with heap.starting():
        assert gc.get_threshold() == (heap.STARTING_GEN0, *thresholds[1:])
        with heap.starting():  # nested: the outer block owns the start
            assert gc.get_threshold()[0] == heap.STARTING_GEN0
        assert gc.get_threshold()[0] == heap.STARTING_GEN0
        with heap.frozen():
            entered = gc.get_freeze_count()
            made = [[] for _ in range(5_000)]  # the eval's own long-lived objects
            heap.settle()  # the first model call
            assert gc.get_threshold() == thresholds
            assert gc.get_freeze_count() >= entered + len(made)
            frozen = gc.get_freeze_count()
            heap.settle()  # every later call: nothing more
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == 0  # the eval's end undid both freezes
    assert gc.get_threshold() == thresholds


def test_a_start_nothing_settled_ends_at_the_usual_pace(thresholds):
    with pytest.raises(RuntimeError):
        with heap.starting():
            raise RuntimeError("the eval failed before any call")
    assert gc.get_threshold() == thresholds
    heap.settle()  # outside a start: nothing to do
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0


@pytest.mark.parametrize("stage", ["generate", "grade"])
def test_a_run_settles_at_its_first_model_call(
    tmp_path, monkeypatch, thresholds, stage
):
    """Generate and a judge's grade each settle once, at their first call: neither eval
    runs lazily to its end."""
    from itemeval.cli import main
    from tests.helpers import base_config, write_study

    study = base_config(
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge", "max_tokens": 256}},
    )
    path = str(write_study(tmp_path, study))
    if stage == "grade":
        assert main(["generate", path, "--yes"]) == 0
    seen = []
    real = heap.settle

    def settle():
        seen.append(heap._settled_threshold is not None)
        real()

    monkeypatch.setattr(heap, "settle", settle)
    assert main([stage, path, "--yes"]) == 0
    assert seen[:1] == [True] and not any(seen[1:]), seen[:5]
    assert gc.get_threshold() == thresholds
