"""The feed that hands inspect one task whenever a running one ends
(inspect_run._Feed)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample

from itemeval.engine import eval as inspect_run


def task(name: str, first: int, size: int = 2) -> Task:
    samples = [Sample(id=f"{name}-{i}", input="x") for i in range(first, first + size)]
    return Task(dataset=MemoryDataset(samples), name=name)


def ended(t: Task, status: str = "success") -> SimpleNamespace:
    """What task_complete reads of a finished task's log header."""
    return SimpleNamespace(
        status=status,
        eval=SimpleNamespace(
            task=t.name, dataset=SimpleNamespace(sample_ids=[s.id for s in t.dataset])
        ),
    )


def feed(tasks: list[Task], keep=lambda: True):
    source = inspect_run._Feed(iter(tasks), keep)
    source.start(2)
    return source


def test_each_ended_task_is_replaced_by_the_next_and_its_samples_are_let_go():
    a0, b0, a1, b1 = task("a", 0), task("b", 0), task("a", 2), task("b", 2)
    source = feed([a0, b0, a1, b1])
    assert source.initial_tasks() == [a0, b0]

    log = ended(b0)
    assert asyncio.run(source.task_complete(log)) == [a1]
    assert (
        len(b0.dataset) == 0 and len(a0.dataset) == 2
    )  # only the ended task's samples are released
    assert asyncio.run(source.task_complete(ended(a0))) == [b1]
    assert asyncio.run(source.task_complete(ended(a1))) is None
    assert asyncio.run(source.task_complete(ended(b1))) is None
    assert source.running == {}


def test_after_a_task_fails_as_a_whole_its_conditions_later_tasks_are_skipped():
    a0, b0, a1, a2, b1 = (
        task("a", 0),
        task("b", 0),
        task("a", 2),
        task("a", 4),
        task("b", 2),
    )
    source = feed([a0, b0, a1, a2, b1])
    assert asyncio.run(source.task_complete(ended(a0, "error"))) == [b1]


@pytest.mark.parametrize("stop", ["keep_feeding", "signal"])
def test_no_task_starts_once_the_run_is_stopping(monkeypatch, stop):
    stopping = {"now": False}
    source = feed(
        [task("a", 0), task("a", 2), task("a", 4)], keep=lambda: not stopping["now"]
    )
    if stop == "signal":
        monkeypatch.setattr(inspect_run.signals, "stop_requested", lambda: True)
    else:
        stopping["now"] = True
    assert asyncio.run(source.task_complete(ended(source.first[0]))) is None
