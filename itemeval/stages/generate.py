"""Stage 1: plan the missing cells of the generate grid, run them on inspect, and
upsert one row per cell."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engine import batch, cache_origins, response_cache
from ..engine.cache_lookup import cached_sample_ids  # noqa: I001
from ..engine.providers import check_providers
from ..engine.runner import RowSink
from ..outcomes import ConditionRun, SampleResult, StageResult
from ..paths import StudyPaths
from ..plan import cells as planner
from ..plan import items as plan_items
from ..plan import shards as plan_shards
from ..plan.cost import lines_for_specs
from ..plan.estimates import EstimateLine
from ..plan.generate_tasks import call_config, task_specs
from ..plan.options import Ask, GenerateOptions, StageOptions, Tell
from ..plan.pricing import PriceTable, call_usd, format_usd, total_usd
from ..plan.stage_plan import StagePlan
from ..plan.state import (
    Stored,
    all_generated,
    observed_lengths,
    stored_of,
    superseded_notes,
)
from ..records import GenerateCondition, Item, Shard, TaskSpec
from ..store.journal import journaled_keys
from ..study.grid import generated, select
from ..study.load import Study
from .reply_notes import same_reply_notes
from .run import Run, open_run
from .run_setting import RunSetting, run_setting
from .solution_rows import solution_row


@dataclass(frozen=True)
class GenerateInputs:
    """What a generate run reads of its study, resolved once at the command."""

    setting: RunSetting
    stored: Stored
    conditions: list[GenerateCondition]
    """Every generate condition of the study (the options select among them)."""
    call_config: dict[str, Any]
    """What every call is configured with (`call_config`)."""
    cache: bool | str
    """The study's `cache:` setting."""


def inputs(study: Study) -> GenerateInputs:
    return GenerateInputs(
        setting=run_setting(study),
        stored=stored_of(study),
        conditions=study.generate,
        call_config=call_config(study.config),
        cache=study.config.cache,
    )


# ---- plan ----------------------------------------------------------------------------


def plan_cells(
    stored: Stored,
    conditions: list[GenerateCondition],
    items: list[Item],
    *,
    force: bool,
) -> tuple[pd.DataFrame, int]:
    """The (condition_id, item_id, epoch) cells this run must execute, and how many
    of them run again because their item changed since their answer."""
    merged = stored.solutions([c.id for c in conditions], [item.id for item in items])
    cells = planner.plan_generate(
        merged,
        on_empty=stored.on_empty,
        force=force,
        on_input_change=stored.on_input_change,
    )
    rerun = stored.on_input_change == "rerun" and not force
    return cells, int(planner.input_changed(merged).sum()) if rerun else 0


def shard_cells(
    paths: StudyPaths,
    conditions: list[GenerateCondition],
    cells: pd.DataFrame,
    shard: Shard,
) -> pd.DataFrame:
    """The shard's part of the planned cells, less those its own earlier journal
    parts already hold."""
    cells = cells[
        plan_shards.in_shard(
            cells, shard, "condition_id", {c.id: c.model for c in conditions}
        )
    ]
    # every part's rows, not only its own: a shard of another partition (or an
    # interrupted run) may hold a cell already, paid for
    done = journaled_keys(paths, "", "solutions", ("condition_id", "item_id", "epoch"))
    if done and len(cells):
        keep = [
            (c, i, int(e)) not in done
            for c, i, e in zip(cells["condition_id"], cells["item_id"], cells["epoch"])
        ]
        cells = cells[np.asarray(keep, dtype=bool)]
    return cells.reset_index(drop=True)


# ---- persist: a finished sample -> a store row ---------------------------------------


def _sink(items: list[Item], conditions: list[GenerateCondition], run: Run) -> RowSink:
    """Turns each finished sample into a solutions row for the journal."""
    by_id = {c.id: c for c in conditions}
    by_item = {item.id: item for item in items}

    def to_row(result: SampleResult) -> tuple[str, dict[str, Any]]:
        meta = result.metadata
        condition = by_id[meta["condition_id"]]
        usd = call_usd(
            run.prices.lookup(condition.model), result.usage, cache_hit=result.cache_hit
        )
        row = solution_row(
            condition,
            by_item[meta["item_id"]],
            int(meta["replication"]),
            result,
            run_id=run.run_id,
            usd=usd,
        )
        return "solutions", row

    return to_row


# ---- execute -------------------------------------------------------------------------


def run_generate(
    study: Study,
    options: GenerateOptions,
    *,
    ask: Ask | None = None,
    tell: Tell | None = None,
) -> StageResult:
    """Run every missing cell of the selected generate conditions; safe to interrupt and
    re-run.

    With `pilot`, first a random `pilot` items (the same for every condition) run as a
    run of their own; the rest is then estimated from their replies and the spend gate
    holds that projection's upper bound.
    """
    given = inputs(study)
    items = options.chosen(given.setting.items)
    if options.pilot is None:
        return _run_generate(given, options, items, ask=ask, tell=tell)
    pilot = _pilot(given, options, items, ask=ask, tell=tell)
    if pilot.outcome != "completed":
        return pilot
    result = _run_generate(given, options, items, ask=ask, tell=tell)
    result.notes.insert(
        0,
        f"pilot: {sum(c.rows for c in pilot.conditions)} cells ran first (run "
        f"{pilot.run_id}, "
        f"spend {format_usd(total_usd(c.usd for c in pilot.conditions))}); the "
        "rest was "
        "estimated from their replies",
    )
    return result


def run_pilot(
    study: Study,
    options: StageOptions,
    items: list[Item],
    *,
    ask: Ask | None = None,
    tell: Tell | None = None,
) -> StageResult:
    """Generate `options.pilot` random items of `items` (drawn with `options.seed`)
    for every selected condition."""
    return _pilot(inputs(study), options, items, ask=ask, tell=tell)


def _pilot(
    given: GenerateInputs,
    options: StageOptions,
    items: list[Item],
    *,
    ask: Ask | None,
    tell: Tell | None,
) -> StageResult:
    chosen = plan_items.choose_items(
        items, sample=options.pilot, seed=options.seed, stratify=options.stratify
    )
    pilot_options = GenerateOptions(
        **{**asdict(options), "pilot": None, "fresh": False, "force": False}
    )
    return _run_generate(given, pilot_options, chosen, ask=ask, tell=tell)


def plan(
    given: GenerateInputs,
    options: StageOptions,
    *,
    prices: PriceTable,
    items: list[Item],
    conditions: list[GenerateCondition] | None = None,
    run_id: str | None = None,
) -> StagePlan:
    """The cells a generate run executes (the selected conditions, or `conditions`)
    over `items`, their inspect tasks and their estimate.

    `run_id` is the run's own (a `--fresh` run caches under a scope of its own).
    """
    if conditions is None:
        conditions = select(generated(given.conditions), list(options.conditions))
    paths = given.setting.paths
    cells, changed = _cells(given, options, conditions, items)
    specs = task_specs(
        given.setting.items,
        conditions,
        cells,
        config=given.call_config,
        cache_scope=lambda cid: response_cache.scope(
            given.cache, paths, options.cache_scope(cid, run_id or "")
        ),
    )
    return StagePlan(
        stage="generate",
        generate=tuple(conditions),
        grade=(),
        cells=cells,
        owners={c.id: c.model for c in conditions},
        specs=tuple(specs),
        lines=tuple(_lines(paths, conditions, specs, prices)),
        notes=tuple(
            _superseded(given, conditions) + _changed_note(changed) + agent_note(specs)
        ),
        providers=tuple(c.model for c in conditions),
    )


def _cells(
    given: GenerateInputs,
    options: StageOptions,
    conditions: list[GenerateCondition],
    items: list[Item],
) -> tuple[pd.DataFrame, int]:
    """The cells to run: the missing ones (every one, with --force or --fresh); a
    shard's own part only. And how many run again for a changed item."""
    force = options.force or options.fresh
    cells, changed = plan_cells(given.stored, conditions, items, force=force)
    if options.shard is None:
        return cells, changed
    return shard_cells(given.setting.paths, conditions, cells, options.shard), changed


def agent_note(specs: list[TaskSpec]) -> list[str]:
    """How an agent condition's figures were reached, when one has cells to run."""
    if not any(spec.agent is not None and spec.cells for spec in specs):
        return []
    return [
        "agent conditions: their ceiling is their limits' worst case and their calls "
        "at most their message limit (a token_limit bounds them tightly); once some "
        "of their cells are stored (--pilot N), the expected spend comes from the "
        "trajectories seen"
    ]


def _changed_note(changed: int) -> list[str]:
    if not changed:
        return []
    return [
        f"{changed} cell(s) run again: their item changed since their answer was "
        "written (its rendered input differs; solvers.on_input_change: keep would "
        "keep them, flagged)"
    ]


def _lines(
    paths: StudyPaths,
    conditions: list[GenerateCondition],
    specs: list[TaskSpec],
    prices: PriceTable,
) -> list[EstimateLine]:
    """The estimate of these tasks (less the cells open batches hold)."""
    return lines_for_specs(
        "generate",
        batch.without_held(paths, "generate", specs),
        {c.id: c.slug for c in conditions},
        observed=observed_lengths(paths, "generate"),
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )


def _superseded(
    given: GenerateInputs, conditions: list[GenerateCondition]
) -> list[str]:
    current = {c.id for c in given.conditions}
    return superseded_notes(given.setting.paths, conditions, current)


def _run_generate(
    given: GenerateInputs,
    options: GenerateOptions,
    items: list[Item],
    *,
    ask: Ask | None,
    tell: Tell | None,
) -> StageResult:
    conditions = select(generated(given.conditions), list(options.conditions))
    result = StageResult(stage="generate", study=given.setting.name)
    idle = _idle(given.stored, options, conditions, items)
    if not idle:
        # Loading inspect-ai takes seconds: a run that has nothing to do (every cell
        # stored) skips it.
        check_providers([c.model for c in conditions])
    with open_run(given.setting, "generate", result, options) as run:
        if idle and not any(result.recovered.values()):
            # nothing to plan: no pandas merges, task specs or estimate (issue 27)
            result.conditions = [ConditionRun(c.id, c.slug) for c in conditions]
            result.notes.extend(_superseded(given, conditions))
            return result
        work = plan(
            given,
            options,
            conditions=conditions,
            items=items,
            prices=run.prices,
            run_id=run.run_id,
        )
        result.conditions = work.condition_runs()
        result.notes.extend(work.notes)
        if not work.empty:
            _execute(work, run, given, ask, tell)
    return result


def _idle(
    stored: Stored,
    options: StageOptions,
    conditions: list[GenerateCondition],
    items: list[Item],
) -> bool:
    """Whether every cell is stored already (and nothing asks to run them again)."""
    return not (options.force or options.fresh) and all_generated(
        stored.paths,
        [c.id for c in conditions],
        [item.id for item in items],
        replications=stored.replications,
        on_empty=stored.on_empty,
        inputs=stored.inputs if stored.on_input_change == "rerun" else None,
    )


def _execute(
    work: StagePlan,
    run: Run,
    given: GenerateInputs,
    ask: Ask | None,
    tell: Tell | None,
) -> None:
    """Gate the plan, begin the run and run its tasks on inspect."""
    setting = given.setting
    origin = cache_origins.where(setting.name, setting.paths)
    note = response_cache.shared_note(given.cache, origin, work.lines)
    if note and tell is not None:  # before the gate: it changes what is paid
        tell(note)
    run.approve(list(work.lines), ask, tell)
    conditions = list(work.generate)
    run.begin(conditions, [])
    run.execute(work.specs, _sink(setting.items, conditions, run))
    if run.options.shard is None:  # a shard's rows are in its journal part only
        run.result.notes.extend(same_reply_notes(setting.paths, conditions))
