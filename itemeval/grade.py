"""Stage 2: fan verifiable scorers and LLM judges out over stored solutions into
grades.parquet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Callable

import pandas as pd
import pyarrow as pa

from . import batch, cascade, heap, hints, pairwise_grade, response_cache
from . import plan as planner
from .cache_lookup import cached_sample_ids  # noqa: I001
from .config import CallLimits
from .cost import (
    EstimateLine,
    estimate_tokens,
    line_for,
    lines_for_specs,
    merge_lines,
    scorer_line,
)
from .criteria import format_suffix, rubric_criteria
from .errors import ConfigError
from .grid import matches, resolve_grader, select
from .hashing import canonical_json
from .judge import judge_fields, quoted_objects, with_format_suffix
from .outcomes import ConditionRun, SampleResult, StageResult
from .pricing import PriceTable, call_usd, total_usd
from .prompts import render
from .records import GRADE_KEY, Cell, GenerateCondition, GradeCondition, Item, TaskSpec
from .reference import reference_targets, with_reference
from .run import Ask, Run, StageOptions, Tell, check_providers, open_run
from .runner import RowSink
from .scorers import ScoreContext, ScoreResult
from .scorers.registry import resolve, score_many
from .stage_plan import StagePlan
from .state import grade_state, grade_superseded_notes, observed_lengths, solution_state
from .store import read_store
from .store.journal import journaled_keys
from .store.schemas import GRADES
from .store.table import coerce_rows
from .study import Study, extra_judges, extra_pairwise

MODEL_GRADED_TEMPLATE_TOKENS = 250
"""Tokens of inspect's model-graded template and instructions around the question,
answer and criterion."""
_VERIFIABLE_CHUNK = 50_000
"""Most stored solutions scored in one call."""
_WRITE_ROWS = 20_000
"""Grade rows gathered before a write (each write commits a store version): bigger
batches cost memory."""
_NO_RESULT = ScoreResult(
    score=1.0, answer=None
)  # a placeholder for the columns every row shares


@dataclass(frozen=True)
class GradeOptions(StageOptions):
    """What `itemeval grade` was asked to do; `graders`/`rubrics` select judge
    conditions only."""

    graders: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    """Only the grades in these states (`parse-failures`, `errors`), re-run whatever
    they are."""


# ---- plan: which grade conditions, over which solutions
# ---------------------------------------------------


def select_conditions(
    study: Study, options: GradeOptions
) -> tuple[list[GenerateCondition], list[GradeCondition]]:
    """(generate conditions, grade conditions) this run covers, after --condition,
    --grader and --rubric.

    Pairwise conditions are left out: `select_pairwise` gives them."""
    generate, grade = _select(study, options)
    return generate, [c for c in grade if not c.is_pairwise]


def select_pairwise(study: Study, options: GradeOptions) -> list[GradeCondition]:
    """The pairwise conditions this run covers, after --condition, --grader and
    --rubric."""
    return [c for c in _select(study, options)[1] if c.is_pairwise]


def _select(
    study: Study, options: GradeOptions
) -> tuple[list[GenerateCondition], list[GradeCondition]]:
    # a name these conditions answer to selects them; it never adds a plain judge
    model_graded = [c for c in study.grade if c.is_model_graded or c.is_cascade]
    judge_names = [
        name
        for name in options.graders
        if not any(_graded_by(c, [name]) for c in model_graded)
    ]
    grade = (
        study.grade
        + study.pairwise
        + extra_judges(study, judge_names)
        + extra_pairwise(study, judge_names)
    )
    if options.graders or options.rubrics:
        grade = [
            c
            for c in grade
            if not c.is_verifiable
            and (not options.graders or _graded_by(c, options.graders))
            and (
                not options.rubrics
                or (c.rubric is not None and c.rubric.ref in options.rubrics)
            )
        ]
        if not grade:
            raise ConfigError(
                f"no judge condition matches --grader {list(options.graders)} "
                f"--rubric {list(options.rubrics)}"
            )
    gen_selectors, grade_selectors = _split_selectors(
        study.generate, grade, list(options.conditions)
    )
    return select(study.generate, gen_selectors), select(grade, grade_selectors)


def _graded_by(condition: GradeCondition, names: list[str] | tuple[str, ...]) -> bool:
    """Whether `--grader` names this condition: a judge's grader name; a model-graded
    scorer's name or model."""
    if condition.kind in ("judge", "pairwise", "cascade"):
        return condition.grader_name in names
    return condition.is_model_graded and (
        condition.scorer in names or any(m in names for m in condition.models)
    )


def _split_selectors(
    generate: list[GenerateCondition], grade: list[GradeCondition], selectors: list[str]
) -> tuple[list[str], list[str]]:
    """--condition may name generate or grade conditions; each narrows its own side."""
    gen, grade_side = [], []
    for selector in selectors:
        matched_gen = any(matches(c, selector) for c in generate)
        if not (matched_gen or any(matches(c, selector) for c in grade)):
            known = ", ".join(c.slug for c in [*generate, *grade])
            raise ConfigError(
                f"--condition: no condition matches {selector!r} (conditions: {known})"
            )
        (gen if matched_gen else grade_side).append(selector)
    return gen, grade_side


def pending(
    study: Study,
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
    items: list[Item],
    *,
    force: bool,
    only: tuple[str, ...] = (),
) -> pd.DataFrame:
    """(grade condition × solution) pairs to grade now, with the solution's current
    hash."""
    if not grade:  # e.g. a run of pairwise judges only
        return pd.DataFrame(columns=[*GRADE_KEY, "solution_hash", "state"])
    merged = solution_state(
        study, [c.id for c in generate], [item.id for item in items]
    )
    return planner.plan_grade(grade_state(study, grade, merged), force=force, only=only)


def shard_pending(
    study: Study, grade: list[GradeCondition], todo: pd.DataFrame, shard: planner.Shard
) -> pd.DataFrame:
    """The shard's part of the pending grades, less those its own earlier journal parts
    already hold.

    A grade belongs to the shard of (grade condition, item); with `--shard-by model`, of
    its grader model (a verifiable scorer's cells go by scorer name).
    """
    owners = {c.id: c.grader_model or c.scorer for c in grade}
    todo = todo[planner.in_shard(todo, shard, "grade_condition_id", owners)]
    done = journaled_keys(study.paths, shard.tag, "grades", GRADE_KEY)
    if done:
        keep = [
            tuple(
                int(v) if name == "epoch" else v for name, v in zip(GRADE_KEY, values)
            )
            not in done
            for values in zip(*(todo[name] for name in GRADE_KEY))
        ]
        todo = todo[keep]
    return todo.reset_index(drop=True)


# ---- verifiable scorers: pure Python, no inspect
# ----------------------------------------------------------


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
        **_grade_base(
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


def _grade_base(
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


def grade_verifiable(
    study: Study,
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
    groups = _pending_groups(todo, by_id)
    if not groups:
        return
    contexts = {item.id: score_context(item) for item in study.items}
    by_reference = {
        c.reference: {
            item.id: with_reference(contexts[item.id], item, c.reference)
            for item in study.items
        }
        for c in conditions
        if c.reference is not None
    }
    with_logprobs = any(
        resolve(c.scorer, study.loaded.config_dir).needs == ("logprobs",)
        for c in conditions
    )
    keys = todo[["item_id", "epoch", "solution_hash"]]
    cache: dict[
        str, Any
    ] = {}  # what the scorers reuse across this grade's calls; dropped when it ends
    written = _Batches(write, summaries)
    for gen_id, by_grade in groups.items():
        stored = _stored_solutions(study, gen_id, logprobs=with_logprobs)
        for grade_id, positions in by_grade:
            for start in range(0, len(positions), _VERIFIABLE_CHUNK):
                chunk = keys.iloc[positions[start : start + _VERIFIABLE_CHUNK]]
                written.add(
                    grade_id,
                    _verifiable_table(
                        study,
                        by_id[grade_id],
                        gen_id,
                        chunk,
                        stored,
                        by_reference.get(by_id[grade_id].reference, contexts),
                        run_id,
                        cache,
                    ),
                )
    written.flush()


class _Batches:
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


def _pending_groups(
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
    study: Study,
    condition: GradeCondition,
    gen_id: str,
    pairs: pd.DataFrame,
    stored: dict[tuple[str, int], tuple[str, Any]],
    contexts: dict[str, ScoreContext],
    run_id: str,
    cache: dict[str, Any],
) -> pa.Table:
    """The grade rows of one scorer over one generate condition's solutions, built
    column by column for speed."""
    item_ids = pairs["item_id"].tolist()
    epochs = [int(e) for e in pairs["epoch"]]
    rows = []
    for item_id, epoch in zip(item_ids, epochs):
        text, logprobs = stored.get((item_id, epoch), ("", None))
        context = (
            contexts[item_id]
            if logprobs is None
            else replace(contexts[item_id], logprobs=logprobs)
        )
        rows.append((text or "", context, item_id, epoch))
    results = score_many(
        condition.scorer,
        condition.scorer_params,
        rows,
        study.loaded.config_dir,
        cache=cache,
    )
    n = len(results)
    base = verifiable_row(condition, (gen_id, "", 0), "", _NO_RESULT, run_id=run_id)
    base["created_at"] = datetime.now(timezone.utc)
    own = [r.raw is None for r in results]
    per_row = dict(
        item_id=item_ids,
        epoch=epochs,
        solution_hash=pairs["solution_hash"].tolist(),
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
    columns = {
        name: pa.array(per_row[name], type=GRADES.field(name).type)
        if name in per_row
        else pa.repeat(
            pa.scalar(value, type=GRADES.field(name).type), n
        )  # one value for every row
        for name, value in base.items()
    }
    return pa.table(columns)


def _stored_solutions(
    study: Study, gen_condition_id: str, *, logprobs: bool = False
) -> dict[tuple[str, int], tuple[str, Any]]:
    """(item_id, epoch) -> (solution text, logprobs or None) of one generate
    condition."""
    columns = ["item_id", "epoch", "solution", *(["logprobs"] if logprobs else [])]
    table = read_store(
        study.paths, "solutions", columns, where={"condition_id": [gen_condition_id]}
    )
    keys = zip(table.column("item_id").to_pylist(), table.column("epoch").to_pylist())
    values = (
        table.column("logprobs").to_pylist() if logprobs else [None] * table.num_rows
    )
    return dict(zip(keys, zip(table.column("solution").to_pylist(), values)))


def _solution_texts(study: Study, gen_condition_id: str) -> dict[tuple[str, int], str]:
    return {
        key: text
        for key, (text, _) in _stored_solutions(study, gen_condition_id).items()
    }


# ---- cascades: their scorers first, the judge on what they leave undecided
# ------------------------------------------------------------------------------


@dataclass
class Settled:
    """A plan's cascade cells after their first stages: the grade rows they decided
    and, for the cells left to the judge, what each stage said."""

    rows: list[dict[str, Any]]
    trails: dict[tuple[str, str, str, int], cascade.Trail]
    """(grade condition, gen condition, item, epoch) -> the trail."""


def settle_cascades(
    study: Study, todo: pd.DataFrame, grade: list[GradeCondition], *, run_id: str
) -> tuple[pd.DataFrame, Settled]:
    """Run the cascades' first stages ($0) over their pending solutions: the plan
    less what they decided (so judges are planned, priced and asked only for the
    rest), and the decided rows to write."""
    by_id = {c.id: c for c in cascade.cascades(grade)}
    settled = Settled(rows=[], trails={})
    if not by_id or todo.empty:
        return todo, settled
    items = {item.id: item for item in study.items}
    keep = [True] * len(todo)
    for gen_id, groups in _pending_groups(todo, by_id).items():
        texts = _solution_texts(study, gen_id)
        for grade_id, positions in groups:
            condition, chunk = by_id[grade_id], todo.iloc[positions]
            keys = [(i, int(e)) for i, e in zip(chunk["item_id"], chunk["epoch"])]
            solutions = [(texts.get(k) or "", items[k[0]], k[1]) for k in keys]
            trails = cascade.run_first(
                condition, solutions, score_context, study.loaded.config_dir
            )
            hashes = chunk["solution_hash"].tolist()
            for pos, key, solution_hash, trail in zip(positions, keys, hashes, trails):
                if trail.decided is None:
                    settled.trails[(grade_id, gen_id, *key)] = trail
                    continue
                keep[pos] = False
                row = verifiable_row(
                    condition, (gen_id, *key), solution_hash, trail.decided[1],
                    run_id=run_id,
                )  # fmt: skip
                settled.rows.append(cascade.decided_row(row, trail))
    return todo[keep].reset_index(drop=True), settled


def _write_settled(settled: Settled, written: _Batches) -> None:
    by_condition: dict[str, list[dict[str, Any]]] = {}
    for row in settled.rows:
        by_condition.setdefault(row["grade_condition_id"], []).append(row)
    for grade_id, rows in by_condition.items():
        written.add(grade_id, coerce_rows("grades", rows))
    written.flush()


# ---- judges: one inspect task per judge condition
# -----------------------------------------------------------


def judge_prompt(condition: GradeCondition, item: Item, solution: str) -> str:
    values = {
        **item.metadata,
        "input": item.input,
        "solution": solution,
        "target": item.target,
        "grading_scheme": item.grading_scheme,
        "id": item.id,
    }
    criteria, body = rubric_criteria(condition.rubric.text)
    if criteria:
        return f"{render(body, values).rstrip()}\n\n{format_suffix(criteria)}"
    return with_format_suffix(render(body, values))


def judge_row(
    condition: GradeCondition, outcome: SampleResult, *, run_id: str, usd: float | None
) -> dict[str, Any]:
    """One grades row from a judge call: the parsed score, or the parse failure, or
    the call's error."""
    meta = outcome.metadata
    row = {
        **_grade_base(
            condition,
            meta["gen_condition_id"],
            meta["item_id"],
            meta["replication"],
            meta["solution_hash"],
            run_id,
        ),
        **outcome.usage,
        "usd": usd,
        "cache_hit": outcome.cache_hit,
        "latency_s": outcome.latency_s,
        "log_file": outcome.log_file,
        "judge_completion": outcome.completion,
        "error": outcome.error,
    }
    if outcome.error is None:
        expected = rubric_criteria(condition.rubric.text)[0] if condition.rubric else ()
        row.update(
            judge_fields(
                outcome.completion or "", meta.get("quoted_verdicts", ()), expected
            )
        )
    return row


def model_graded_row(
    condition: GradeCondition, outcome: SampleResult, *, run_id: str, usd: float | None
) -> dict[str, Any]:
    """One grades row from a model-graded scorer's verdict on a replayed solution (or
    the error of its calls)."""
    meta = outcome.metadata
    key = (meta["gen_condition_id"], meta["item_id"], meta["replication"])
    verdict = (
        ScoreResult(**outcome.score)
        if outcome.error is None and outcome.score
        else None
    )
    row = verifiable_row(
        condition, key, meta["solution_hash"], verdict or _NO_RESULT, run_id=run_id
    )
    usage = _summed(outcome.calls)
    row.update(
        **usage,
        usd=usd,
        cache_hit=bool(outcome.calls) and all(cached for _, _, cached in outcome.calls),
        latency_s=outcome.latency_s,
        log_file=outcome.log_file,
        error=outcome.error,
    )
    if verdict is None:
        row.update(
            score=None,
            score_raw=None,
            parse_ok=None,
            parse_error=None,
            answer=None,
            explanation=None,
        )
    return row


def _summed(
    calls: tuple[tuple[str, dict[str, int | None], bool], ...],
) -> dict[str, int | None]:
    """Tokens of every call, added up; a count no call reported stays unknown."""
    total: dict[str, int | None] = {}
    for _, usage, _ in calls:
        for name, value in usage.items():
            total[name] = (
                value if total.get(name) is None else total[name] + (value or 0)
            )
    return total


def judge_specs(
    study: Study,
    todo: pd.DataFrame,
    conditions: list[GradeCondition],
    *,
    cache_scope: Callable[[str], str] = str,
) -> list[TaskSpec]:
    """One inspect task per judge or model-graded condition with pending solutions
    (cached under `cache_scope`)."""
    items = {item.id: item for item in study.items}
    specs = []
    for condition in conditions:
        group = todo[todo["grade_condition_id"] == condition.id]
        if group.empty:
            continue
        cells = []
        for gen_id, frame in group.groupby("gen_condition_id", sort=False):
            texts = _solution_texts(study, gen_id)
            for item_id, epoch, solution_hash in zip(
                frame["item_id"], frame["epoch"], frame["solution_hash"]
            ):
                cells.append(
                    _grading_cell(
                        condition,
                        items[item_id],
                        gen_id,
                        int(epoch),
                        solution_hash,
                        texts.get((item_id, int(epoch))) or "",
                    )
                )
        model_graded = condition.is_model_graded
        specs.append(
            TaskSpec(
                name=condition.id,
                model=condition.models[0],
                config=_judge_config(study, condition),
                cells=cells,
                cache_scope=response_cache.scope(study, cache_scope(condition.id)),
                metadata={
                    "itemeval_stage": "grade",
                    "grade_condition_id": condition.id,
                    "grade_kind": condition.kind,
                    **_criteria_of(condition),
                },
                scorer={"name": condition.scorer, "params": condition.scorer_params}
                if model_graded
                else None,
            )
        )
    return specs


def _criteria_of(condition: GradeCondition) -> dict[str, Any]:
    """The criteria a judge's rubric asks for, which its log's scorer checks too."""
    criteria = rubric_criteria(condition.rubric.text)[0] if condition.rubric else ()
    return {"criteria": list(criteria)} if criteria else {}


def _grading_cell(
    condition: GradeCondition,
    item: Item,
    gen_id: str,
    epoch: int,
    solution_hash: str,
    solution: str,
) -> Cell:
    """A judge sees the rendered rubric; a model-graded scorer sees the item's input
    and replays the solution."""
    metadata = {
        "grade_condition_id": condition.id,
        "gen_condition_id": gen_id,
        "item_id": item.id,
        "replication": epoch,
        "solution_hash": solution_hash,
    }
    if condition.is_model_graded:
        return Cell(
            sample_id=f"{gen_id}/{item.id}#{epoch}",
            prompt=item.input,
            metadata={
                **metadata,
                "solution": solution,
                "targets": list(reference_targets(item, condition.reference)),
            },
        )
    # Verdicts the solution holds: a judge quoting one has not given a verdict.
    quoted = quoted_objects(solution)
    return Cell(
        sample_id=f"{gen_id}/{item.id}#{epoch}",
        prompt=judge_prompt(condition, item, solution),
        metadata={**metadata, **({"quoted_verdicts": quoted} if quoted else {})},
    )


def _judge_config(study: Study, condition: GradeCondition) -> dict[str, Any]:
    if (
        condition.is_model_graded
    ):  # the limits of `graders:` defaults; the scorer's models carry them
        max_tokens = condition.scorer_params.get("max_tokens")
        return {
            **CallLimits().inspect_limits(),
            **({"max_tokens": max_tokens} if max_tokens else {}),
        }
    # A bare model id used as a grader gets the `graders:` defaults too: inspect alone
    # retries forever.
    grader = resolve_grader(condition.grader_name, study.config.graders)
    batch = study.config.budget.batch
    return {
        "temperature": 0.0,
        "cache_prompt": "auto",
        **condition.judge_params,
        **grader.inspect_limits(),
        **({"batch": batch} if batch else {}),
    }


def _judge_sink(
    conditions: list[GradeCondition], run: Run, settled: Settled | None = None
) -> RowSink:
    by_id = {c.id: c for c in conditions}
    trails = settled.trails if settled else {}

    def to_row(outcome: SampleResult) -> tuple[str, dict[str, Any]]:
        condition = by_id[outcome.metadata["grade_condition_id"]]
        if condition.is_pairwise:
            usd = call_usd(
                run.prices.lookup(condition.grader_model),
                outcome.usage,
                cache_hit=outcome.cache_hit,
            )
            row = pairwise_grade.verdict_row(
                condition, outcome, run_id=run.run_id, usd=usd
            )
            return pairwise_grade.STORE, row
        if condition.is_model_graded:
            usd = total_usd(
                call_usd(run.prices.lookup(model), usage, cache_hit=cached)
                for model, usage, cached in outcome.calls
            )
            row = model_graded_row(condition, outcome, run_id=run.run_id, usd=usd)
        else:
            usd = call_usd(
                run.prices.lookup(condition.grader_model),
                outcome.usage,
                cache_hit=outcome.cache_hit,
            )
            row = judge_row(condition, outcome, run_id=run.run_id, usd=usd)
        if condition.is_cascade:
            meta = outcome.metadata
            key = (condition.id, meta["gen_condition_id"], meta["item_id"])
            trail = trails.get((*key, int(meta["replication"])))
            row = cascade.judged_row(condition, row, trail)
        return "grades", row

    return to_row


# ---- execute
# --------------------------------------------------------------------------------------


def estimate_lines(
    study: Study,
    todo: pd.DataFrame,
    grade: list[GradeCondition],
    specs: list[TaskSpec],
    prices: PriceTable,
) -> list[EstimateLine]:
    """The estimate of exactly this plan: judges by their rendered prompts, scorers
    at no cost, and each model of a model-graded scorer by the question, solution and
    target it is shown (plus its template)."""
    observed = observed_lengths(study, "grade")
    lines = lines_for_specs(
        "grade",
        batch.without_held(
            study.paths, "grade", [s for s in specs if s.scorer is None]
        ),
        {c.id: c.slug for c in grade},
        observed=observed,
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )
    by_id = {c.id: c for c in grade}
    for spec in (s for s in specs if s.scorer is not None):
        condition = by_id[spec.name]
        tokens = sum(
            estimate_tokens(
                f"{cell.prompt}\n{cell.metadata['solution']}\n{cell.metadata['targets']}"
            )
            + MODEL_GRADED_TEMPLATE_TOKENS
            for cell in spec.cells
        )
        for model in condition.models:
            lines.append(
                line_for(
                    "grade",
                    condition.id,
                    condition.slug,
                    model,
                    calls=len(spec.cells),
                    input_tokens=tokens,
                    max_tokens=spec.config.get("max_tokens"),
                    observed=observed,
                    prices=prices,
                )
            )
    for condition in (c for c in grade if c.is_verifiable):
        lines.append(
            scorer_line(
                condition, int((todo["grade_condition_id"] == condition.id).sum())
            )
        )
    return merge_lines(lines)


def run_grade(
    study: Study,
    options: GradeOptions,
    *,
    ask: Ask | None = None,
    tell: Tell | None = None,
) -> StageResult:
    """Grade every pending stored solution; never calls a solver model, never writes
    solutions."""
    with (
        heap.frozen()
    ):  # the modules and the study, out of the collector's full passes while it grades
        return _run_grade(study, options, ask, tell)


def plan(
    study: Study,
    options: GradeOptions,
    *,
    prices: PriceTable,
    items: list[Item] | None = None,
    run_id: str | None = None,
    regenerated: frozenset[tuple[str, str, int]] = frozenset(),
) -> StagePlan:
    """The grades and pairwise verdicts a grade run executes (the options' items, or
    `items`), the judges' inspect tasks and their estimate.

    `run_id` is the run's own (a `--fresh` run caches under a scope of its own);
    solutions in `regenerated` are left out (an estimate counts their grading with
    the generate plan that re-runs them).
    """
    generate, grade = select_conditions(study, options)
    pairs = select_pairwise(study, options)
    if items is None:
        items = options.items(study)
    force = options.force or options.fresh
    todo = _without(
        pending(study, generate, grade, items, force=force, only=options.only),
        regenerated,
    )
    pair_todo = pairwise_grade.pending(
        study, generate, pairs, items, force=force, only=options.only
    )
    if options.shard is not None:
        todo = shard_pending(study, grade, todo, options.shard)
        pair_todo = pairwise_grade.shard_pending(study, pairs, pair_todo, options.shard)
    # a cascade's scorers cost nothing and run now: its judge is planned, priced and
    # asked only for what they leave undecided
    judged, settled = settle_cascades(study, todo, grade, run_id=run_id or "")
    scope = lambda cid: options.cache_scope(cid, run_id or "")  # noqa: E731
    judges = [c for c in grade if not c.is_verifiable]
    specs = judge_specs(study, judged, judges, cache_scope=scope)
    lines = estimate_lines(study, todo, grade, specs, prices)
    pair_specs = pairwise_grade.task_specs(study, pair_todo, pairs, cache_scope=scope)
    if pairs:
        lines += pairwise_grade.estimate_lines(study, pair_specs, pairs, prices)
    notes = grade_superseded_notes(study, grade)
    notes += pairwise_grade.superseded_notes(study, pairs)
    return StagePlan(
        stage="grade",
        generate=tuple(generate),
        grade=tuple(grade + pairs),
        cells=todo,
        pair_cells=pair_todo,
        owners={c.id: c.grader_model or c.scorer for c in grade + pairs},
        specs=tuple([*specs, *pair_specs]),
        lines=tuple(merge_lines(lines)),
        notes=tuple(notes),
        settled=settled,
        providers=tuple(_grader_models(grade + pairs)),
    )


def _without(
    todo: pd.DataFrame, solutions: frozenset[tuple[str, str, int]]
) -> pd.DataFrame:
    """The pending grades of solutions other than these (generate condition, item,
    epoch)."""
    if not solutions or todo.empty:
        return todo
    keys = zip(todo["gen_condition_id"], todo["item_id"], todo["epoch"].astype(int))
    return todo[[key not in solutions for key in keys]].reset_index(drop=True)


def _run_grade(
    study: Study, options: GradeOptions, ask: Ask | None, tell: Tell | None
) -> StageResult:
    result = StageResult(stage="grade", study=study.config.study)
    generate, grade = select_conditions(study, options)
    pairs = select_pairwise(study, options)
    with open_run(study, "grade", result, options) as run:
        work = plan(study, options, prices=run.prices, run_id=run.run_id)
        result.conditions = work.condition_runs()
        result.notes.extend(work.notes)
        if work.empty:
            return result
        # after the no-op return: checking providers loads inspect-ai (seconds), and
        # a refusal here still comes before anything is written
        check_providers(_grader_models(grade + pairs))
        note = response_cache.shared_note(study, list(work.lines))
        if note and tell is not None:  # before the gate: it changes what is paid
            tell(note)
        hint = hints.replayed_parse_failures(
            list(work.lines),
            only=options.only,
            fresh=options.fresh,
            cache=bool(study.config.cache),
        )
        if hint:
            result.notes.append(hint)
            if tell is not None:
                tell(hint)
        run.approve(list(work.lines), ask, tell)
        run.begin(list(work.generate), list(work.grade))
        _execute(study, work, run)
    return result


def _execute(study: Study, work: StagePlan, run: Run) -> None:
    """Score the verifiable grades and write what the cascades' scorers decided,
    then run the judges' tasks on inspect."""
    summaries = {s.condition_id: s for s in run.result.conditions}
    with run.row_writer("grades") as write:
        grade_verifiable(
            study,
            work.cells,
            [c for c in work.grade if c.is_verifiable],
            summaries,
            run_id=run.run_id,
            write=write,
        )
        if work.settled.rows:
            _write_settled(work.settled, _Batches(write, summaries))
    if work.specs:
        judges = [c for c in work.grade if not c.is_verifiable]
        run.execute(list(work.specs), _judge_sink(judges, run, work.settled))


def _grader_models(conditions: list[GradeCondition]) -> list[str]:
    """The models that grade these conditions (a verifiable scorer calls none)."""
    return [m for c in conditions if not c.is_verifiable for m in c.models]
