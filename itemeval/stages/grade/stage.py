"""Stage 2: fan verifiable scorers and LLM judges out over stored solutions into
grades.parquet."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pandas as pd

from ... import heap
from ...engine import batch, cache_origins, response_cache
from ...engine.cache_lookup import cached_sample_ids  # noqa: I001
from ...engine.providers import check_providers
from ...outcomes import NOTHING_TO_GRADE, StageResult
from ...paths import StudyPaths
from ...plan import hints, pairwise_state
from ...plan.cost import (
    Calls,
    ObservedLengths,
    estimate_tokens,
    line_for,
    lines_for_specs,
    merge_lines,
    scorer_line,
)
from ...plan.estimates import EstimateLine
from ...plan.grade_select import pending, select_grade, shard_pending
from ...plan.options import Ask, GradeOptions, Tell
from ...plan.pricing import PriceTable
from ...plan.stage_plan import StagePlan
from ...plan.state import (
    Stored,
    grade_ids,
    grade_superseded_notes,
    observed_lengths,
    stored_of,
)
from ...records import GenerateCondition, GradeCondition, Item, TaskSpec
from ...store import read_store
from ...study.judges import Judging
from ...study.load import Study
from ..run import Run, open_run
from ..run_setting import RunSetting, run_setting
from . import pairwise as pairwise_grade
from .cascade import settle_cascades, write_settled
from .judge import judge_sink, judge_specs
from .verifiable import Batches, Solutions, grade_verifiable

if TYPE_CHECKING:
    from ...study.config import Grader

MODEL_GRADED_TEMPLATE_TOKENS = 250
"""Tokens of inspect's model-graded template and instructions around the question,
answer and criterion."""


@dataclass(frozen=True)
class GradeInputs:
    """What a grade run reads of its study, resolved once at the command: the
    conditions its options select (`select_grade`) and what planning hands on."""

    setting: RunSetting
    stored: Stored
    solutions: Solutions
    generate: list[GenerateCondition]
    grade: list[GradeCondition]
    pairs: list[GradeCondition]
    """The selected pairwise conditions."""
    graders: dict[str, Grader]
    """The study's `graders:` entries."""
    cache: bool | str
    """The study's `cache:` setting."""
    current: set[str]
    """Every grade condition id of the study (`state.grade_ids`)."""
    current_pairs: set[str]
    """Every pairwise condition id of the study (`pairwise_state.current_ids`)."""


def inputs(study: Study, options: GradeOptions) -> GradeInputs:
    """The study as a grade run with these options reads it; refuses a --condition,
    --grader or --rubric that selects nothing."""
    generate, grade, pairs = select_grade(study, options)
    return GradeInputs(
        setting=run_setting(study),
        stored=stored_of(study),
        solutions=Solutions(study.paths, study.items, study.loaded.config_dir),
        generate=generate,
        grade=grade,
        pairs=pairs,
        graders=study.config.graders,
        cache=study.config.cache,
        current=grade_ids(study),
        current_pairs=pairwise_state.current_ids(study),
    )


def estimate_lines(
    paths: StudyPaths,
    todo: pd.DataFrame,
    grade: list[GradeCondition],
    specs: list[TaskSpec],
    prices: PriceTable,
) -> list[EstimateLine]:
    """The estimate of exactly this plan: judges by their rendered prompts, scorers
    at no cost, and each model of a model-graded scorer by the question, solution and
    target it is shown (plus its template)."""
    observed = observed_lengths(paths, "grade")
    lines = lines_for_specs(
        "grade",
        batch.without_held(paths, "grade", [s for s in specs if s.scorer is None]),
        {c.id: c.slug for c in grade},
        observed=observed,
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )
    by_id = {c.id: c for c in grade}
    for spec in (s for s in specs if s.scorer is not None):
        lines += _model_graded_lines(by_id[spec.name], spec, observed, prices)
    for condition in (c for c in grade if c.is_verifiable):
        lines.append(
            scorer_line(
                condition, int((todo["grade_condition_id"] == condition.id).sum())
            )
        )
    return merge_lines(lines)


def _model_graded_lines(
    condition: GradeCondition,
    spec: TaskSpec,
    observed: ObservedLengths,
    prices: PriceTable,
) -> list[EstimateLine]:
    """A model-graded scorer's task, a line per model of its panel: each reads the
    question, the solution and the target in its template."""
    tokens = sum(
        estimate_tokens(
            f"{cell.prompt}\n{cell.metadata['solution']}\n{cell.metadata['targets']}"
        )
        + MODEL_GRADED_TEMPLATE_TOKENS
        for cell in spec.cells
    )
    return [
        line_for(
            Calls(
                "grade",
                condition.id,
                condition.slug,
                model,
                calls=len(spec.cells),
                input_tokens=tokens,
                max_tokens=spec.config.get("max_tokens"),
            ),
            observed=observed,
            prices=prices,
        )
        for model in condition.models
    ]


def run_grade(
    study: Study,
    options: GradeOptions,
    *,
    ask: Ask | None = None,
    tell: Tell | None = None,
) -> StageResult:
    """Grade every pending stored solution; never calls a solver model, never writes
    solutions."""
    # the modules and the study, out of the collector's full passes while it grades
    with heap.frozen():
        return _run_grade(inputs(study, options), options, ask, tell)


def plan(
    given: GradeInputs,
    options: GradeOptions,
    *,
    prices: PriceTable,
    items: list[Item],
    run_id: str | None = None,
    regenerated: frozenset[tuple[str, str, int]] = frozenset(),
) -> StagePlan:
    """The grades and pairwise verdicts a grade run executes over `items`, the
    judges' inspect tasks and their estimate.

    `run_id` is the run's own (a `--fresh` run caches under a scope of its own);
    solutions in `regenerated` are left out (an estimate counts their grading with
    the generate plan that re-runs them).
    """
    todo, pair_todo = _pending(given, items, options, regenerated)
    paths = given.setting.paths
    judging = Judging(
        given.graders,
        given.setting.batch,
        lambda cid: response_cache.scope(
            given.cache, paths, options.cache_scope(cid, run_id or "")
        ),
    )
    work = _tasks(given, judging, todo, pair_todo, prices, run_id)
    notes = grade_superseded_notes(paths, given.grade, given.current)
    notes += pairwise_grade.superseded_notes(paths, given.pairs, given.current_pairs)
    return replace(work, generate=tuple(given.generate), notes=tuple(notes))


def _pending(
    given: GradeInputs,
    items: list[Item],
    options: GradeOptions,
    regenerated: frozenset[tuple[str, str, int]],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pending grades and pairwise verdicts of the selected conditions over these
    items, less those of `regenerated` solutions; a shard's own part only."""
    force = options.force or options.fresh
    stored, generate, grade, pairs = (
        given.stored,
        given.generate,
        given.grade,
        given.pairs,
    )
    todo = _without(
        pending(stored, generate, grade, items, force=force, only=options.only),
        regenerated,
    )
    pair_todo = pairwise_state.pending(
        stored, generate, pairs, items, force=force, only=options.only
    )
    if options.shard is not None:
        paths, shard = stored.paths, options.shard
        todo = shard_pending(paths, grade, todo, shard)
        pair_todo = pairwise_state.shard_pending(paths, pairs, pair_todo, shard)
    return todo, pair_todo


def _tasks(
    given: GradeInputs,
    judging: Judging,
    todo: pd.DataFrame,
    pair_todo: pd.DataFrame,
    prices: PriceTable,
    run_id: str | None,
) -> StagePlan:
    """The plan of these pending cells: the cascades settled, the judges' inspect
    tasks and the estimate (its generate conditions and notes left to `plan`)."""
    solutions, grade, pairs = given.solutions, given.grade, given.pairs
    # a cascade's scorers cost nothing and run now: its judge is planned, priced and
    # asked only for what they leave undecided
    judged, settled = settle_cascades(solutions, todo, grade, run_id=run_id or "")
    judges = [c for c in grade if not c.is_verifiable]
    specs = judge_specs(solutions, judged, judges, judging)
    paths = solutions.paths
    lines = estimate_lines(paths, todo, grade, specs, prices)
    pair_specs = pairwise_grade.task_specs(
        paths, solutions.items, pair_todo, pairs, judging
    )
    if pairs:
        lines += pairwise_grade.estimate_lines(paths, pair_specs, pairs, prices)
    return StagePlan(
        stage="grade",
        generate=(),
        grade=tuple(grade + pairs),
        cells=todo,
        pair_cells=pair_todo,
        owners={c.id: c.grader_model or c.scorer for c in grade + pairs},
        specs=tuple([*specs, *pair_specs]),
        lines=tuple(merge_lines(lines)),
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


def _nothing_generated(given: GradeInputs) -> list[str]:
    """Grade before any generate: say so, rather than that every cell is done."""
    stored = read_store(
        given.setting.paths,
        "solutions",
        ["condition_id"],
        where={"condition_id": [c.id for c in given.generate]},
    )
    return [NOTHING_TO_GRADE] if stored.num_rows == 0 else []


def _run_grade(
    given: GradeInputs, options: GradeOptions, ask: Ask | None, tell: Tell | None
) -> StageResult:
    # --condition, --grader and --rubric were checked before the lock is taken
    # (`inputs`)
    result = StageResult(stage="grade", study=given.setting.name)
    with open_run(given.setting, "grade", result, options) as run:
        items = options.chosen(given.setting.items)
        work = plan(given, options, prices=run.prices, items=items, run_id=run.run_id)
        result.conditions = work.condition_runs()
        result.notes.extend(work.notes)
        if work.empty:
            result.notes.extend(_nothing_generated(given))
            return result
        # after the no-op return: checking providers loads inspect-ai (seconds), and
        # a refusal here still comes before anything is written
        check_providers(_grader_models(given.grade + given.pairs))
        _before_gate(given, work, options, result, tell)
        run.approve(list(work.lines), ask, tell)
        run.begin(list(work.generate), list(work.grade))
        _execute(work, run, given.solutions)
    return result


def _before_gate(
    given: GradeInputs,
    work: StagePlan,
    options: GradeOptions,
    result: StageResult,
    tell: Tell | None,
) -> None:
    """What changes what is paid, said before the gate: how many calls the shared
    cache answers, and that cached parse failures replay without --fresh."""
    origin = cache_origins.where(given.setting.name, given.setting.paths)
    note = response_cache.shared_note(given.cache, origin, list(work.lines))
    if note and tell is not None:
        tell(note)
    hint = hints.replayed_parse_failures(
        list(work.lines),
        only=options.only,
        fresh=options.fresh,
        cache=bool(given.cache),
    )
    if hint:
        result.notes.append(hint)
        if tell is not None:
            tell(hint)


def _execute(work: StagePlan, run: Run, solutions: Solutions) -> None:
    """Score the verifiable grades and write what the cascades' scorers decided,
    then run the judges' tasks on inspect."""
    summaries = {s.condition_id: s for s in run.result.conditions}
    with run.row_writer("grades") as write:
        grade_verifiable(
            solutions,
            work.cells,
            [c for c in work.grade if c.is_verifiable],
            summaries,
            run_id=run.run_id,
            write=write,
        )
        if work.settled.rows:
            write_settled(work.settled, Batches(write, summaries))
    if work.specs:
        judges = [c for c in work.grade if not c.is_verifiable]
        sink = judge_sink(judges, run.prices, run.run_id, work.settled)
        run.execute(list(work.specs), sink)


def _grader_models(conditions: list[GradeCondition]) -> list[str]:
    """The models that grade these conditions (a verifiable scorer calls none)."""
    return [m for c in conditions if not c.is_verifiable for m in c.models]
