"""The nouns of itemeval: items, conditions and the key columns of every store. Read this first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

SOLUTION_KEY = ("condition_id", "item_id", "epoch")
GRADE_KEY = ("grade_condition_id", "gen_condition_id", "item_id", "epoch")
ITEM_KEY = ("item_id",)

SAMPLING_PARAMS = ("temperature", "top_p", "max_tokens", "seed", "reasoning_effort", "reasoning_tokens")
"""Sampling settings that are part of a generate condition's identity (SPEC §6)."""

TRUNCATING_STOP_REASONS = frozenset({"max_tokens", "model_length"})


@dataclass(frozen=True)
class Item:
    """One problem, as mapped from a dataset row (SPEC §3)."""

    id: str
    input: str
    target: str
    grading_scheme: str | None
    metadata: dict[str, Any]
    dataset_id: str
    dataset_revision: str
    row: int


@dataclass(frozen=True)
class Template:
    """A prompt or rubric: its reference as written in the config, its text and content hash."""

    ref: str  # "minimal" (local file) or "builtin:standard"
    kind: Literal["prompt", "rubric"]
    text: str
    hash: str
    source: Literal["local", "builtin"]
    path: str


@dataclass(frozen=True)
class GenerateCondition:
    """One solver model × prompt × model config (SPEC §3, §6)."""

    id: str
    slug: str
    model: str
    prompt: Template
    model_config_name: str
    params: dict[str, Any]  # resolved, non-null sampling params
    payload: dict[str, Any]


@dataclass(frozen=True)
class GradeCondition:
    """A judge (grader × rubric) or a verifiable scorer applied to stored solutions (SPEC §3, §6)."""

    id: str
    slug: str
    kind: Literal["judge", "verifiable"]
    payload: dict[str, Any]
    # judge conditions
    grader_name: str | None = None
    grader_model: str | None = None
    rubric: Template | None = None
    judge_params: dict[str, Any] = field(default_factory=dict)
    # verifiable conditions
    scorer: str | None = None
    scorer_params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Cell:
    """One sample to run: its id, the rendered prompt, and metadata linking it back to its store row."""

    sample_id: str
    prompt: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class TaskSpec:
    """One inspect task: a condition's model, sampling config and the cells it still has to run."""

    name: str
    model: str
    config: dict[str, Any]
    cells: Sequence[Cell]
    cache_scope: str | None  # None: no response cache; else the scope that keeps conditions apart
    metadata: dict[str, Any]
