"""Item-bootstrap resamples as count matrices, shared by every metric of a cell."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

RESAMPLES = 2_000
"""README "Metrics beyond the mean": 2,000 item resamples, percentile interval."""
_BLOCK_CELLS = 4_000_000
"""Entries of one block of the count matrix (32 MB as float64), so memory stays flat."""


def resample_counts(
    n: int, *, seed: int, resamples: int = RESAMPLES
) -> Iterator[np.ndarray]:
    """Blocks of a (resamples × n) matrix: how often each item is drawn in each
    resample.

    Drawing indices and counting them is the same bootstrap as indexing the items,
    but a count matrix turns every metric's resampled sufficient statistics into one
    matrix product, and the same seed gives every metric of a cell the same
    resamples. A matrix of one block is kept (read-only): the next cell with as many
    items gets it without drawing again; larger ones are drawn block by block, so
    memory stays flat."""
    if resamples * n <= _BLOCK_CELLS:
        return iter(_one_block(n, seed, resamples))
    return _blocks(n, seed, resamples)


@lru_cache(maxsize=2)
def _one_block(n: int, seed: int, resamples: int) -> tuple[np.ndarray, ...]:
    blocks = tuple(_blocks(n, seed, resamples))
    for block in blocks:
        block.flags.writeable = False
    return blocks


def _blocks(n: int, seed: int, resamples: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, _BLOCK_CELLS // max(n, 1)))
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        drawn = rng.integers(0, n, size=(rows, n))
        flat = drawn + (np.arange(rows) * n)[:, None]
        counts = np.bincount(flat.ravel(), minlength=rows * n)
        yield counts.reshape(rows, n).astype(float)


def stratified_counts(
    strata: np.ndarray, *, seed: int, resamples: int = RESAMPLES
) -> Iterator[np.ndarray]:
    """Blocks (as `resample_counts` cuts them) of a (resamples × n) matrix of how
    often each item is drawn when each stratum's items are resampled among
    themselves: every stratum keeps its size in every resample (`strata`: one label
    per item).

    The items are taken grouped by stratum (labels in sorted order, items in their
    order); each of the n slots draws an item of its own stratum uniformly, all at
    once: `default_rng([seed, 1]).integers(0, stratum size, (rows, n))`. One draw and
    one count per block, however many strata (a numeric target makes a class of
    every distinct answer)."""
    if resamples * len(strata) <= _BLOCK_CELLS:  # kept, as `resample_counts` keeps it
        key = np.ascontiguousarray(strata, dtype=np.int64).tobytes()
        return iter(_one_stratified_block(key, seed, resamples))
    return _stratified_blocks(strata, seed, resamples)


@lru_cache(maxsize=2)
def _one_stratified_block(
    strata: bytes, seed: int, resamples: int
) -> tuple[np.ndarray, ...]:
    """The one block of a cell's items' classes (every cell of the same items and
    targets shares it, as the plain resamples' one block is shared)."""
    labels = np.frombuffer(strata, dtype=np.int64)
    blocks = tuple(_stratified_blocks(labels, seed, resamples))
    for block in blocks:
        block.flags.writeable = False
    return blocks


def _stratified_blocks(
    strata: np.ndarray, seed: int, resamples: int
) -> Iterator[np.ndarray]:
    n = len(strata)
    rng = np.random.default_rng([seed, 1])  # apart from the plain resamples' stream
    order = np.argsort(strata, kind="stable")
    _, starts, sizes = np.unique(strata[order], return_index=True, return_counts=True)
    group = np.repeat(np.arange(len(sizes)), sizes)
    slot_start, slot_size = starts[group], sizes[group]
    block = max(1, min(resamples, _BLOCK_CELLS // max(n, 1)))
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        drawn = order[slot_start + rng.integers(0, slot_size, size=(rows, n))]
        flat = drawn + (np.arange(rows) * n)[:, None]
        counts = np.bincount(flat.ravel(), minlength=rows * n)
        yield counts.reshape(rows, n).astype(float)


def percentile_interval(values: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the resampled figures (undefined ones left
    out)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)
