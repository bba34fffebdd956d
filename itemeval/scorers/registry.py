"""The registry of scorers by name, with their params models and rule versions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from .base import ScoreContext, ScoreResult
from .choice import multiple_choice
from .numeric import numeric
from .text import exact_match


class NoParams(BaseModel):
    """A scorer that takes no params."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NumericParams(BaseModel):
    """Tolerances of `numeric`: equal when within `rel_tol` (relative) or `abs_tol` (absolute)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    rel_tol: float = Field(default=1e-6, ge=0)
    abs_tol: float = Field(default=1e-9, ge=0)


@dataclass(frozen=True)
class ScorerSpec:
    """One registered scorer: its pure function, its params model and its rule version."""

    fn: Callable[..., ScoreResult]
    """`fn(solution, context, **params)`: a `ScoreContext` and the params validated by `params_model`."""
    params_model: type[BaseModel]
    rule_version: str
    """Part of the grade condition's identity: bump it whenever the scorer's rules change."""


SCORERS: dict[str, ScorerSpec] = {
    "exact_match": ScorerSpec(fn=exact_match, params_model=NoParams, rule_version="1"),
    "multiple_choice": ScorerSpec(fn=multiple_choice, params_model=NoParams, rule_version="1"),
    "numeric": ScorerSpec(fn=numeric, params_model=NumericParams, rule_version="1"),
}


def _scorer(name: str) -> ScorerSpec:
    if name not in SCORERS:
        raise ConfigError(f"unknown scorer {name!r}; known scorers: {', '.join(sorted(SCORERS))}")
    return SCORERS[name]


def _describe_params_error(name: str, spec: ScorerSpec, exc: ValidationError) -> str:
    """One message naming every bad param and the allowed ones, for the config's author."""
    allowed = ", ".join(spec.params_model.model_fields) or "none"
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown param {where!r}")
        elif where:
            problems.append(f"param {where!r}: {error['msg']} (got {error['input']!r})")
        else:
            problems.append(f"params must be a mapping of name to value (got {error['input']!r})")
    return f"scorer {name!r}: {'; '.join(problems)}. Allowed params: {allowed}"


def validate_scorer_params(name: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scorer's params with defaults filled in, so spelling a default out gives the same condition."""
    spec = _scorer(name)
    try:
        validated = spec.params_model.model_validate({} if params is None else params)
    except ValidationError as exc:
        raise ConfigError(_describe_params_error(name, spec, exc)) from None
    return validated.model_dump()


def score_solution(
    name: str, params: Mapping[str, Any] | None, solution: str, target: str | ScoreContext
) -> ScoreResult:
    """Grade one solution with a registered scorer, against a target string or a full context."""
    context = target if isinstance(target, ScoreContext) else ScoreContext.of(target)
    return _scorer(name).fn(solution, context, **validate_scorer_params(name, params))
