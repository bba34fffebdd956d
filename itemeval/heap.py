"""The process's heap and the cyclic garbage collector during a long stage."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_depth = 0


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
