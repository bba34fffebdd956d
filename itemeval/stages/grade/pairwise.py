"""Pairwise judging inside `itemeval grade`: pending verdicts, their inspect tasks and
their store rows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from ...engine.cache_lookup import cached_sample_ids  # noqa: I001
from ...outcomes import SampleResult
from ...paths import StudyPaths
from ...plan.cost import lines_for_specs
from ...plan.estimates import EstimateLine
from ...plan.observed import ObservedLengths
from ...plan.pairwise_state import STORE
from ...plan.pricing import PriceTable
from ...plan.state import PAIRWISE_SUPERSEDED, superseded
from ...records import (
    Cell,
    GradeCondition,
    Item,
    TaskSpec,
)
from ...store import read_store
from ...study import pairwise
from ...study.judges import Judging


def task_specs(
    paths: StudyPaths,
    items: Sequence[Item],
    todo: pd.DataFrame,
    conditions: list[GradeCondition],
    judging: Judging,
) -> list[TaskSpec]:
    """One inspect task per pairwise condition with verdicts to ask, each cell a
    rendered pair."""
    if todo.empty:
        return []
    by_id = {item.id: item for item in items}
    texts = _answers(paths, set(todo["condition_a"]) | set(todo["condition_b"]))
    specs = []
    for condition in conditions:
        group = todo[todo["grade_condition_id"] == condition.id]
        if group.empty:
            continue
        cells = [
            _cell(condition, by_id[row.item_id], row, texts)
            for row in group.itertuples(index=False)
        ]
        specs.append(
            TaskSpec(
                name=condition.id,
                model=condition.grader_model or "",
                config=judging.config(condition),
                cells=cells,
                cache_scope=judging.cache_scope(condition.id),
                metadata={
                    "itemeval_stage": "grade",
                    "grade_condition_id": condition.id,
                    "grade_kind": "pairwise",
                },
            )
        )
    return specs


def _answers(paths: StudyPaths, gen_ids: set[str]) -> dict[tuple[str, str, int], str]:
    """(generate condition, item, epoch) -> stored answer text."""
    table = read_store(
        paths,
        "solutions",
        ["condition_id", "item_id", "epoch", "solution"],
        where={"condition_id": sorted(gen_ids)},
    )
    keys = zip(
        table.column("condition_id").to_pylist(),
        table.column("item_id").to_pylist(),
        table.column("epoch").to_pylist(),
    )
    return dict(zip(keys, table.column("solution").to_pylist()))


def _cell(
    condition: GradeCondition,
    item: Item,
    row: Any,
    texts: dict[tuple[str, str, int], str],
) -> Cell:
    epoch, order = int(row.epoch), int(row.order)
    answer_a = texts.get((row.condition_a, item.id, epoch)) or ""
    answer_b = texts.get((row.condition_b, item.id, epoch)) or ""
    first, second = pairwise.shown(order, answer_a, answer_b)
    quoted = pairwise.quoted_verdicts(answer_a, answer_b)
    assert condition.rubric is not None
    return Cell(
        sample_id=f"{row.condition_a}/{row.condition_b}/{item.id}#{epoch}@{order}",
        prompt=pairwise.render_prompt(condition.rubric, item, first, second),
        metadata={
            "grade_condition_id": condition.id,
            "condition_a": row.condition_a,
            "condition_b": row.condition_b,
            "item_id": item.id,
            "replication": epoch,
            "order": order,
            "solution_hash_a": row.hash_a,
            "solution_hash_b": row.hash_b,
            "length_a": len(answer_a),
            "length_b": len(answer_b),
            **({"quoted_verdicts": quoted} if quoted else {}),
        },
    )


def verdict_row(
    condition: GradeCondition, outcome: SampleResult, *, run_id: str, usd: float | None
) -> dict[str, Any]:
    """One pairwise.parquet row from a judge call: the verdict, its parse failure, or
    the call's error."""
    meta = outcome.metadata
    a, b, order = meta["condition_a"], meta["condition_b"], int(meta["order"])
    row = {
        "grade_condition_id": condition.id,
        "grade_condition_slug": condition.slug,
        "condition_a": a,
        "condition_b": b,
        "item_id": meta["item_id"],
        "epoch": int(meta["replication"]),
        "order": order,
        "grader_name": condition.grader_name,
        "grader_model": condition.grader_model,
        "rubric_name": condition.rubric.ref if condition.rubric else None,
        "rubric_hash": condition.rubric.hash if condition.rubric else None,
        "solution_hash_a": meta["solution_hash_a"],
        "solution_hash_b": meta["solution_hash_b"],
        "length_a": meta["length_a"],
        "length_b": meta["length_b"],
        **outcome.usage,
        "usage_reported": outcome.usage_reported,
        "usd": usd,
        "cache_hit": outcome.cache_hit,
        "latency_s": outcome.latency_s,
        "log_file": outcome.log_file,
        "judge_completion": outcome.completion,
        "error": outcome.error,
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc).isoformat(),
    }
    if outcome.error is None:
        quoted = meta.get("quoted_verdicts", ())
        row.update(pairwise.verdict_columns(outcome.completion, order, a, b, quoted))
    return row


def estimate_lines(
    paths: StudyPaths,
    specs: list[TaskSpec],
    conditions: list[GradeCondition],
    prices: PriceTable,
) -> list[EstimateLine]:
    """The judge calls of exactly these verdicts, priced by their rendered prompts; the
    expected reply is as long as this condition's stored verdicts, else this model's
    replies as a pairwise or pointwise judge."""
    columns = ["grade_condition_id", "grader_model", "error", "output_tokens"]
    verdicts = read_store(paths, STORE, columns).to_pandas()
    judged = read_store(paths, "grades", [*columns, "grade_kind"]).to_pandas()
    judged = judged[judged["grade_kind"] == "judge"][columns]
    rows = pd.concat([verdicts, judged], ignore_index=True)
    return lines_for_specs(
        "grade",
        specs,
        {c.id: c.slug for c in conditions},
        observed=ObservedLengths.from_rows(rows, "grade_condition_id", "grader_model"),
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )


def superseded_notes(
    paths: StudyPaths, conditions: list[GradeCondition], current: set[str]
) -> list[str]:
    """Say when a pairwise condition's id changed under its slug (an edited rubric or
    grader): its old verdicts stay under the old id and never mix with the new ones.
    `current` holds the study's pairwise condition ids (`current_ids`)."""
    return superseded(paths, PAIRWISE_SUPERSEDED, conditions, current)
