"""Tables through integer codes instead of string keys: long scores as a wide table
(what `DataFrame.pivot_table` with its mean gives), one int64 key per row of two
frames to join them by position, and string columns built from codes. A pivot or a
merge of a million string-keyed rows takes a third of a second or more; these a
fraction of that (issue 27)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def pivot_mean(
    frame: pd.DataFrame,
    index: str | Sequence[str],
    columns: str | Sequence[str],
    values: str,
) -> pd.DataFrame:
    """`frame.pivot_table(index=index, columns=columns, values=values)`: the mean of
    `values` per (index, columns) cell, only the rows and columns that hold a value (a
    missing value or key counts for nothing). Rows and columns are sorted by their
    keys; pandas orders a multi-key index by first appearance within a level."""
    index_keys = [index] if isinstance(index, str) else list(index)
    column_keys = [columns] if isinstance(columns, str) else list(columns)
    scores = frame[values].to_numpy(dtype=float)
    kept = ~np.isnan(scores)
    row_codes, row_levels, kept = _combined(frame, index_keys, kept)
    column_codes, column_levels, kept = _combined(frame, column_keys, kept)
    rows, row_at = np.unique(row_codes[kept], return_inverse=True)
    cols, column_at = np.unique(column_codes[kept], return_inverse=True)
    cell = row_at * len(cols) + column_at
    size = len(rows) * len(cols)
    sums = np.bincount(cell, weights=scores[kept], minlength=size)
    counts = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        table = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return pd.DataFrame(
        table.reshape(len(rows), len(cols)),
        index=_index_of(index_keys, row_levels, rows),
        columns=_index_of(column_keys, column_levels, cols),
    )


def _combined(
    frame: pd.DataFrame, keys: list[str], kept: np.ndarray
) -> tuple[np.ndarray, list[pd.Index], np.ndarray]:
    """One int64 per row for its keys, ordered as the keys sort, each key's sorted
    values, and which rows are still kept (not those with a missing key)."""
    combined = np.zeros(len(frame), dtype=np.int64)
    levels = []
    for key in keys:
        codes, uniques = pd.factorize(frame[key], sort=True)
        kept = kept & (codes >= 0)
        combined = combined * len(uniques) + codes
        levels.append(pd.Index(uniques))
    return combined, levels, kept


def _index_of(
    keys: list[str], levels: list[pd.Index], combined: np.ndarray
) -> pd.Index:
    """The index of the rows (or columns) whose combined codes are `combined`."""
    labels = []
    for level in reversed(levels):
        combined, codes = np.divmod(combined, max(len(level), 1))
        labels.append(level.take(codes))
    labels.reverse()
    if len(keys) == 1:
        return labels[0].rename(keys[0])
    return pd.MultiIndex.from_arrays(labels, names=keys)


def labels(codes: np.ndarray, names: Sequence[str]) -> pd.Series:
    """`names[code]` for each code as a string column, built in arrow: a tenth of the
    time of converting a numpy array of strings on a million rows."""
    import pyarrow as pa

    indices = pa.array(np.asarray(codes, dtype=np.int32))
    return (
        pa.DictionaryArray.from_arrays(indices, pa.array(list(names)))
        .dictionary_decode()
        .to_pandas()
    )


def categories(values: pd.Series) -> pd.Series:
    """The column as a categorical of its sorted distinct values (a missing value
    stays missing): factorized once, so every later groupby, pivot or comparison of
    a million rows reads its codes instead of hashing its strings again."""
    codes, uniques = pd.factorize(values, sort=True)
    return pd.Series(
        pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object)),
        index=values.index,
        name=values.name,
    )


def coded(codes: np.ndarray, names: Sequence[str]) -> pd.Categorical:
    """`names[code]` for each code as a categorical whose categories are `names`
    sorted, so it orders as the strings would."""
    order = sorted(range(len(names)), key=lambda k: names[k])
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return pd.Categorical.from_codes(
        rank[np.asarray(codes, dtype=np.int64)],
        categories=pd.Index([names[k] for k in order], dtype=object),
    )


def row_keys(
    left: pd.DataFrame, right: pd.DataFrame, columns: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """One int64 per row of each frame for its `columns`, equal where the rows' values
    are."""
    keys = np.zeros(len(left) + len(right), dtype=np.int64)
    for column in columns:
        both = pd.concat([left[column], right[column]], ignore_index=True)
        codes, uniques = pd.factorize(both)
        keys = keys * len(uniques) + codes
    return keys[: len(left)], keys[len(left) :]
