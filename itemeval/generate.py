"""Stage 1: plan the missing cells of the generate grid, run them on inspect, and
upsert one row per cell."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

import pandas as pd

from . import batch, cache_origins, chat, response_cache
from . import plan as planner
from .cache_lookup import cached_sample_ids  # noqa: I001
from .cost import lines_for_specs
from .grid import generated, select
from .hashing import canonical_json, text_hash
from .outcomes import ConditionRun, SampleResult, StageResult
from .paths import StudyPaths
from .pricing import PriceTable, call_usd, format_usd, total_usd
from .records import SAMPLING_PARAMS, Cell, GenerateCondition, Item, TaskSpec
from .run import Ask, Run, StageOptions, Tell, check_providers, open_run
from .runner import RowSink
from .stage_plan import StagePlan
from .state import (
    Stored,
    all_generated,
    observed_lengths,
    stored_of,
    superseded_notes,
)
from .store.journal import journaled_keys
from .study import Study

if TYPE_CHECKING:
    from .config import StudyConfig


@dataclass(frozen=True)
class GenerateOptions(StageOptions):
    """What `itemeval generate` was asked to do."""


# ---- plan ----------------------------------------------------------------------------


def plan_cells(
    stored: Stored,
    conditions: list[GenerateCondition],
    items: list[Item],
    *,
    force: bool,
) -> pd.DataFrame:
    """The (condition_id, item_id, epoch) cells this run must execute."""
    merged = stored.solutions([c.id for c in conditions], [item.id for item in items])
    return planner.plan_generate(merged, on_empty=stored.on_empty, force=force)


def shard_cells(
    paths: StudyPaths,
    conditions: list[GenerateCondition],
    cells: pd.DataFrame,
    shard: planner.Shard,
) -> pd.DataFrame:
    """The shard's part of the planned cells, less those its own earlier journal
    parts already hold."""
    cells = cells[
        planner.in_shard(
            cells, shard, "condition_id", {c.id: c.model for c in conditions}
        )
    ]
    done = journaled_keys(
        paths, shard.tag, "solutions", ("condition_id", "item_id", "epoch")
    )
    if done:
        keep = [
            (c, i, int(e)) not in done
            for c, i, e in zip(cells["condition_id"], cells["item_id"], cells["epoch"])
        ]
        cells = cells[keep]
    return cells.reset_index(drop=True)


def render_messages(condition: GenerateCondition, item: Item) -> list[chat.Message]:
    """What one item is sent: the prompt's system message and shots, then its turn."""
    values = {**item.metadata, "input": item.input, "id": item.id}
    return chat.render_chat(condition.prompt.text, values)


def render_prompt(condition: GenerateCondition, item: Item) -> str:
    """The whole chat as text (just the prompt when it has no front matter)."""
    return chat.as_text(render_messages(condition, item))


def _cell(condition: GenerateCondition, item: Item, epoch: int) -> Cell:
    *preamble, (_, prompt) = render_messages(condition, item)
    return Cell(
        sample_id=f"{item.id}#{epoch}",
        prompt=prompt,
        metadata={
            "condition_id": condition.id,
            "item_id": item.id,
            "replication": epoch,
            **_history(item),
        },
        preamble=tuple(preamble),
    )


def call_config(config: StudyConfig) -> dict[str, Any]:
    """What every generate call is configured with besides its condition's sampling
    parameters: the solvers' limits, and batch mode when it is on."""
    batch = config.budget.batch
    return {**config.solvers.inspect_limits(), **({"batch": batch} if batch else {})}


def task_specs(
    items: list[Item],
    conditions: list[GenerateCondition],
    cells: pd.DataFrame,
    *,
    config: dict[str, Any],
    cache_scope: Callable[[str], str | None],
) -> list[TaskSpec]:
    """One inspect task per condition with cells to run; each sample is one (item,
    replication) of `items`.

    `config` is every call's (`call_config`) over the condition's own parameters;
    `cache_scope` maps a condition id to its response-cache scope (None: no cache).
    """
    by_item = {item.id: item for item in items}
    by_condition = {
        cid: frame for cid, frame in cells.groupby("condition_id", sort=False)
    }
    specs = []
    for condition in (c for c in conditions if c.id in by_condition):
        frame = by_condition[condition.id]
        task_cells = [
            _cell(condition, by_item[item_id], int(epoch))
            for item_id, epoch in zip(frame["item_id"], frame["epoch"])
        ]
        specs.append(
            TaskSpec(
                name=condition.id,
                model=condition.model,
                config={**condition.params, **config},
                cells=task_cells,
                cache_scope=cache_scope(condition.id),
                metadata={"itemeval_stage": "generate", "condition_id": condition.id},
            )
        )
    return specs


def _history(item: Item) -> dict[str, Any]:
    """An inspect task's chat turns before the input, sent before the rendered
    prompt."""
    turns = item.metadata.get("inspect_messages")
    return {"history": turns} if turns else {}


# ---- persist: a finished sample -> a store row ---------------------------------------


def solution_row(
    condition: GenerateCondition,
    item: Item,
    epoch: int,
    result: SampleResult,
    *,
    run_id: str,
    usd: float | None,
) -> dict[str, Any]:
    """One solutions.parquet row from what inspect reported for a cell."""
    effective = result.effective_config
    text = result.completion
    return {
        "condition_id": condition.id,
        "condition_slug": condition.slug,
        "item_id": item.id,
        "dataset_id": item.dataset_id,
        "dataset_revision": item.dataset_revision,
        "epoch": epoch,
        "model": condition.model,
        "prompt_name": condition.prompt.ref,
        "prompt_hash": condition.prompt.hash,
        "model_config_name": condition.model_config_name,
        **{param.column: condition.params.get(param.name) for param in SAMPLING_PARAMS},
        **{
            f"effective_{param.column}": effective.get(param.name)
            for param in SAMPLING_PARAMS
        },
        "effective_config": canonical_json(effective) if effective else None,
        "solution": text,
        "solution_hash": text_hash(text),
        "blank": result.error is None and not (text or "").strip(),
        "stop_reason": result.stop_reason,
        "logprobs": result.logprobs,
        "error": result.error,
        **result.usage,
        "usd": usd,
        "cache_hit": result.cache_hit,
        "latency_s": result.latency_s,
        "run_id": run_id,
        "log_file": result.log_file,
        "sample_uuid": result.uuid,
        "created_at": datetime.now(timezone.utc).isoformat(),
    }


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
    items = options.items(study)
    if options.pilot is None:
        return _run_generate(study, options, items, ask=ask, tell=tell)
    pilot = run_pilot(study, options, items, ask=ask, tell=tell)
    if pilot.outcome != "completed":
        return pilot
    result = _run_generate(study, options, items, ask=ask, tell=tell)
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
    chosen = planner.choose_items(
        items, sample=options.pilot, seed=options.seed, stratify=options.stratify
    )
    pilot_options = GenerateOptions(
        **{**asdict(options), "pilot": None, "fresh": False, "force": False}
    )
    return _run_generate(study, pilot_options, chosen, ask=ask, tell=tell)


def plan(
    study: Study,
    options: StageOptions,
    *,
    prices: PriceTable,
    conditions: list[GenerateCondition] | None = None,
    items: list[Item] | None = None,
    run_id: str | None = None,
) -> StagePlan:
    """The cells a generate run executes (the selected conditions, or `conditions`;
    the options' items, or `items`), their inspect tasks and their estimate.

    `run_id` is the run's own (a `--fresh` run caches under a scope of its own).
    """
    if conditions is None:
        conditions = select(generated(study.generate), list(options.conditions))
    if items is None:
        items = options.items(study)
    cells = plan_cells(
        stored_of(study), conditions, items, force=options.force or options.fresh
    )
    if options.shard is not None:
        cells = shard_cells(study.paths, conditions, cells, options.shard)
    specs = task_specs(
        study.items,
        conditions,
        cells,
        config=call_config(study.config),
        cache_scope=lambda cid: response_cache.scope(
            study.config.cache, study.paths, options.cache_scope(cid, run_id or "")
        ),
    )
    lines = lines_for_specs(
        "generate",
        batch.without_held(study.paths, "generate", specs),
        {c.id: c.slug for c in conditions},
        observed=observed_lengths(study.paths, "generate"),
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )
    return StagePlan(
        stage="generate",
        generate=tuple(conditions),
        grade=(),
        cells=cells,
        owners={c.id: c.model for c in conditions},
        specs=tuple(specs),
        lines=tuple(lines),
        notes=tuple(
            superseded_notes(study.paths, conditions, {c.id for c in study.generate})
        ),
        providers=tuple(c.model for c in conditions),
    )


def _run_generate(
    study: Study,
    options: GenerateOptions,
    items: list[Item],
    *,
    ask: Ask | None,
    tell: Tell | None,
) -> StageResult:
    conditions = select(generated(study.generate), list(options.conditions))
    result = StageResult(stage="generate", study=study.config.study)
    idle = not (options.force or options.fresh) and all_generated(
        study.paths,
        [c.id for c in conditions],
        [item.id for item in items],
        replications=study.replications,
        on_empty=study.config.solvers.on_empty,
    )
    if not idle:
        # Loading inspect-ai takes seconds: a run that has nothing to do (every cell
        # stored) skips it.
        check_providers([c.model for c in conditions])
    with open_run(study, "generate", result, options) as run:
        if idle and not any(result.recovered.values()):
            # nothing to plan: no pandas merges, task specs or estimate (issue 27)
            result.conditions = [ConditionRun(c.id, c.slug) for c in conditions]
            current = {c.id for c in study.generate}
            result.notes.extend(superseded_notes(study.paths, conditions, current))
            return result
        work = plan(
            study,
            options,
            conditions=conditions,
            items=items,
            prices=run.prices,
            run_id=run.run_id,
        )
        result.conditions = work.condition_runs()
        result.notes.extend(work.notes)
        if work.empty:
            return result
        origin = cache_origins.where(study.config.study, study.paths)
        note = response_cache.shared_note(study.config.cache, origin, work.lines)
        if note and tell is not None:  # before the gate: it changes what is paid
            tell(note)
        run.approve(list(work.lines), ask, tell)
        run.begin(conditions, [])
        run.execute(work.specs, _sink(study.items, conditions, run))
    return result
