"""Item-weighted sufficient statistics: each item's rows added up once, then weighted
by how often each bootstrap resample drew the item (one matrix product for every
resample at once)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..lazy import lazy_import

# loaded at its first use: the metrics registry is imported by commands that never
# compute a metric (status, a no-op generate)
sparse = lazy_import("scipy.sparse")


def item_sums(item_of_row: np.ndarray, n_items: int, row_stats: Any) -> Any:
    """(items × stats): each item's rows added up, sparse when the row stats are."""
    rows = len(item_of_row)
    pick = sparse.csr_matrix(
        (np.ones(rows), (item_of_row, np.arange(rows))), shape=(n_items, rows)
    )
    return pick @ row_stats


def weighted(
    counts: np.ndarray, item_sums: Any, shared: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    """(resamples × stats) = counts @ item_sums (dense @ sparse where the sums are
    sparse); `shared` keeps products by the sums they were taken of, so figures
    prepared from the same sums pay for one."""
    if shared is not None and id(item_sums) in shared:
        return shared[id(item_sums)]
    product = np.asarray(counts @ item_sums)
    if shared is not None:
        shared[id(item_sums)] = product
    return product
