"""Verifiable scorers inside `itemeval grade`: pure Python over stored solutions, no
inspect; their grade rows written in batches."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pyarrow as pa

from ...hashing import canonical_json
from ...outcomes import ConditionRun
from ...paths import StudyPaths
from ...records import GradeCondition, Item
from ...scorers import ScoreContext, ScoreResult
from ...scorers.reference import with_reference
from ...scorers.registry import resolve, score_many
from ...store import read_store
from ...store.schemas import GRADES

_VERIFIABLE_CHUNK = 50_000
"""Most stored solutions scored in one call."""
_WRITE_ROWS = 20_000
"""Grade rows gathered before a write (each write commits a store version): bigger
batches cost memory."""
# a placeholder for the columns every row shares
NO_RESULT = ScoreResult(score=1.0, answer=None)


def verifiable_row(
    condition: GradeCondition,
    key: tuple[str, str, int],
    solution_hash: str,
    result: ScoreResult,
    *,
    run_id: str,
) -> dict[str, Any]:
    gen_condition_id, item_id, epoch = key
    # itemeval's own scorers have always kept what they read in score_raw (and their
    # explanation as reasoning).
    own = result.raw is None
    return {
        **grade_base(
            condition, gen_condition_id, item_id, epoch, solution_hash, run_id
        ),
        "score": result.score,
        "score_raw": result.answer if own else result.raw,
        "parse_ok": result.parse_error is None,
        "parse_error": result.parse_error,
        "reasoning": result.explanation if own else None,
        "answer": result.answer,
        "explanation": result.explanation,
        "score_metadata": canonical_json(dict(result.metadata))
        if result.metadata
        else None,
        "usd": 0.0,
        "cache_hit": False,
    }


def grade_base(
    condition: GradeCondition,
    gen_condition_id: str,
    item_id: str,
    epoch: int,
    solution_hash: str,
    run_id: str,
) -> dict[str, Any]:
    return {
        "grade_condition_id": condition.id,
        "grade_condition_slug": condition.slug,
        "gen_condition_id": gen_condition_id,
        "item_id": item_id,
        "epoch": int(epoch),
        "draw": 1,  # a judge's later draws say theirs (judge_row)
        "grade_kind": condition.kind,
        "scorer": condition.scorer,
        "grader_name": condition.grader_name,
        "grader_model": condition.grader_model,
        "rubric_name": condition.rubric.ref if condition.rubric else None,
        "rubric_hash": condition.rubric.hash if condition.rubric else None,
        "solution_hash": solution_hash,
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc).isoformat(),
    }


def score_context(item: Item) -> ScoreContext:
    return ScoreContext(
        targets=item.targets,
        choices=item.choices,
        metadata=item.metadata,
        input=item.input,
    )


@dataclass(frozen=True)
class Solutions:
    """What grading reads of a study besides its plan, and no more: the store its
    solutions are in, the items they answer, and the folder user scorers are found
    beside."""

    paths: StudyPaths
    items: Sequence[Item]
    config_dir: Path


def grade_verifiable(
    solutions: Solutions,
    todo: pd.DataFrame,
    conditions: list[GradeCondition],
    summaries: dict[str, ConditionRun],
    *,
    run_id: str,
    write: Callable[[pa.Table], Any],
) -> None:
    """Score every pending solution of the verifiable conditions, one generate
    condition's solutions at a time, each chunk of grade rows handed to `write`
    (Run.row_writer: the store, or a shard's journal part)."""
    by_id = {c.id: c for c in conditions}
    groups = pending_groups(todo, by_id)
    if not groups:
        return
    contexts = {item.id: score_context(item) for item in solutions.items}
    by_reference = _reference_contexts(solutions.items, conditions, contexts)
    with_logprobs = _need_logprobs(conditions, solutions.config_dir)
    keys = todo[["item_id", "epoch", "solution_hash"]]
    # what the scorers reuse across this grade's calls; dropped when it ends
    cache: dict[str, Any] = {}
    written = Batches(write, summaries)
    for gen_id, by_grade in groups.items():
        scoring = _Scoring(
            solutions.config_dir,
            run_id,
            cache,
            _stored_solutions(solutions.paths, gen_id, logprobs=with_logprobs),
        )
        for grade_id, positions in by_grade:
            condition = by_id[grade_id]
            chosen = by_reference.get(condition.reference, contexts)
            for chunk in _chunks(keys, positions):
                table = _verifiable_table(scoring, condition, gen_id, chunk, chosen)
                written.add(grade_id, table)
    written.flush()


@dataclass(frozen=True)
class _Scoring:
    """What every scorer of one generate condition's solutions shares."""

    config_dir: Path
    """Where user scorers are found."""
    run_id: str
    cache: dict[str, Any]
    """What the scorers reuse across this grade's calls."""
    stored: dict[tuple[str, int], tuple[str, Any]]
    """(item, epoch) -> the solution's text and logprobs."""


def _need_logprobs(conditions: list[GradeCondition], config_dir: Path) -> bool:
    """Whether any of the scorers reads the solutions' logprobs: they are read from
    the store only then."""
    return any(resolve(c.scorer, config_dir).needs == ("logprobs",) for c in conditions)


def _chunks(keys: pd.DataFrame, positions: Any) -> Iterator[pd.DataFrame]:
    """The rows of `keys` at `positions`, at most _VERIFIABLE_CHUNK at a time."""
    for start in range(0, len(positions), _VERIFIABLE_CHUNK):
        yield keys.iloc[positions[start : start + _VERIFIABLE_CHUNK]]


def _reference_contexts(
    items: Sequence[Item],
    conditions: list[GradeCondition],
    contexts: dict[str, ScoreContext],
) -> dict[str, dict[str, ScoreContext]]:
    """reference -> item id -> context, for conditions that score against a
    reference other than the item's target."""
    return {
        c.reference: {
            item.id: with_reference(contexts[item.id], item, c.reference)
            for item in items
        }
        for c in conditions
        if c.reference is not None
    }


class Batches:
    """Grade rows written in batches of at least _WRITE_ROWS rows, whichever scorers
    they come from: each write commits a store version, and one per scorer × generate
    condition made a grade with several scorers pay that (links, fsyncs) several
    times over. A condition's counts grow once its rows are written."""

    def __init__(
        self, write: Callable[[pa.Table], Any], summaries: dict[str, ConditionRun]
    ) -> None:
        self._write, self._summaries = write, summaries
        self._tables: list[tuple[str, pa.Table]] = []
        self._rows = 0

    def add(self, grade_id: str, table: pa.Table) -> None:
        self._tables.append((grade_id, table))
        self._rows += table.num_rows
        if self._rows >= _WRITE_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self._tables:
            return
        self._write(pa.concat_tables([table for _, table in self._tables]))
        for grade_id, table in self._tables:
            self._summaries[grade_id].rows += table.num_rows
            self._summaries[grade_id].parse_failures += (
                table.column("parse_ok").to_pylist().count(False)
            )
        self._tables, self._rows = [], 0


def pending_groups(
    todo: pd.DataFrame, conditions: Mapping[str, GradeCondition]
) -> dict[str, list[tuple[str, Any]]]:
    """gen condition -> [(grade condition, row positions in `todo`)], for the given
    grade conditions only.

    Positions, not filtered copies: a 300,000-row plan copied per condition held ~50 MB
    more for the whole grade.
    """
    if todo.empty:
        return {}
    groups: dict[str, list[tuple[str, Any]]] = {}
    indices = todo.groupby(
        ["gen_condition_id", "grade_condition_id"], sort=False
    ).indices
    for (gen_id, grade_id), positions in indices.items():
        if grade_id in conditions:
            groups.setdefault(gen_id, []).append((grade_id, positions))
    return groups


def _verifiable_table(
    scoring: _Scoring,
    condition: GradeCondition,
    gen_id: str,
    pairs: pd.DataFrame,
    contexts: dict[str, ScoreContext],
) -> pa.Table:
    """The grade rows of one scorer over one generate condition's solutions, built
    column by column for speed."""
    item_ids = pairs["item_id"].tolist()
    epochs = [int(e) for e in pairs["epoch"]]
    rows = _scoring_rows(item_ids, epochs, scoring.stored, contexts)
    results = score_many(
        condition.scorer,
        condition.scorer_params,
        rows,
        scoring.config_dir,
        cache=scoring.cache,
    )
    n = len(results)
    base = verifiable_row(
        condition, (gen_id, "", 0), "", NO_RESULT, run_id=scoring.run_id
    )
    base["created_at"] = datetime.now(timezone.utc)
    per_row = dict(
        item_id=item_ids,
        epoch=epochs,
        solution_hash=pairs["solution_hash"].tolist(),
        **_result_columns(results),
    )
    columns = {
        name: pa.array(per_row[name], type=GRADES.field(name).type)
        if name in per_row
        # one value for every row
        else pa.repeat(pa.scalar(value, type=GRADES.field(name).type), n)
        for name, value in base.items()
    }
    return pa.table(columns)


def _scoring_rows(
    item_ids: list[str],
    epochs: list[int],
    stored: dict[tuple[str, int], tuple[str, Any]],
    contexts: dict[str, ScoreContext],
) -> list[tuple[str, ScoreContext, str, int]]:
    """(solution text, context with its logprobs, item id, epoch) of each solution."""
    rows = []
    for item_id, epoch in zip(item_ids, epochs):
        text, logprobs = stored.get((item_id, epoch), ("", None))
        context = (
            contexts[item_id]
            if logprobs is None
            else replace(contexts[item_id], logprobs=logprobs)
        )
        rows.append((text or "", context, item_id, epoch))
    return rows


def _result_columns(results: Sequence[ScoreResult]) -> dict[str, list[Any]]:
    """The grade columns that come from each row's score result (as verifiable_row
    fills them)."""
    own = [r.raw is None for r in results]
    return dict(
        score=[r.score for r in results],
        score_raw=[r.answer if o else r.raw for r, o in zip(results, own)],
        parse_ok=[r.parse_error is None for r in results],
        parse_error=[r.parse_error for r in results],
        reasoning=[r.explanation if o else None for r, o in zip(results, own)],
        answer=[r.answer for r in results],
        explanation=[r.explanation for r in results],
        score_metadata=[
            canonical_json(dict(r.metadata)) if r.metadata else None for r in results
        ],
    )


def _stored_solutions(
    paths: StudyPaths, gen_condition_id: str, *, logprobs: bool = False
) -> dict[tuple[str, int], tuple[str, Any]]:
    """(item_id, epoch) -> (solution text, logprobs or None) of one generate
    condition."""
    columns = ["item_id", "epoch", "solution", *(["logprobs"] if logprobs else [])]
    table = read_store(
        paths, "solutions", columns, where={"condition_id": [gen_condition_id]}
    )
    keys = zip(table.column("item_id").to_pylist(), table.column("epoch").to_pylist())
    values = (
        table.column("logprobs").to_pylist() if logprobs else [None] * table.num_rows
    )
    return dict(zip(keys, zip(table.column("solution").to_pylist(), values)))


def solution_texts(
    paths: StudyPaths, gen_condition_id: str
) -> dict[tuple[str, int], str]:
    """(item_id, epoch) -> solution text of one generate condition."""
    return {
        key: text
        for key, (text, _) in _stored_solutions(paths, gen_condition_id).items()
    }


def solution_transcripts(
    paths: StudyPaths, gen_condition_id: str
) -> dict[tuple[str, int], str]:
    """(item_id, epoch) -> an agent's compact transcript, for rubrics that read
    `{transcript}` (none for plain answers)."""
    table = read_store(
        paths,
        "solutions",
        ["item_id", "epoch", "transcript"],
        where={"condition_id": [gen_condition_id]},
    )
    keys = zip(table.column("item_id").to_pylist(), table.column("epoch").to_pylist())
    return {
        key: text
        for key, text in zip(keys, table.column("transcript").to_pylist())
        if text
    }
