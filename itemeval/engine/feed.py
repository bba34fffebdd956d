"""Feed one inspect task its cells a few at a time, a new one as each ends.

A task given all its cells up front holds every prompt until it ends, so itemeval
once cut a condition into small tasks; each of those waited for its slowest call, and
tasks started together reached their slowest calls together, leaving connections idle
(calls in flight fell to 10-15 of 64 under a long-tailed provider). Fed this way, one
task runs a condition's whole slice of an eval with a bounded number of cells held,
and a slow call holds up nothing but itself: the connections stay busy until the
condition has no cell left to start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice

from inspect_ai import SampleSource
from inspect_ai.dataset import MemoryDataset, Sample

from .. import signals
from ..records import Cell, TaskSpec


def task_dataset(
    spec: TaskSpec, window: int | None, sample: Callable[[Cell], Sample]
) -> MemoryDataset | SampleSource:
    """A spec's cells as an inspect dataset: all up front when they fit in `window`
    (or no window is given), else fed `window` at a time."""
    if window is None or window >= len(spec.cells):
        return MemoryDataset([sample(cell) for cell in spec.cells], name=spec.name)
    return CellFeed(spec.cells, window, sample)


class CellFeed(SampleSource):
    """inspect's sample source for one task: `window` cells started at first, then
    one more each time a cell ends, until the cells run out or a stop was requested.

    Samples are built only when fed, so a task's prompts are not all held at once.
    """

    def __init__(
        self, cells: Sequence[Cell], window: int, sample: Callable[[Cell], Sample]
    ) -> None:
        self._cells: Iterator[Cell] = iter(cells)
        self._sample = sample
        self._seed = self._take(max(1, window))

    def initial_samples(self) -> list[Sample]:
        return self._seed

    async def next_samples(self) -> list[Sample] | None:
        # called once nothing is in flight: only after a stop, or at the very end
        return self._take(1) or None

    async def sample_complete(self, sample: object) -> list[Sample] | None:
        return self._take(1) or None

    async def sample_abandoned(self, sample: object, epoch: int) -> list[Sample] | None:
        return self._take(1) or None

    def _take(self, count: int) -> list[Sample]:
        if signals.stop_requested():  # no call starts after a stop: feed nothing more
            return []
        return [self._sample(cell) for cell in islice(self._cells, count)]
