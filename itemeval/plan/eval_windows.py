"""How a run's task specs are cut into inspect evals: batches of about a size, each
run as a task per condition fed a window of cells at a time."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ..records import TaskSpec


def eval_batches(specs: Sequence[TaskSpec], max_cells: int) -> list[list[TaskSpec]]:
    """Split task specs into batches of at most about `max_cells` cells, one inspect
    eval() each.

    inspect's memory and time per sample grow with a running eval, so a big run is cut
    into batches. Every batch takes the next slice of every condition that still has
    cells, so the conditions keep running side by side (max_tasks) and each condition's
    cells stay in order.
    """
    total = sum(len(spec.cells) for spec in specs)
    if total == 0:
        return []
    count = -(-total // max(1, max_cells))
    batches: list[list[TaskSpec]] = [[] for _ in range(count)]
    for spec in specs:
        size = -(-len(spec.cells) // count)
        for number in range(count):
            cells = spec.cells[number * size : (number + 1) * size]
            if cells:
                batches[number].append(replace(spec, cells=cells))
    return [batch for batch in batches if batch]


@dataclass(frozen=True)
class EvalWindow:
    """One inspect eval: a task per condition, in the order they start, at most
    `in_flight` of them running at once, each holding at most `window` cells.

    A task is fed its cells `window` at a time, a new one as each ends, so a slow call
    holds up nothing but itself and only `in_flight * window` cells are held in memory.
    """

    tasks: list[TaskSpec]
    in_flight: int
    window: int


MAX_TASKS_IN_FLIGHT = 32


def eval_windows(
    specs: Sequence[TaskSpec], cells_per_eval: int, cells_in_flight: int
) -> list[EvalWindow]:
    """Cut task specs into evals of about `cells_per_eval` cells, a task per condition,
    the `cells_in_flight` shared by the tasks running at once."""
    windows = []
    for batch in eval_batches(specs, cells_per_eval):
        in_flight = min(MAX_TASKS_IN_FLIGHT, len(batch))
        window = max(1, cells_in_flight // in_flight)
        windows.append(EvalWindow(list(batch), in_flight, window))
    return windows
