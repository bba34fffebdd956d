"""wide.pivot_mean against pandas' own pivot_table on tables of long scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from itemeval.wide import categories, coded, pivot_mean


def long_scores(seed: int, rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    score = rng.choice([0.0, 1.0, 0.5, 3.0, np.nan], rows)
    return pd.DataFrame(
        {
            "gen_condition_id": rng.choice(["gen-b", "gen-a", "gen-c"], rows),
            "grade_condition_id": rng.choice(["judge", "exact", "numeric"], rows),
            "item_id": rng.choice([f"q{k}" for k in range(25)], rows),
            "epoch": rng.integers(1, 4, rows),
            "score": score,
        }
    )


SHAPES = [
    ("item_id", "gen_condition_id"),
    ("item_id", ["gen_condition_id", "epoch"]),
    (["gen_condition_id", "item_id", "epoch"], "grade_condition_id"),
    (["grade_condition_id", "item_id"], "gen_condition_id"),
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("index", "columns"), SHAPES)
def test_pivot_mean_is_pandas_pivot_table(seed, index, columns):
    frame = long_scores(seed, rows=[3, 40, 400, 4000, 9, 900][seed])
    # pandas orders the rows of a multi-key index by first appearance within a
    # level; pivot_mean sorts them: the same rows, compared in one order
    expected = (
        frame.pivot_table(index=index, columns=columns, values="score")
        .sort_index()
        .sort_index(axis=1)
    )
    got = pivot_mean(frame, index, columns, "score")
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)


def test_rows_and_columns_without_a_value_are_left_out():
    frame = pd.DataFrame(
        {
            "item_id": ["a", "a", "b", "c", None],
            "gen_condition_id": ["x", "y", "y", "z", "x"],
            "score": [1.0, np.nan, np.nan, 0.0, 1.0],
        }
    )
    got = pivot_mean(frame, "item_id", "gen_condition_id", "score")
    assert list(got.index) == ["a", "c"] and list(got.columns) == ["x", "z"]
    assert got.loc["a", "x"] == 1.0 and np.isnan(got.loc["a", "z"])


def test_duplicates_are_averaged():
    frame = pd.DataFrame(
        {"item_id": ["a"] * 3, "gen": ["x"] * 3, "score": [1.0, 0.0, 0.5]}
    )
    assert pivot_mean(frame, "item_id", "gen", "score").loc["a", "x"] == 0.5


@pytest.mark.parametrize("seed", range(6))
def test_categorical_keys_group_and_pivot_as_their_strings(seed):
    """graded_frame hands results its keys as categoricals: every groupby, pivot and
    comparison reads them as it would the strings."""
    frame = long_scores(seed, 400)
    frame.loc[frame.index[::37], "item_id"] = None
    coded_frame = frame.assign(
        **{key: categories(frame[key]) for key in ("gen_condition_id", "item_id")}
    )
    assert coded_frame["item_id"].isna().equals(frame["item_id"].isna())
    assert (
        coded_frame["item_id"].dropna().tolist() == frame["item_id"].dropna().tolist()
    )
    assert list(coded_frame["item_id"].cat.categories) == sorted(
        frame["item_id"].dropna().unique()
    )
    keys = ["gen_condition_id", "item_id", "epoch"]
    grouped = coded_frame.groupby(keys)["score"].mean()
    expected = frame.groupby(keys)["score"].mean()
    assert grouped.index.tolist() == expected.index.tolist()
    np.testing.assert_array_equal(grouped.to_numpy(), expected.to_numpy())
    wide = pivot_mean(coded_frame, "item_id", "gen_condition_id", "score")
    plain = pivot_mean(frame, "item_id", "gen_condition_id", "score")
    assert wide.index.tolist() == plain.index.tolist()
    assert wide.columns.tolist() == plain.columns.tolist()
    np.testing.assert_array_equal(wide.to_numpy(), plain.to_numpy())


def test_coded_names_sort_as_strings():
    names = ("scored", "parse_failure", "error", "pending")
    codes = np.array([0, 3, 1, 2, 0, 2])
    column = pd.Series(coded(codes, names))
    assert column.tolist() == [names[c] for c in codes]
    assert column.sort_values().tolist() == sorted(names[c] for c in codes)
    assert (column == "scored").tolist() == [c == 0 for c in codes]
