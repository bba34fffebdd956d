"""Which cells are done and which must run: pure functions over the key and state
columns of the stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..records import TRUNCATING_STOP_REASONS
from ..wide import coded as sorted_categorical
from ..wide import labels, row_keys

GENERATE_STATE_COLUMNS = [
    "condition_id",
    "item_id",
    "epoch",
    "error",
    "blank",
    "stop_reason",
    "usd",
    "solution_hash",
    "input_hash",
]
GRADE_STATE_COLUMNS = [
    "grade_condition_id",
    "gen_condition_id",
    "item_id",
    "epoch",
    "draw",
    "solution_hash",
    "error",
    "parse_ok",
    "usd",
]
CELL = ["condition_id", "item_id", "epoch"]


def grid_cells(
    condition_ids: Sequence[str], item_ids: Sequence[str], replications: int
) -> pd.DataFrame:
    """Every (condition, item, epoch) of the grid, conditions outermost, then items,
    then epochs."""
    n_cond, n_items = len(condition_ids), len(item_ids)
    return pd.DataFrame(
        {
            "condition_id": np.repeat(
                np.asarray(condition_ids, dtype=object), n_items * replications
            ),
            "item_id": np.tile(
                np.repeat(np.asarray(item_ids, dtype=object), replications), n_cond
            ),
            "epoch": np.tile(
                np.arange(1, replications + 1, dtype="int64"), n_cond * n_items
            ),
        }
    )


def attach_solutions(cells: pd.DataFrame, solutions: pd.DataFrame) -> pd.DataFrame:
    """The grid's cells with the state of their stored row (NaN where the cell has no
    row)."""
    state = solutions.reindex(columns=GENERATE_STATE_COLUMNS).assign(stored=True)
    merged = cells.merge(state, on=CELL, how="left")
    merged["stored"] = merged["stored"].fillna(False).astype(bool)
    return merged


def mark_changed(merged: pd.DataFrame, current: pd.Series) -> pd.DataFrame:
    """`input_changed`: the cell's stored answer was written for another input than
    it would send now (`current`, by row); a row without a recorded input hash (an
    older itemeval's, an imported one) counts as current."""
    recorded = merged["input_hash"]
    changed = merged["stored"] & recorded.notna() & current.notna()
    merged["input_changed"] = changed & (recorded != current)
    return merged


def input_changed(merged: pd.DataFrame) -> pd.Series:
    if "input_changed" not in merged:
        return pd.Series(False, index=merged.index)
    return merged["input_changed"].fillna(False).astype(bool)


def generate_done(
    merged: pd.DataFrame, on_empty: str, on_input_change: str = "rerun"
) -> pd.Series:
    """A cell is done when its row has no error (and, with on_empty=rerun, non-blank
    text; with on_input_change=rerun, an answer to the input it would send now)."""
    done = merged["stored"] & merged["error"].isna()
    if on_empty == "rerun":
        done &= ~merged["blank"].fillna(False).astype(bool)
    if on_input_change == "rerun":
        done &= ~input_changed(merged)
    return done


def plan_generate(
    merged: pd.DataFrame,
    *,
    on_empty: str,
    force: bool,
    on_input_change: str = "rerun",
) -> pd.DataFrame:
    """The cells to run: all of them with force, otherwise the missing, errored (and
    blank, or of a changed input, to rerun) ones."""
    if force:
        return merged[CELL].reset_index(drop=True)
    done = generate_done(merged, on_empty, on_input_change)
    return merged.loc[~done, CELL].reset_index(drop=True)


def _spend(usd: pd.Series, recorded: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(USD with nothing-recorded as 0, whether a recorded row is unpriced): a null
    usd is unknown, never $0."""
    numeric = pd.to_numeric(usd, errors="coerce")
    return numeric.fillna(0.0), recorded & numeric.isna()


def _unknown_spend(counts: pd.DataFrame) -> pd.DataFrame:
    counts["usd"] = counts["usd"].where(counts.pop("unpriced") == 0)
    return counts


def generate_counts(
    merged: pd.DataFrame, on_empty: str, on_input_change: str = "rerun"
) -> pd.DataFrame:
    """Per condition: cells, done, errors, empty, truncated, changed (an answer to an
    earlier version of its item), missing, usd (NaN when a stored row is
    unpriced)."""
    usd, unpriced = _spend(merged["usd"], merged["stored"])
    frame = pd.DataFrame(
        {
            "condition_id": merged["condition_id"],
            "cells": 1,
            "done": generate_done(merged, on_empty, on_input_change),
            "errors": merged["stored"] & merged["error"].notna(),
            "empty": merged["error"].isna()
            & merged["blank"].fillna(False).astype(bool),
            "truncated": merged["error"].isna()
            & merged["stop_reason"].isin(TRUNCATING_STOP_REASONS)
            & ~merged["blank"].fillna(False).astype(bool),
            "changed": input_changed(merged) & merged["error"].isna(),
            "usd": usd,
            "unpriced": unpriced,
        }
    )
    counts = _unknown_spend(frame.groupby("condition_id", sort=False).sum())
    counts["missing"] = counts["cells"] - counts["done"] - counts["errors"]
    return counts


def gradable(
    merged: pd.DataFrame, on_empty: str, on_input_change: str = "rerun"
) -> pd.DataFrame:
    """Stored, error-free solutions of the grid that should be graded (blank ones
    only with on_empty=grade; answers to an earlier version of their item only with
    on_input_change=keep)."""
    ok = merged["stored"] & merged["error"].isna()
    if on_empty != "grade":
        ok &= ~merged["blank"].fillna(False).astype(bool)
    if on_input_change == "rerun":
        ok &= ~input_changed(merged)
    return merged.loc[ok, [*CELL, "solution_hash"]].reset_index(drop=True)


def grade_state(
    solutions: pd.DataFrame,
    grades: pd.DataFrame,
    grade_condition_ids: Sequence[str],
    *,
    draws: Sequence[int] | None = None,
    coded: bool = False,
) -> pd.DataFrame:
    """One row per (grade condition × draw × gradable solution) with its `state`:
    done, parse_failed, stale, error or pending.

    `draws`: how many draws each grade condition takes (`graders.NAME.draws`; 1 each
    when None); a stored draw beyond them is not one of the rows. The rows run grade
    condition by grade condition and draw by draw, each over `solutions` in order; a
    stored grade (one per grade key, as the store keys them) is placed on its row by
    position rather than by a merge on five columns, about half the time on a
    million grades (issue 27).

    `coded`: the ids and the solution hash as categoricals of their sorted values, for
    readers that group and pivot the rows (results, the report): built from codes of
    the solutions instead of copying their strings once per grade condition."""
    ids = pd.Index(list(grade_condition_ids), dtype=object)
    slots = Slots.of(ids, draws)
    cells = solutions.rename(columns={"condition_id": "gen_condition_id"})
    # extras ride along
    columns = [
        *GRADE_STATE_COLUMNS,
        *(c for c in grades.columns if c not in GRADE_STATE_COLUMNS),
    ]
    stored = grades.reindex(columns=columns).rename(
        columns={"solution_hash": "graded_hash", "error": "grade_error"}
    )
    # a frame read from rows that predate draws holds draw 1 (store.KEY_DEFAULTS)
    stored["draw"] = stored["draw"].fillna(1).astype("int64")
    at, cell_at = _stored_rows(cells, stored, slots)
    same = _same_text(cells["solution_hash"], stored["graded_hash"], cell_at)
    pairs = _crossed(cells, slots, coded)
    found = stored.drop(
        columns=["grade_condition_id", *GRADE_CELL, "draw", "graded_hash"]
    )
    merged = pd.concat(
        [pairs, found.reset_index(drop=True).reindex(at).reset_index(drop=True)],
        axis=1,
    )
    graded = at >= 0
    ok = graded & merged["grade_error"].isna().to_numpy()
    current = ok.copy()
    current[graded] &= same[at[graded]]
    parse_ok = merged["parse_ok"].fillna(True).astype(bool).to_numpy()
    merged["state"] = labels(
        np.select(
            [current & parse_ok, current & ~parse_ok, ok & ~current, graded & ~ok],
            [0, 1, 2, 3],
            default=4,
        ),
        GRADE_STATES,
    )
    # what the state was read from: a results or report run holds this frame to the
    # end
    return merged.drop(columns=["grade_error"])


GRADE_STATES = ("done", "parse_failed", "stale", "error", "pending")
GRADE_CELL = ["gen_condition_id", "item_id", "epoch"]


@dataclass(frozen=True)
class Slots:
    """The (grade condition, draw) pairs a grade state runs over, conditions
    outermost: slot `offset[g] + d - 1` is draw d of condition g."""

    ids: pd.Index
    grade: np.ndarray
    """Per slot, the position of its grade condition in `ids`."""
    draw: np.ndarray
    """Per slot, its draw (1-based)."""
    offset: np.ndarray
    """Per grade condition, its first slot."""
    count: np.ndarray
    """Per grade condition, its draws."""

    @classmethod
    def of(cls, ids: pd.Index, draws: Sequence[int] | None) -> Slots:
        count = np.asarray(
            [1] * len(ids) if draws is None else list(draws), dtype=np.int64
        )
        offset = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        grade = np.repeat(np.arange(len(ids)), count)
        draw = np.arange(len(grade), dtype=np.int64) - offset[grade] + 1
        return cls(ids, grade, draw, offset, count)


def _crossed(cells: pd.DataFrame, slots: Slots, coded: bool) -> pd.DataFrame:
    """The cells once per slot (grade condition × draw), the grade condition's id
    first and the draw last."""
    n = len(cells)
    draw = np.repeat(slots.draw, n)
    if not coded:
        pairs = cells.take(np.tile(np.arange(n), len(slots.grade)))
        pairs = pairs.reset_index(drop=True)
        # object: a handful of ids shared by a million rows take 8 bytes a row, where
        # strings copied into arrow took 35 MB more a million grades at the peak
        ids_per_row = np.repeat(slots.ids.to_numpy(dtype=object)[slots.grade], n)
        pairs.insert(0, "grade_condition_id", pd.Series(ids_per_row, dtype=object))
        pairs["draw"] = draw
        return pairs
    grade = np.repeat(slots.grade, n)
    crossed = {"grade_condition_id": sorted_categorical(grade, list(slots.ids))}
    for column in cells.columns:
        values = cells[column]
        if pd.api.types.is_numeric_dtype(values):
            crossed[column] = np.tile(values.to_numpy(), len(slots.grade))
            continue
        codes, uniques = pd.factorize(values, sort=True)
        crossed[column] = pd.Categorical.from_codes(
            np.tile(codes, len(slots.grade)), categories=pd.Index(uniques, dtype=object)
        )
    crossed["draw"] = draw
    return pd.DataFrame(crossed)


def _same_text(
    current: pd.Series, graded: pd.Series, cell_at: np.ndarray
) -> np.ndarray:
    """Per stored grade: whether it graded the current text of its cell (the hashes
    equal); False for a grade of no cell of the grid. Compared in arrow, the hashes
    as they were read: a million in a few hundredths of a second."""
    found = cell_at >= 0
    if not found.any():  # nothing to take from, or no grade of a cell
        return found
    now = pa.array(current).cast(pa.large_string())
    then = pa.array(graded).cast(pa.large_string())
    equal = pc.equal(pc.take(now, pa.array(np.where(found, cell_at, 0))), then)
    return found & pc.fill_null(equal, False).to_numpy(zero_copy_only=False)


def _stored_rows(
    cells: pd.DataFrame, stored: pd.DataFrame, slots: Slots
) -> tuple[np.ndarray, np.ndarray]:
    """For each row of the (slot × cell) cross, the row of `stored` that grades it,
    or -1; and for each stored row, the row of `cells` it grades, or -1."""
    cell_key, stored_key = row_keys(cells, stored, GRADE_CELL)
    cell_at = pd.Index(cell_key).get_indexer(stored_key)
    codes, uniques = pd.factorize(stored["grade_condition_id"])
    grade_at = slots.ids.get_indexer(uniques)[codes] if len(codes) else codes
    draw = stored["draw"].to_numpy(dtype=np.int64)
    known = grade_at >= 0
    known[known] &= (draw[known] >= 1) & (draw[known] <= slots.count[grade_at[known]])
    found = (cell_at >= 0) & known
    slot = slots.offset[grade_at[found]] + draw[found] - 1
    at = np.full(len(slots.grade) * len(cells), -1, dtype=np.int64)
    at[slot * len(cells) + cell_at[found]] = np.flatnonzero(found)
    return at, cell_at


ONLY_STATES = {"parse-failures": "parse_failed", "errors": "error"}
"""`grade --only` names and the grade states they select."""


def plan_grade(
    state: pd.DataFrame, *, force: bool, only: Sequence[str] = ()
) -> pd.DataFrame:
    """Pending under a grade condition: no error-free grade for the current text (parse
    failures are final).

    `only` selects just the grades in those states (ONLY_STATES), to run again whatever
    they are.
    """
    if only:
        return state[
            state["state"].isin([ONLY_STATES[name] for name in only])
        ].reset_index(drop=True)
    if force:
        return state.reset_index(drop=True)
    return state[~state["state"].isin(["done", "parse_failed"])].reset_index(drop=True)


def grade_counts(state: pd.DataFrame) -> pd.DataFrame:
    """Per grade condition (in the order they first appear): solutions, done,
    parse_failed, stale, errors, pending, usd (NaN when a grade is unpriced).

    Counted over integer codes (a one-hot table and a groupby of a million rows took
    a quarter of a second)."""
    grade, grades = pd.factorize(state["grade_condition_id"])
    kind, kinds = pd.factorize(state["state"])
    at = pd.Index(GRADE_STATES).get_indexer(kinds)
    width, size = len(GRADE_STATES), len(grades) * len(GRADE_STATES)
    cells = np.bincount(grade * width + at[kind], minlength=size)
    counts = pd.DataFrame(
        cells.reshape(len(grades), width).astype("int64"),
        index=pd.Index(grades.tolist(), name="grade_condition_id"),
        columns=list(GRADE_STATES),
    )
    usd, unpriced = _spend(state["usd"], state["state"] != "pending")
    spent = np.bincount(grade, weights=usd.to_numpy(float), minlength=len(grades))
    unknown = np.bincount(
        grade, weights=unpriced.to_numpy(float), minlength=len(grades)
    )
    counts["solutions"] = counts.sum(axis=1)
    counts["usd"] = np.where(unknown > 0, np.nan, spent)
    counts["done"] += counts["parse_failed"]  # a parse failure is a final result
    return counts.rename(columns={"error": "errors"})
