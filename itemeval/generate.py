"""Stage 1: plan the missing cells of the generate grid, run them on inspect, and upsert one row per cell."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from . import plan
from .grid import select
from .hashing import canonical_json, text_hash
from .prompts import render
from .records import SAMPLING_PARAMS, Cell, GenerateCondition, Item, TaskSpec
from .run import ConditionRun, RunContext, StageOptions, StageResult, open_run
from .status import solution_state
from .store import read_store
from .study import Study, load_study

_PARAM_COLUMNS = {name: ("reasoning_budget" if name == "reasoning_tokens" else name) for name in SAMPLING_PARAMS}


@dataclass(frozen=True)
class GenerateOptions(StageOptions):
    """What `itemeval generate` was asked to do."""


# ---- plan ---------------------------------------------------------------------------------------------


def plan_cells(study: Study, conditions: list[GenerateCondition], items: list[Item], *, force: bool) -> pd.DataFrame:
    """The (condition_id, item_id, epoch) cells this run must execute."""
    merged = solution_state(study, [c.id for c in conditions], [item.id for item in items])
    return plan.plan_generate(merged, on_empty=study.config.solvers.on_empty, force=force)


def render_prompt(condition: GenerateCondition, item: Item) -> str:
    return render(condition.prompt.text, {**item.metadata, "input": item.input, "id": item.id})


# ---- persist: a finished sample -> a store row -----------------------------------------------------------


def solution_row(
    condition: GenerateCondition, item: Item, epoch: int, result: Any, *, run_id: str, log_file: str | None,
    usd: float | None,
) -> dict[str, Any]:
    """One solutions.parquet row from what inspect reported for a cell (`result` is a SampleResult)."""
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
        **{column: condition.params.get(name) for name, column in _PARAM_COLUMNS.items()},
        **{f"effective_{column}": effective.get(name) for name, column in _PARAM_COLUMNS.items()},
        "effective_config": canonical_json(effective) if effective else None,
        "solution": text,
        "solution_hash": text_hash(text),
        "blank": result.error is None and not (text or "").strip(),
        "stop_reason": result.stop_reason,
        "error": result.error,
        **result.usage,
        "usd": usd,
        "cache_hit": result.cache_hit,
        "latency_s": result.latency_s,
        "run_id": run_id,
        "log_file": log_file,
        "sample_uuid": result.uuid,
        "created_at": datetime.now(timezone.utc).isoformat(),
    }


# ---- execute --------------------------------------------------------------------------------------------


def run_generate(config_path: str | Path, base_dir: str | Path | None, options: GenerateOptions,
                 *, ask: Callable[[str], bool] | None = None,
                 tell: Callable[[str], None] | None = None) -> StageResult:
    """Run every missing cell of the selected generate conditions; safe to interrupt and re-run."""
    study = load_study(config_path, base_dir)  # everything is validated before anything is written
    conditions = select(study.generate, list(options.conditions))
    items = study.items[: options.limit] if options.limit is not None else study.items
    result = StageResult(stage="generate", study=study.config.study)
    with open_run(study, "generate", result, options) as run:
        cells = plan_cells(study, conditions, items, force=options.force)
        result.conditions = _summaries(conditions, cells)
        result.notes.extend(superseded_notes(study, conditions))
        if cells.empty:
            return result
        from .estimate import lines_for_specs

        specs = task_specs(study, conditions, cells)
        slugs = {c.id: c.slug for c in conditions}
        run.approve(lines_for_specs("generate", specs, slugs, study, run.prices), ask, tell)
        run.begin(conditions, [])
        run.execute(specs, sink=_sink(study, conditions, result))
    return result


def superseded_notes(study: Study, conditions: list[GenerateCondition]) -> list[str]:
    """Say when a condition's id changed under its slug (an edited template or setting, SPEC §6): old rows stay put."""
    stored = read_store(study.paths, "solutions", ["condition_id", "condition_slug"]).to_pandas()
    current = {c.id for c in study.generate}
    notes = []
    for condition in conditions:
        old = stored[(stored["condition_slug"] == condition.slug) & ~stored["condition_id"].isin(current)]
        for old_id, rows in old.groupby("condition_id"):
            notes.append(f"{condition.slug}: its prompt or settings changed, so its id is now {condition.id}; "
                         f"the {len(rows)} rows stored under the old id {old_id} stay there and never mix with it")
    return notes


def _batch(study: Study) -> dict[str, Any]:
    batch = study.config.budget.batch
    return {"batch": batch} if batch else {}


def _summaries(conditions: list[GenerateCondition], cells: pd.DataFrame) -> list[ConditionRun]:
    planned = cells.groupby("condition_id").size().to_dict() if not cells.empty else {}
    return [ConditionRun(c.id, c.slug, planned=int(planned.get(c.id, 0))) for c in conditions]


def task_specs(study: Study, conditions: list[GenerateCondition], cells: pd.DataFrame) -> list[Any]:
    items = {item.id: item for item in study.items}
    solvers = study.config.solvers
    runtime = solvers.inspect_limits()
    specs = []
    by_condition = {cid: frame for cid, frame in cells.groupby("condition_id", sort=False)}
    for condition in conditions:
        frame = by_condition.get(condition.id)
        if frame is None:
            continue
        task_cells = [
            Cell(sample_id=f"{item_id}#{epoch}", prompt=render_prompt(condition, items[item_id]),
                 metadata={"condition_id": condition.id, "item_id": item_id, "replication": int(epoch)})
            for item_id, epoch in zip(frame["item_id"], frame["epoch"])
        ]
        config = {**condition.params, **runtime, **_batch(study)}
        specs.append(TaskSpec(name=condition.id, model=condition.model, config=config, cells=task_cells,
                              cache_scope=condition.id if study.config.cache else None,
                              metadata={"itemeval_stage": "generate", "condition_id": condition.id}))
    return specs


def _sink(study: Study, conditions: list[GenerateCondition], result: StageResult) -> Callable[..., Any]:
    """Turns each finished sample into a solutions row for the journal, counting it for the summary."""
    by_id = {c.id: c for c in conditions}
    items = {item.id: item for item in study.items}
    summaries = {s.condition_id: s for s in result.conditions}

    def to_row(run: RunContext, sample: Any, outcome: Any, log_file: str | None) -> tuple[str, dict[str, Any]]:
        meta = sample.metadata
        condition = by_id[meta["condition_id"]]
        usd = run.cost(condition.model, outcome)
        row = solution_row(condition, items[meta["item_id"]], int(meta["replication"]), outcome,
                           run_id=run.run_id, log_file=log_file, usd=usd)
        summaries[condition.id].add(row)
        return "solutions", row

    return to_row


def default_display() -> str:
    return "rich" if sys.stdout.isatty() else "none"
