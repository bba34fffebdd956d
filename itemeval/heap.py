"""The process's heap and the cyclic garbage collector during a long stage."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_depth = 0

STARTING_GEN0 = 100_000
"""Allocations between young collections while a run starts (the collector's default
is 700)."""
_settled_threshold: tuple[int, ...] | None = None
"""The thresholds to return to when the run settles; None when it is not starting."""


@contextlib.contextmanager
def frozen(*, collect_first: bool = False) -> Iterator[None]:
    """Hide everything alive on entry from the cyclic garbage collector until the block
    ends.

    A stage allocates container objects per sample or grade, and that triggers full
    collections. Each full collection rescans every object in the process: over a
    million after importing inspect-ai, pandas and pyarrow. Frozen, those objects are
    skipped.
    - An eval spends half the CPU per sample.
    - A 300,000-grade run saves ~0.7 s.

    What the block creates is still collected as usual.

    Blocks nest: an inner block freezes what was created since the outer one began, and
    only the outermost block unfreezes. That block does not exist when a freeze was
    already in place before any of ours (it is its owner's to undo). `collect_first`
    collects before freezing, so no dead cycle stays frozen meanwhile.
    """
    global _depth
    owner = _depth == 0 and not gc.get_freeze_count()
    if collect_first:
        gc.collect()
    gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if owner:
            gc.unfreeze()


def leave_to_exit() -> None:
    """Hide every object still alive from the collector for the rest of the process:
    called as a command's process is about to end.

    Shutting the interpreter down runs full collections over every object still alive,
    over a million once inspect-ai, pandas and pyarrow are loaded; after a 2,000-cell
    generate that took 0.8 s, on nothing that still needed doing. Frozen, they are
    skipped (0.09 s). atexit handlers and module teardown still run, so files close and
    logs flush as before; only garbage cycles are left for the OS to reclaim.
    """
    gc.freeze()


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """A run's start, up to its first model call or finished sample (`settle`), with
    young objects collected only every `STARTING_GEN0` allocations.

    Starting a run imports inspect-ai, the provider's SDK and the rest: ~220,000
    long-lived objects, which the default pace rescans as they come (0.34 s of
    collections in importing inspect-ai, pandas, pyarrow and openai, 1.46 s in all).
    Little of what imports create is garbage. Meant for the first eval of a run only:
    the block's end returns to the usual pace if nothing settled it.
    """
    global _settled_threshold
    if _settled_threshold is not None:  # nested: the outer block owns the start
        yield
        return
    _settled_threshold = before = gc.get_threshold()
    gc.set_threshold(STARTING_GEN0, *before[1:])
    try:
        yield
    finally:
        if _settled_threshold is not None:
            gc.set_threshold(*_settled_threshold)
            _settled_threshold = None


def settle() -> None:
    """Called at each model call and finished sample of an eval, inside its `frozen`
    block: the first time in a `starting` run, what is alive (modules, the eval, the
    model's client) stays to the end of the eval, so it is frozen, and collection
    returns to the usual pace. Otherwise it does nothing."""
    global _settled_threshold
    if _settled_threshold is None:
        return
    gc.freeze()  # the eval's `frozen` block unfreezes it as the eval ends
    gc.set_threshold(*_settled_threshold)
    _settled_threshold = None
