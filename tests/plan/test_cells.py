"""The planners as plain tables: which generate cells run, which grades are pending,
and the counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from itemeval.engine.runner import CELLS_IN_FLIGHT, CELLS_PER_EVAL
from itemeval.plan import cells as plan
from itemeval.plan import items as plan_items
from itemeval.plan.eval_windows import eval_batches, eval_windows
from itemeval.records import Item


def solutions(*rows: tuple) -> pd.DataFrame:
    """Stored solutions state rows: (condition_id, item_id, epoch, error, blank,
    stop_reason, usd, solution_hash[, input_hash]); no input hash reads as an older
    row, current whatever its item renders to."""
    rows = tuple(row + (None,) * (9 - len(row)) for row in rows)
    return pd.DataFrame(rows, columns=plan.GENERATE_STATE_COLUMNS).astype(
        {"epoch": "int64"}
    )


def grades(*rows: tuple, draws: tuple[int, ...] = ()) -> pd.DataFrame:
    """Stored grade state rows: (grade_condition_id, gen_condition_id, item_id,
    epoch, solution_hash, error, parse_ok, usd), each draw 1 unless `draws` says."""
    columns = [c for c in plan.GRADE_STATE_COLUMNS if c != "draw"]
    frame = pd.DataFrame(rows, columns=columns).astype({"epoch": "int64"})
    frame["draw"] = list(draws) if draws else 1
    return frame


def cells(frame: pd.DataFrame) -> list[tuple[str, str, int]]:
    return [
        (c, i, int(e))
        for c, i, e in zip(frame["condition_id"], frame["item_id"], frame["epoch"])
    ]


# ---- generate
# --------------------------------------------------------------------------------------


def test_grid_cells_order_conditions_then_items_then_epochs():
    grid = plan.grid_cells(["c1", "c2"], ["a", "b"], 2)
    assert cells(grid) == [
        ("c1", "a", 1),
        ("c1", "a", 2),
        ("c1", "b", 1),
        ("c1", "b", 2),
        ("c2", "a", 1),
        ("c2", "a", 2),
        ("c2", "b", 1),
        ("c2", "b", 2),
    ]
    assert grid["epoch"].dtype == "int64"
    assert plan.grid_cells([], ["a"], 3).empty


# One cell per state: done, missing, errored, blank, truncated (done: it has text).
STORED = solutions(
    ("c", "done", 1, None, False, "stop", 0.01, "h-done"),
    ("c", "error", 1, "HTTP 500", False, None, 0.0, None),
    ("c", "blank", 1, None, True, "stop", 0.001, "h-blank"),
    ("c", "trunc", 1, None, False, "max_tokens", 0.02, "h-trunc"),
)
GRID = plan.grid_cells(["c"], ["done", "missing", "error", "blank", "trunc"], 1)


@pytest.mark.parametrize(
    ("on_empty", "force", "expected"),
    [
        ("skip", False, ["missing", "error"]),
        ("grade", False, ["missing", "error"]),
        ("rerun", False, ["missing", "error", "blank"]),
        ("skip", True, ["done", "missing", "error", "blank", "trunc"]),
        ("rerun", True, ["done", "missing", "error", "blank", "trunc"]),
    ],
)
def test_plan_generate_runs_missing_errored_and_blank_only_to_rerun(
    on_empty, force, expected
):
    merged = plan.attach_solutions(GRID, STORED)
    todo = plan.plan_generate(merged, on_empty=on_empty, force=force)
    assert list(todo.columns) == plan.CELL
    assert [item for _, item, _ in cells(todo)] == expected


def test_plan_generate_is_cell_granular_across_replications():
    stored = solutions(
        ("c", "a", 1, None, False, "stop", 0.0, "h1"),
        ("c", "a", 3, None, False, "stop", 0.0, "h3"),
    )
    merged = plan.attach_solutions(plan.grid_cells(["c"], ["a"], 3), stored)
    assert cells(plan.plan_generate(merged, on_empty="skip", force=False)) == [
        ("c", "a", 2)
    ]


def test_rows_of_other_conditions_or_items_do_not_count():
    stored = solutions(
        ("other", "a", 1, None, False, "stop", 0.0, "h"),
        ("c", "zz", 1, None, False, "stop", 0.0, "h"),
    )
    merged = plan.attach_solutions(plan.grid_cells(["c"], ["a"], 1), stored)
    assert len(merged) == 1 and not merged["stored"].any()
    assert cells(plan.plan_generate(merged, on_empty="skip", force=False)) == [
        ("c", "a", 1)
    ]


@pytest.mark.parametrize(
    ("on_empty", "done", "missing"),
    [
        ("skip", 3, 1),
        ("grade", 3, 1),
        ("rerun", 2, 2),
    ],  # a blank cell to rerun is not done yet
)
def test_generate_counts(on_empty, done, missing):
    counts = plan.generate_counts(plan.attach_solutions(GRID, STORED), on_empty).loc[
        "c"
    ]
    assert (
        counts["cells"] == 5 and counts["done"] == done and counts["missing"] == missing
    )
    assert counts["errors"] == 1 and counts["empty"] == 1 and counts["truncated"] == 1
    assert counts["usd"] == pytest.approx(0.031)


@pytest.mark.parametrize(
    ("on_empty", "expected"),
    [
        ("skip", ["done", "trunc"]),
        ("rerun", ["done", "trunc"]),
        ("grade", ["done", "blank", "trunc"]),
    ],
)
def test_gradable_never_includes_errors_and_blanks_follow_on_empty(on_empty, expected):
    ok = plan.gradable(plan.attach_solutions(GRID, STORED), on_empty)
    assert list(ok["item_id"]) == expected
    assert list(ok.columns) == [*plan.CELL, "solution_hash"]


# ---- grade
# --------------------------------------------------------------------------------------

GRADABLE = pd.DataFrame(
    {
        "condition_id": ["c"] * 5,
        "item_id": ["done", "parse", "stale", "error", "pending"],
        "epoch": [1] * 5,
        "solution_hash": ["h1", "h2", "h3-new", "h4", "h5"],
    }
).astype({"epoch": "int64"})
GRADES = grades(
    ("g", "c", "done", 1, "h1", None, True, 0.01),
    ("g", "c", "parse", 1, "h2", None, False, 0.02),
    ("g", "c", "stale", 1, "h3-old", None, True, 0.03),
    ("g", "c", "error", 1, None, "judge HTTP 500", None, 0.0),
    (
        "other",
        "c",
        "pending",
        1,
        "h5",
        None,
        True,
        0.5,
    ),  # another grade condition's row
)


def states(frame: pd.DataFrame) -> dict[tuple[str, str], str]:
    return {
        (g, i): s
        for g, i, s in zip(
            frame["grade_condition_id"], frame["item_id"], frame["state"]
        )
    }


def test_grade_state_of_every_kind():
    state = plan.grade_state(GRADABLE, GRADES, ["g"])
    assert states(state) == {
        ("g", "done"): "done",
        ("g", "parse"): "parse_failed",
        ("g", "stale"): "stale",
        ("g", "error"): "error",
        ("g", "pending"): "pending",
    }
    assert list(state["solution_hash"]) == list(
        GRADABLE["solution_hash"]
    )  # the current text's hash


def test_plan_grade_keeps_parse_failures_final_retries_errors_and_regrades_stale():
    state = plan.grade_state(GRADABLE, GRADES, ["g"])
    assert list(plan.plan_grade(state, force=False)["item_id"]) == [
        "stale",
        "error",
        "pending",
    ]
    assert list(plan.plan_grade(state, force=True)["item_id"]) == [
        "done",
        "parse",
        "stale",
        "error",
        "pending",
    ]


def test_grade_state_crosses_every_condition_with_every_solution():
    state = plan.grade_state(GRADABLE, GRADES, ["g", "other"])
    assert len(state) == 10
    assert states(state)[("other", "pending")] == "done"
    assert {
        s for (g, _), s in states(state).items() if g == "other" and _ != "pending"
    } == {"pending"}


def test_an_error_row_for_an_old_text_is_still_an_error_to_retry():
    stored = grades(("g", "c", "done", 1, "h-old", "timeout", None, 0.0))
    state = plan.grade_state(GRADABLE.iloc[:1], stored, ["g"])
    assert list(state["state"]) == ["error"]
    assert len(plan.plan_grade(state, force=False)) == 1


def test_grade_state_with_nothing_stored():
    empty = grades()
    state = plan.grade_state(GRADABLE, empty, ["g"])
    assert (
        set(state["state"]) == {"pending"}
        and len(plan.plan_grade(state, force=False)) == 5
    )
    none = plan.grade_state(GRADABLE.iloc[:0], GRADES, ["g"])
    assert none.empty and plan.plan_grade(none, force=False).empty


def _merged_state(solutions, grades, ids):
    """The grade state by a plain left merge: what grade_state's positional join
    must equal."""
    targets = pd.DataFrame({"grade_condition_id": pd.Series(ids, dtype=object)})
    pairs = targets.merge(
        solutions.rename(columns={"condition_id": "gen_condition_id"}), how="cross"
    )
    stored = grades.rename(
        columns={"solution_hash": "graded_hash", "error": "grade_error"}
    )
    key = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
    merged = pairs.merge(stored.assign(graded=True), on=key, how="left")
    graded = merged["graded"].fillna(False).astype(bool)
    ok = graded & merged["grade_error"].isna()
    current = ok & (merged["graded_hash"] == merged["solution_hash"])
    parse_ok = merged["parse_ok"].fillna(True).astype(bool)
    return np.select(
        [current & parse_ok, current & ~parse_ok, ok & ~current, graded & ~ok],
        ["done", "parse_failed", "stale", "error"],
        default="pending",
    ), merged


@pytest.mark.parametrize("coded", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_grade_state_places_each_stored_grade_as_a_merge_would(seed, coded):
    rng = np.random.default_rng(seed)
    cells = [
        (f"gen{g}", f"item-{i}", e)
        for g in range(rng.integers(1, 4))
        for i in rng.permutation(rng.integers(1, 30))
        for e in range(1, rng.integers(2, 4))
    ]
    solutions = pd.DataFrame(cells, columns=plan.CELL).assign(
        solution_hash=[f"h{k}" for k in range(len(cells))]
    )
    ids = [f"grade{k}" for k in range(rng.integers(1, 4))]
    # grades of this study's cells, of cells it no longer has and of other conditions
    known = [(g, *cell) for g in [*ids, "gone"] for cell in cells]
    unknown = [(ids[0], "gen9", "item-0", 1), (ids[0], "gen0", "item-0", 9)]
    chosen = [known[k] for k in rng.permutation(len(known))[: len(known) // 2]]
    rows = [
        (g, c, i, e, _hash_of(rng, cells.index((c, i, e))), error, ok)
        for g, c, i, e in chosen
        for error, ok in [
            rng.choice([(None, True), (None, False), ("HTTP 500", None)]).tolist()
        ]
    ] + [(*u, "h0", None, True) for u in unknown]
    grades = pd.DataFrame(
        rows,
        columns=["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
        + ["solution_hash", "error", "parse_ok"],
    ).assign(usd=0.01, score=rng.random(len(rows)))
    state = plan.grade_state(solutions, grades, ids, coded=coded)
    expected, merged = _merged_state(solutions, grades, ids)
    assert list(state["state"]) == list(expected)
    for column in ["grade_condition_id", *plan.GRADE_CELL, "solution_hash"]:
        assert list(state[column]) == list(merged[column])
        if coded and column != "epoch":  # categories sorted, as the strings order
            categories = list(state[column].cat.categories)
            assert categories == sorted(set(merged[column]))
    assert np.allclose(state["score"], merged["score"], equal_nan=True)


def _hash_of(rng, cell: int) -> str | None:
    """The hash a stored grade read: the cell's current text's, an older text's, or
    none recorded."""
    return [f"h{cell}", "h-old", None][rng.choice(3, p=[0.6, 0.3, 0.1])]


@pytest.mark.parametrize("coded", [False, True])
def test_grade_state_with_nothing_stored_or_nothing_to_grade(coded):
    state = plan.grade_state(GRADABLE, grades(), ["g", "h"], coded=coded)
    assert list(state["state"]) == ["pending"] * 10
    assert list(state["item_id"]) == list(GRADABLE["item_id"]) * 2
    none = plan.grade_state(GRADABLE.iloc[:0], GRADES, ["g"], coded=coded)
    assert none.empty and list(none.columns) == list(state.columns)


def test_grade_counts():
    counts = plan.grade_counts(plan.grade_state(GRADABLE, GRADES, ["g", "other"]))
    g = counts.loc["g"]
    assert (
        g["solutions"],
        g["done"],
        g["parse_failed"],
        g["stale"],
        g["errors"],
        g["pending"],
    ) == (5, 2, 1, 1, 1, 1)
    assert g["usd"] == pytest.approx(0.06)
    other = counts.loc["other"]
    assert (other["solutions"], other["done"], other["pending"]) == (5, 1, 4)
    assert other["usd"] == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(8))
def test_grade_counts_per_condition_as_counted_by_hand(seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 60))
    state = pd.DataFrame(
        {
            "grade_condition_id": rng.choice(["g2", "g1", "g3"], rows),
            "state": rng.choice(list(plan.GRADE_STATES), rows),
            "usd": rng.choice([0.01, None, 0.5], rows),
        }
    )
    counts = plan.grade_counts(state)
    assert list(counts.index) == list(dict.fromkeys(state["grade_condition_id"]))
    for grade_id, own in state.groupby("grade_condition_id"):
        row, seen = counts.loc[grade_id], own["state"].value_counts()
        assert row["solutions"] == len(own)
        assert row["done"] == seen.get("done", 0) + seen.get("parse_failed", 0)
        for name, column in [("stale", "stale"), ("error", "errors")]:
            assert row[column] == seen.get(name, 0)
        recorded = own[own["state"] != "pending"]
        if recorded["usd"].isna().any():
            assert np.isnan(row["usd"])
        else:
            assert row["usd"] == pytest.approx(own["usd"].fillna(0).sum())


def test_spend_of_an_unpriced_model_is_unknown_not_zero():
    stored = solutions(
        ("c", "a", 1, None, False, "stop", None, "h"),
        ("d", "a", 1, None, False, "stop", 0.5, "h"),
    )
    counts = plan.generate_counts(
        plan.attach_solutions(plan.grid_cells(["c", "d", "e"], ["a", "b"], 1), stored),
        "skip",
    )
    assert pd.isna(counts.loc["c", "usd"])  # its stored row has no price
    assert (
        counts.loc["d", "usd"] == 0.5 and counts.loc["e", "usd"] == 0.0
    )  # nothing stored yet costs nothing
    assert "unpriced" not in counts.columns

    graded = grades(("g", "c", "done", 1, "h1", None, True, None))
    state = plan.grade_state(GRADABLE, graded, ["g", "other"])
    grade_counts = plan.grade_counts(state)
    assert (
        pd.isna(grade_counts.loc["g", "usd"])
        and grade_counts.loc["other", "usd"] == 0.0
    )


# ---- eval batches
# --------------------------------------------------------------------------------------


def spec(name: str, cells: int):
    from itemeval.records import TaskSpec

    return TaskSpec(
        name=name,
        model="m",
        config={},
        cells=[f"{name}{i}" for i in range(cells)],
        cache_scope=None,
        metadata={},
    )


@pytest.mark.parametrize(
    ("sizes", "max_cells", "expected"),
    [
        ({"a": 5}, 10, [{"a": 5}]),
        ({"a": 3000, "b": 3000}, 2000, [{"a": 1000, "b": 1000}] * 3),
        ({"a": 7, "b": 2}, 4, [{"a": 3, "b": 1}, {"a": 3, "b": 1}, {"a": 1}]),
        ({"a": 0, "b": 4}, 100, [{"b": 4}]),
        ({"a": 0}, 100, []),
        ({"a": 5}, 0, [{"a": 1}] * 5),
    ],
)
def test_eval_batches_take_a_slice_of_every_condition(sizes, max_cells, expected):
    batches = eval_batches([spec(name, n) for name, n in sizes.items()], max_cells)
    assert [{s.name: len(s.cells) for s in batch} for batch in batches] == expected
    for name, n in sizes.items():  # every cell exactly once, in order
        ran = [
            cell
            for batch in batches
            for s in batch
            if s.name == name
            for cell in s.cells
        ]
        assert ran == [f"{name}{i}" for i in range(n)]


@pytest.mark.parametrize(
    ("sizes", "per_eval", "in_flight_cells", "expected"),
    [
        # one condition: one task, fed 10 cells at a time
        ({"a": 30}, 100, 10, [(1, 10, [("a", 30)])]),
        # a task per condition, the cells in flight shared between them
        ({"a": 6, "b": 3}, 100, 4, [(2, 2, [("a", 6), ("b", 3)])]),
        # two evals of about 6 cells
        ({"a": 6, "b": 6}, 6, 4, [(2, 2, [("a", 3), ("b", 3)])] * 2),
        # more conditions than tasks may run at once: at most 32, each fed at least one
        # cell at a time
        (
            {f"c{i}": 2 for i in range(40)},
            1000,
            16,
            [(32, 1, [(f"c{i}", 2) for i in range(40)])],
        ),
        ({"a": 0}, 100, 10, []),
        # the default sizes (2,000 cells per eval, 300 in flight): 3 conditions of
        # 3,000 in five evals, 100 cells of each held
        (
            {"a": 3000, "b": 3000, "c": 3000},
            CELLS_PER_EVAL,
            CELLS_IN_FLIGHT,
            [(3, 100, [(n, 600) for n in "abc"])] * 5,
        ),
    ],
)
def test_eval_windows_run_a_task_per_condition_fed_a_window_at_a_time(
    sizes, per_eval, in_flight_cells, expected
):
    windows = eval_windows(
        [spec(name, n) for name, n in sizes.items()], per_eval, in_flight_cells
    )
    assert [
        (w.in_flight, w.window, [(t.name, len(t.cells)) for t in w.tasks])
        for w in windows
    ] == expected
    for name, n in sizes.items():  # every cell exactly once, in order
        ran = [
            cell for w in windows for t in w.tasks if t.name == name for cell in t.cells
        ]
        assert ran == [f"{name}{i}" for i in range(n)]


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (["a2", "a1"], ["a1", "a2"]),  # in the dataset's order
        (["a3,a1"], ["a1", "a3"]),
        (["a1, a3", "a2"], ["a1", "a2", "a3"]),
        (["x,y"], ["x,y"]),  # an id that holds a comma is that item
        (["a1,"], ["a1"]),
    ],
)
def test_items_by_id_repeated_or_joined_by_commas(ids, expected):
    items = [
        Item(
            id=i,
            input="q",
            target="",
            grading_scheme=None,
            metadata={},
            dataset_id="d",
            dataset_revision="r",
            row=k,
        )
        for k, i in enumerate(("a1", "a2", "x,y", "a3"))
    ]
    assert [item.id for item in plan_items.by_id(items, ids)] == expected


# ---- draws: a judge's independent samples of one answer


@pytest.mark.parametrize("coded", [False, True])
def test_each_draw_is_its_own_grade_and_only_missing_draws_are_pending(coded):
    stored = grades(
        ("g", "c", "done", 1, "h1", None, True, 0.01),  # draw 1, as before draws
        ("g", "c", "done", 1, "h1", None, True, 0.01),
        ("g", "c", "done", 1, "h1", None, True, 0.01),  # a draw beyond `draws`
        ("h", "c", "done", 1, "h1", None, True, 0.01),
        draws=(1, 2, 4, 1),
    )
    solutions = GRADABLE.iloc[:2]
    state = plan.grade_state(solutions, stored, ["g", "h"], draws=[3, 1], coded=coded)
    rows = [
        (str(g), str(item), int(draw), str(kind))
        for g, item, draw, kind in zip(
            state["grade_condition_id"], state["item_id"], state["draw"], state["state"]
        )
    ]
    assert rows == [
        ("g", "done", 1, "done"),
        ("g", "parse", 1, "pending"),
        ("g", "done", 2, "done"),
        ("g", "parse", 2, "pending"),
        ("g", "done", 3, "pending"),
        ("g", "parse", 3, "pending"),
        ("h", "done", 1, "done"),
        ("h", "parse", 1, "pending"),
    ]
    todo = plan.plan_grade(state, force=False)
    assert len(todo) == 5 and set(todo["draw"]) == {1, 2, 3}
    counts = plan.grade_counts(state)
    assert counts.loc["g", "solutions"] == 6 and counts.loc["g", "done"] == 2


def test_a_frame_without_a_draw_column_reads_as_draw_1():
    stored = grades(("g", "c", "done", 1, "h1", None, True, 0.01)).drop(
        columns=["draw"]
    )
    state = plan.grade_state(GRADABLE.iloc[:1], stored, ["g"], draws=[2])
    assert state["state"].tolist() == ["done", "pending"]
