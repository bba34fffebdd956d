"""Judges as grade conditions: a grader resolved from `graders:` (or a bare model id),
its identity (the one place a judge's id is defined, pointwise or pairwise), and the
judge conditions of the grid."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..hashing import condition_id, slug_part
from ..records import (
    GradeCondition,
    Template,
)
from ..scorers.judge import FORMAT_SUFFIX_VERSION
from .config import Grader, StudyConfig
from .grid import JUDGE_TEMPERATURE, check_distinct

_JUDGE_PARAMS = (
    "temperature",
    "max_tokens",
    "reasoning_effort",
    "reasoning_tokens",
)


def resolve_grader(name: str, graders: dict[str, Grader]) -> Grader:
    """A name under `graders:`, or a bare model id (containing '/') used as a judge
    with defaults."""
    if name in graders:
        return graders[name]
    if "/" in name:
        return Grader(model=name)
    known = ", ".join(sorted(graders)) or "none defined"
    close = difflib.get_close_matches(name, list(graders), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise ConfigError(
        f"grader {name!r} is not defined under `graders:` (defined: {known}) "
        f"and is not a model id{hint}"
    )


@dataclass(frozen=True)
class Judging:
    """What a judge's inspect task takes of the study's settings, and no more: the
    `graders:` entries, `budget.batch`, and the response-cache scope of a condition's
    calls (None: not cached)."""

    graders: dict[str, Grader]
    batch: bool | int
    cache_scope: Callable[[str], str | None]

    def config(self, condition: GradeCondition) -> dict[str, Any]:
        """A judge's generate config (pointwise or pairwise): temperature 0 unless
        the grader sets one, its grader's limits (a bare model id gets the `graders:`
        defaults: inspect alone retries forever), inspect's batch mode if
        `budget.batch` asks for it."""
        grader = resolve_grader(condition.grader_name or "", self.graders)
        return {
            "temperature": 0.0,
            "cache_prompt": "auto",
            **condition.judge_params,
            **grader.inspect_limits(),
            **({"batch": self.batch} if self.batch else {}),
        }


@dataclass(frozen=True)
class JudgeIdentity:
    """What defines a judge's grade condition, pointwise or pairwise: its slug, the
    payload its id is minted from, and the judge's own sampling params."""

    slug: str
    payload: dict[str, Any]
    params: dict[str, Any]


def judge_identity(
    grader_name: str,
    grader: Grader,
    rubric: Template,
    *,
    suffix_version: str,
    kind: str | None = None,
) -> JudgeIdentity:
    """The one place a judge's id is defined: the grader's name, model and set
    sampling params, the rubric's content hash and the version of the reply
    contract (`suffix_version`); `kind` only for a judge other than the pointwise
    one, so pointwise ids never change."""
    params = {
        name: getattr(grader, name)
        for name in _JUDGE_PARAMS
        if getattr(grader, name) is not None
    }
    # `temperature` as a param only when it is not the default, so a judge that sets
    # 0 keeps the id of one that does not
    if params.get("temperature") == JUDGE_TEMPERATURE:
        del params["temperature"]
    payload = {
        "grader": grader_name,
        **({"kind": kind} if kind is not None else {}),
        "model": grader.model,
        "temperature": JUDGE_TEMPERATURE,
        **params,
        "rubric": {"ref": rubric.ref, "hash": rubric.hash},
        "format_suffix_version": suffix_version,
    }
    slug = f"{slug_part(grader_name)}_{slug_part(rubric.ref)}"
    return JudgeIdentity(slug, payload, params)


def judge_condition(
    grader_name: str, grader: Grader, rubric: Template
) -> GradeCondition:
    identity = judge_identity(
        grader_name, grader, rubric, suffix_version=FORMAT_SUFFIX_VERSION
    )
    slug, payload, params = identity.slug, identity.payload, identity.params
    return GradeCondition(
        id=condition_id(slug, payload),
        slug=slug,
        kind="judge",
        payload=payload,
        grader_name=grader_name,
        grader_model=grader.model,
        rubric=rubric,
        judge_params=params,
        draws=grader.draws,
    )


def judge_conditions(
    config: StudyConfig, rubrics: dict[str, Template], grader_names: list[str]
) -> list[GradeCondition]:
    conditions = [
        judge_condition(name, resolve_grader(name, config.graders), rubrics[ref])
        for name in grader_names
        for ref in config.facets.rubric
    ]
    check_distinct(conditions, "facets.grader / facets.rubric")
    return conditions
