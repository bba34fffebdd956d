"""A finished generate sample as one solutions.parquet row."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..hashing import canonical_json, text_hash
from ..outcomes import SampleResult
from ..records import SAMPLING_PARAMS, GenerateCondition, Item


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
        "input_hash": result.metadata.get("input_hash"),
        "model_config_name": condition.model_config_name,
        "solver": condition.solver,
        **_sampling(condition.params, result.effective_config),
        **_reply(result),
        **_trajectory(result),
        "usd": usd,
        "cache_hit": result.cache_hit,
        "latency_s": result.latency_s,
        "run_id": run_id,
        "log_file": result.log_file,
        "sample_uuid": result.uuid,
        "created_at": datetime.now(timezone.utc).isoformat(),
    }


def _sampling(requested: dict[str, Any], effective: dict[str, Any]) -> dict[str, Any]:
    """The sampling parameters the condition asked for, and those inspect sent."""
    return {
        **{param.column: requested.get(param.name) for param in SAMPLING_PARAMS},
        **{
            f"effective_{param.column}": effective.get(param.name)
            for param in SAMPLING_PARAMS
        },
        "effective_config": canonical_json(effective) if effective else None,
    }


def _trajectory(result: SampleResult) -> dict[str, Any]:
    """An agent cell's turns, tool calls, the limit it hit and its compact
    transcript; nulls for one plain call."""
    found = result.trajectory
    return {
        "turns": found.turns if found else None,
        "tool_calls": found.tool_calls if found else None,
        "tools_used": found.tools_used if found else None,
        "limit_hit": result.limit_hit,
        "transcript": found.transcript if found else None,
    }


def _reply(result: SampleResult) -> dict[str, Any]:
    """The model's reply: its text, how it stopped, its logprobs, error and usage."""
    text = result.completion
    return {
        "solution": text,
        "solution_hash": text_hash(text),
        "blank": result.error is None and not (text or "").strip(),
        "stop_reason": result.stop_reason,
        "logprobs": result.logprobs,
        "error": result.error,
        **result.usage,
        "usage_reported": result.usage_reported,
    }
