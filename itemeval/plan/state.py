"""The stored state planners work from: the grid's cells and grade pairs joined with
what the stores hold."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..paths import StudyPaths
from ..records import GenerateCondition, GradeCondition
from ..store import read_store
from ..store.backend import check_store
from ..study.load import Study, extra_judges
from . import cells as plan
from .draws import draw_reducer, per_answer
from .generate_tasks import InputHashes
from .observed import ObservedLengths


@dataclass(frozen=True)
class Stored:
    """What joining the grid with the stores needs of a study, and no more: where its
    stores are, each cell's replications, and what an empty solution counts as
    (`solvers.on_empty`)."""

    paths: StudyPaths
    replications: int
    on_empty: str
    inputs: InputHashes | None = None
    """What each cell would send now, to tell an answer to an edited item."""
    on_input_change: str = "rerun"
    """`solvers.on_input_change`: an answer to an earlier version of its item is
    pending again (rerun) or kept, flagged (keep)."""

    def solutions(self, condition_ids: list[str], item_ids: list[str]) -> pd.DataFrame:
        """These conditions' cells over these items merged with their stored
        solutions' state (`input_changed`: answered another input than now)."""
        cells = plan.grid_cells(condition_ids, item_ids, self.replications)
        stored = read_store(
            self.paths,
            "solutions",
            plan.GENERATE_STATE_COLUMNS,
            where={"condition_id": condition_ids},
        ).to_pandas()
        merged = plan.attach_solutions(cells, stored)
        if self.inputs is None:
            merged["input_changed"] = False
            return merged
        return plan.mark_changed(merged, self.inputs.column(merged))

    def gradable(self, merged: pd.DataFrame) -> pd.DataFrame:
        """The merged cells whose solutions can be graded."""
        return plan.gradable(merged, self.on_empty, self.on_input_change)

    def grades(
        self,
        conditions: list[GradeCondition],
        merged: pd.DataFrame,
        *,
        extra: tuple[str, ...] = (),
        coded: bool = False,
    ) -> pd.DataFrame:
        """Every (grade condition × draw × gradable solution of `merged`) with its
        state, and the stored grade's `extra` columns where there is one (`coded`: the
        ids and hash as categoricals, plan.grade_state)."""
        where = {"grade_condition_id": [c.id for c in conditions]}
        grades = read_store(
            self.paths, "grades", [*plan.GRADE_STATE_COLUMNS, *extra], where=where
        ).to_pandas()
        ids = [c.id for c in conditions]
        draws = [c.draws for c in conditions]
        return plan.grade_state(
            self.gradable(merged), grades, ids, draws=draws, coded=coded
        )


def stored_of(study: Study) -> Stored:
    """What joining the grid with the stores needs of this study (its items store
    checked first: a damaged one is refused by every command, not only by export)."""
    check_store(study.paths, "items")
    solvers = study.config.solvers
    return Stored(
        study.paths,
        study.replications,
        solvers.on_empty,
        inputs=InputHashes(study.generate, study.items),
        on_input_change=solvers.on_input_change,
    )


def solution_state(
    study: Study,
    condition_ids: list[str] | None = None,
    item_ids: list[str] | None = None,
) -> pd.DataFrame:
    """The grid's cells (optionally only some conditions and items) merged with their
    stored solutions' state. Inside `shared_states()` the whole grid's is read once:
    the report's grade join and its status both start from it."""
    ids = condition_ids if condition_ids is not None else [c.id for c in study.generate]
    items = item_ids if item_ids is not None else [item.id for item in study.items]
    shared = _SHARED.get()
    whole = condition_ids is None and item_ids is None
    if shared is None or not whole:
        return stored_of(study).solutions(ids, items)
    if _WHOLE_GRID not in shared:
        shared[_WHOLE_GRID] = stored_of(study).solutions(ids, items)
    return shared[_WHOLE_GRID]


_WHOLE_GRID = ("solutions of the whole grid",)
"""The key `shared_states()` keeps the whole grid's solution state under (the grade
joins' keys are tuples of grade condition ids, never this)."""


def all_generated(
    paths: StudyPaths,
    condition_ids: list[str],
    item_ids: list[str],
    *,
    replications: int,
    on_empty: str,
    inputs: InputHashes | None = None,
) -> bool:
    """Whether every (condition, item, epoch) cell has a done row (no error; not blank
    under on_empty: rerun; when `inputs` are given, an answer to the input it would
    send now), as plan.generate_done decides it.

    One count in arrow: a generate with nothing to do skips the planner's pandas
    merges and its task specs (issue 27).
    """
    expected = len(condition_ids) * len(item_ids) * replications
    stored = read_store(
        paths,
        "solutions",
        [*plan.CELL, "error", "blank", "input_hash"],
        where={"condition_id": condition_ids},
    )
    if stored.num_rows < expected:
        return False
    ids = pa.array(item_ids, stored.schema.field("item_id").type)
    tests = [
        pc.is_null(stored["error"]),
        pc.is_in(stored["item_id"], value_set=ids),
        pc.greater_equal(stored["epoch"], 1),
        pc.less_equal(stored["epoch"], replications),
    ]
    if on_empty == "rerun":
        tests.append(pc.invert(pc.fill_null(stored["blank"], False)))
    done = stored.filter(functools.reduce(pc.and_, tests))
    if inputs is not None:
        done = _answering_current_inputs(done, inputs)
    cells = done.select(plan.CELL).group_by(plan.CELL).aggregate([])
    return cells.num_rows == expected


def _answering_current_inputs(stored: pa.Table, inputs: InputHashes) -> pa.Table:
    """The rows with no recorded input hash (an older itemeval's) or the one their
    cell would send now; each (condition, item) pair's hash rendered once."""
    pairs = (
        stored.select(["condition_id", "item_id"])
        .group_by(["condition_id", "item_id"])
        .aggregate([])
    )
    current = pairs.append_column(
        "current_input",
        pa.array(
            [
                inputs.of(c, i)
                for c, i in zip(
                    pairs["condition_id"].to_pylist(), pairs["item_id"].to_pylist()
                )
            ],
            pa.string(),
        ),
    )
    joined = stored.join(current, ["condition_id", "item_id"])
    recorded = joined["input_hash"]
    same = pc.fill_null(pc.equal(recorded, joined["current_input"]), True)
    return joined.filter(pc.or_(pc.is_null(recorded), same))


def grade_state(
    study: Study,
    conditions: list[GradeCondition],
    merged: pd.DataFrame | None = None,
    *,
    extra: tuple[str, ...] = (),
    all_draws: bool = False,
) -> pd.DataFrame:
    """Every (grade condition × gradable solution) with its state (done,
    parse_failed, stale, error, pending), and the stored grade's `extra` columns
    (e.g. score) where there is one; the ids and the solution hash are categoricals
    (for readers: a grade run plans from `Stored.grades`, with strings). A judge's
    draws are one row per answer, reduced as `reducing_draws` says (mean unless
    told), or every draw its own row with `all_draws` (status counts them). Inside
    `shared_states()` the join is made once per set of conditions (with every column
    a reader there asks for); callers never change the frame in place."""
    shared = _SHARED.get()
    key = tuple(c.id for c in conditions)
    how = draw_reducer()
    if shared is not None and key in shared:
        state = shared[key]
    else:
        merged = solution_state(study) if merged is None else merged
        wanted = extra if shared is None else SHARED_EXTRA
        # its readers group, pivot and count: the ids as categoricals
        state = stored_of(study).grades(conditions, merged, extra=wanted, coded=True)
        if shared is not None:
            shared[key] = state
    if all_draws:
        return state
    if shared is None:
        return per_answer(state, how)
    reduced = (*key, f"draws={how}")  # never a tuple of ids alone
    if reduced not in shared:
        shared[reduced] = per_answer(state, how)
    return shared[reduced]


SHARED_EXTRA = ("score", "answer", "score_metadata")
"""The grade columns the readers of one `shared_states()` block ask for between them:
results, the item analysis and status."""

_SHARED: ContextVar[dict[tuple[str, ...], pd.DataFrame] | None] = ContextVar(
    "itemeval_shared_grade_states", default=None
)


@contextmanager
def shared_states() -> Iterator[None]:
    """Within the block, one grade-state join per set of grade conditions: results
    reads it for its cells and its metrics, the report for those, its item analysis
    and its status."""
    if _SHARED.get() is not None:  # already sharing: one join for the outer block
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def graded_extra_judges(study: Study) -> list[GradeCondition]:
    """Judges of `graders:` entries outside facets.grader that `grade --grader NAME`
    has already run."""
    extra = extra_judges(study.config, study.rubrics, list(study.config.graders))
    if not extra:
        return []
    stored = read_store(
        study.paths,
        "grades",
        ["grade_condition_id"],
        where={"grade_condition_id": [c.id for c in extra]},
    )
    graded = set(stored.column("grade_condition_id").to_pylist())
    return [c for c in extra if c.id in graded]


def observed_lengths(paths: StudyPaths, stage: str) -> ObservedLengths:
    """Mean reply lengths already stored for a stage's calls, which the estimate's
    expected figure uses."""
    if stage == "generate":
        rows = read_store(
            paths,
            "solutions",
            [
                "condition_id",
                "model",
                "error",
                "output_tokens",
                "input_tokens",
                "turns",
            ],
        ).to_pandas()
        return ObservedLengths.from_rows(rows, "condition_id", "model")
    rows = read_store(
        paths,
        "grades",
        ["grade_condition_id", "grader_model", "error", "output_tokens", "grade_kind"],
    ).to_pandas()
    return ObservedLengths.from_rows(
        rows[rows["grade_kind"] == "judge"], "grade_condition_id", "grader_model"
    )


def superseded_notes(
    paths: StudyPaths, conditions: list[GenerateCondition], current: set[str]
) -> list[str]:
    """Say when a generate condition's id changed under its slug (an edited template
    or setting); `current` holds the ids of every generate condition of the study."""
    return superseded(paths, SOLUTIONS_SUPERSEDED, conditions, current)


def grade_superseded_notes(
    paths: StudyPaths, conditions: list[GradeCondition], current: set[str]
) -> list[str]:
    """Say when a grade condition's id changed under its slug (an edited rubric, new
    scorer rules or params); `current` holds the study's grade condition ids
    (`grade_ids`)."""
    return superseded(paths, GRADES_SUPERSEDED, conditions, current)


def grade_ids(study: Study) -> set[str]:
    """The ids of every grade condition of the study, the judges of `graders:`
    entries outside facets.grader included."""
    return {
        c.id
        for c in study.grade
        + extra_judges(study.config, study.rubrics, list(study.config.graders))
    }


@dataclass(frozen=True)
class Superseding:
    """How a store's rows name their condition, and what a note about rows under an
    old id of a slug says."""

    store: str
    id_column: str
    slug_column: str
    why: str
    """Why a condition's id changes under its slug."""
    rows_word: str


SOLUTIONS_SUPERSEDED = Superseding(
    "solutions",
    "condition_id",
    "condition_slug",
    "its prompt or settings changed",
    "rows",
)
GRADES_SUPERSEDED = Superseding(
    "grades",
    "grade_condition_id",
    "grade_condition_slug",
    "its rubric, grader, scorer rules or params changed",
    "grades",
)
PAIRWISE_SUPERSEDED = Superseding(
    "pairwise",
    "grade_condition_id",
    "grade_condition_slug",
    "its rubric, grader or limits changed",
    "verdicts",
)


def superseded(
    paths: StudyPaths, kind: Superseding, conditions: list, current: set[str]
) -> list[str]:
    """Old rows stay under the old id and never mix with the new one: each note says
    so and how many there are."""
    if not conditions:
        return []
    store, id_column, slug_column = kind.store, kind.id_column, kind.slug_column
    why, rows_word = kind.why, kind.rows_word
    slugs = [c.slug for c in conditions]
    stored = read_store(
        paths, store, [id_column, slug_column], where={slug_column: slugs}
    )
    # counted in arrow: a million grades' ids never become Python strings
    ids = pa.array(sorted(current), stored.schema.field(id_column).type)
    old = stored.filter(pc.invert(pc.is_in(stored[id_column], value_set=ids)))
    counts = (
        old.group_by([slug_column, id_column])
        .aggregate([([], "count_all")])
        .sort_by([(slug_column, "ascending"), (id_column, "ascending")])
    )
    names = [slug_column, id_column, "count_all"]
    rows = zip(*(counts[name].to_pylist() for name in names))
    counted = {(slug, old_id): count for slug, old_id, count in rows}
    notes = []
    for condition in conditions:
        for (slug, old_id), count in counted.items():
            if slug == condition.slug:
                notes.append(
                    f"{condition.slug}: {why}, so its id is now "
                    f"{condition.id}; the {count} {rows_word} "
                    f"stored under the old id {old_id} stay there and never mix with it"
                )
    return notes
