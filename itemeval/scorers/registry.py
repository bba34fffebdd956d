"""The registry of scorers by name: each family's params, rule version and how a
batch of solutions is scored."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import plugins
from ..errors import ConfigError
from . import overlap
from .base import ScoreContext, ScoreResult, ScorerSpec
from .choice import multiple_choice
from .numeric import numeric
from .overlap import TEXT_NAMES
from .probability import numeric_risk, risk
from .text import exact_match


class NoParams(BaseModel):
    """A scorer that takes no params."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NumericParams(BaseModel):
    """Tolerances of `numeric`: equal when within `rel_tol` (relative) or `abs_tol`
    (absolute)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    rel_tol: float = Field(default=1e-6, ge=0)
    abs_tol: float = Field(default=1e-9, ge=0)


class RiskParams(BaseModel):
    """The tokens whose first-token probabilities `risk` compares; the last is the
    positive class."""

    model_config = ConfigDict(extra="forbid", strict=True)
    option_tokens: list[str] = Field(default=["0", "1"], min_length=2)


class NumericRiskParams(BaseModel):
    """The target values (negative, positive) that `numeric_risk` predicts between."""

    model_config = ConfigDict(extra="forbid", strict=True)
    labels: list[str] = Field(default=["0", "1"], min_length=2, max_length=2)


SCORERS: dict[str, ScorerSpec] = {
    # version 3 (issue 50): locales, words, roots, JSON answers, option text, sentences,
    # folding; see the README's "itemeval's careful scorers"
    "exact_match": ScorerSpec(fn=exact_match, params_model=NoParams, rule_version="3"),
    "multiple_choice": ScorerSpec(
        fn=multiple_choice, params_model=NoParams, rule_version="3"
    ),
    "numeric": ScorerSpec(fn=numeric, params_model=NumericParams, rule_version="3"),
    "risk": ScorerSpec(
        fn=risk,
        params_model=RiskParams,
        rule_version="1",
        family="probability",
        needs=("logprobs",),
    ),
    # version 3: it reads the answer where the careful scorers do, which issue 50 moved
    "numeric_risk": ScorerSpec(
        fn=numeric_risk,
        params_model=NumericRiskParams,
        rule_version="3",
        family="probability",
    ),
}
"""itemeval's own scorers. inspect-ai's are resolved by name (INSPECT_NAMES), user
scorers by `module:function`."""

ALIASES = {"risk_scorer": "risk", "numeric_risk_scorer": "numeric_risk"}
"""cruijff_kit's names for the probability scorers; an alias is the same condition as
the name."""

INSPECT_NAMES = ("match", "includes", "pattern", "answer", "choice", "f1", "exact")
MODEL_GRADED_NAMES = ("model_graded_qa", "model_graded_fact")
MULTI = "multi_scorer"
TASK_SCORER = "task_scorer"
"""The scorer of the benchmark's inspect task (benchmark.adapter: inspect)."""


ANSWERS: dict[str, tuple[str, ...]] = {
    "exact_match": ("label",),
    "multiple_choice": ("label",),
    "numeric": ("label", "number"),
    "risk": ("label",),
    "numeric_risk": ("label", "number"),
    "pattern": ("label",),
    "answer": ("label",),
    "choice": ("label",),
    # inspect's match, includes, f1 and exact keep the whole reply as their answer
    # (stored as null: the solution itself), so they extract no prediction
    **{name: ("text",) for name in ("match", "includes", "f1", "exact", *TEXT_NAMES)},
}
"""What a scorer's stored `answer` holds, which decides the metrics it can feed: a
`label` read from the reply (a class), a `number`, or the reply's `text`. User
scorers and multi_scorer are absent: what they store is theirs to say."""


def answer_holds(name: str | None) -> tuple[str, ...] | None:
    """What the scorer's `answer` holds (ANSWERS); None when itemeval cannot know."""
    return ANSWERS.get(canonical_name(name)) if name else None


Rows = Sequence[tuple[str, ScoreContext, str, int]]
"""(solution, context, item_id, epoch) rows a scorer entry grades in order."""


@dataclass(frozen=True)
class Families:
    """The scorer families that run inspect-ai, lent by `engine/` (which registers
    them when it loads, `itemeval.engine.plugin`), so this registry names them
    without importing upward."""

    user: Callable[[str, Path], ScorerSpec]
    """The spec of a user scorer `module.path:function` beside the config."""
    model_graded: Callable[[str], ScorerSpec]
    """The spec of `model_graded_qa` or `model_graded_fact`."""
    task_scorer: Callable[[], ScorerSpec]
    """The spec of the benchmark task's own scorer."""
    task_scorer_params: Callable[[dict[str, Any], Any, Path | None], dict[str, Any]]
    """A `task_scorer` entry's params with its task (the benchmark's, or
    `params.task`) and that task's version filled in, from the study config."""
    check_reducer: Callable[[str, str], None]
    """Refuse a reducer (of `multi_scorer`, or of a model-graded panel) the installed
    inspect-ai does not know: (scorer name, reducer)."""
    score: Callable[[str, dict[str, Any], Rows, Path, dict[str, Any] | None], list]
    """Score rows with one of inspect's scorers, a user scorer or multi_scorer."""


_FAMILIES: list[Families] = []


def register_families(families: Families) -> None:
    """Lend the registry inspect-ai's scorer families (once per process)."""
    _FAMILIES[:] = [families]


def families() -> Families:
    """The registered inspect-ai families, loading the plugins on first need."""
    if not _FAMILIES:
        plugins.load()
    if not _FAMILIES:
        raise ConfigError(plugins.missing("inspect-ai's scorers"))
    return _FAMILIES[0]


def canonical_name(name: str) -> str:
    return ALIASES.get(name, name)


def is_probability(name: str | None) -> bool:
    """Whether a scorer reports a probability (calibration reads its scores): its
    registry entry's family says so, here and nowhere else."""
    spec = SCORERS.get(canonical_name(name)) if name else None
    return spec is not None and spec.family == "probability"


def known_names() -> str:
    """Every scorer a config may name, by family, for error messages."""
    return (
        f"{', '.join(sorted(SCORERS))} (itemeval's); {', '.join(TEXT_NAMES)} (text "
        f"overlap); {', '.join(INSPECT_NAMES)}, {MULTI}, "
        f"{', '.join(MODEL_GRADED_NAMES)} (inspect-ai's); {TASK_SCORER}; "
        "or a user scorer as module.path:function"
    )


def resolve(name: str, config_dir: Path | None = None) -> ScorerSpec:
    """The spec of a scorer named in the config; inspect's scorers and user scorers
    import inspect-ai here."""
    name = canonical_name(name)
    if name in SCORERS:
        return SCORERS[name]
    if name in TEXT_NAMES:
        return overlap.spec(name)
    if name in INSPECT_NAMES or name == MULTI:
        return _inspect_spec(name)
    if ":" in name:
        return families().user(name, config_dir or Path.cwd())
    if name in MODEL_GRADED_NAMES:
        return families().model_graded(name)
    if name == TASK_SCORER:
        return families().task_scorer()
    names = [*SCORERS, *ALIASES, *TEXT_NAMES, *INSPECT_NAMES, *MODEL_GRADED_NAMES]
    close = difflib.get_close_matches(name, [*names, MULTI, TASK_SCORER], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown scorer {name!r}{hint}; known scorers: {known_names()}")


def _inspect_spec(name: str) -> ScorerSpec:
    """One of inspect-ai's scorers (or multi_scorer), known without importing it."""
    from .inspect_params import MultiParams, inspect_params, inspect_rule_version

    return ScorerSpec(
        fn=None,
        params_model=MultiParams if name == MULTI else inspect_params(name),
        rule_version=inspect_rule_version(),
        family="multi" if name == MULTI else "inspect",
        needs=("choices",) if name == "choice" else (),
    )


def _describe_params_error(name: str, spec: ScorerSpec, exc: ValidationError) -> str:
    """One message naming every bad param and the allowed ones, for the config's
    author."""
    allowed = ", ".join(spec.params_model.model_fields) or "none"
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown param {where!r}")
        elif error["type"] == "missing":
            problems.append(f"param {where!r} is required")
        elif where:
            problems.append(f"param {where!r}: {error['msg']} (got {error['input']!r})")
        else:
            problems.append(
                f"params must be a mapping of name to value (got {error['input']!r})"
            )
    return f"scorer {name!r}: {'; '.join(problems)}. Allowed params: {allowed}"


def validate_scorer_params(
    name: str, params: Mapping[str, Any] | None, config_dir: Path | None = None
) -> dict[str, Any]:
    """The scorer's params with defaults filled in, so spelling a default out gives
    the same condition."""
    spec = resolve(name, config_dir)
    try:
        validated = spec.params_model.model_validate({} if params is None else params)
    except ValidationError as exc:
        raise ConfigError(_describe_params_error(name, spec, exc)) from None
    dumped = validated.model_dump()
    if spec.family == "multi":
        dumped["scorers"] = _validate_entries(dumped["scorers"], config_dir)
        families().check_reducer(name, dumped["reducer"])
    if spec.family == "model_graded" and not isinstance(dumped["model"], str):
        families().check_reducer(name, dumped["reducer"])  # a panel's
    return dumped


def _validate_entries(
    entries: list[Any], config_dir: Path | None
) -> list[dict[str, Any]]:
    """multi_scorer's sub-entries, each validated like a top-level entry and carrying
    its rule version."""
    if not entries:
        raise ConfigError(f"scorer {MULTI!r}: params.scorers needs at least one entry")
    validated = []
    for index, entry in enumerate(entries):
        name, params = (
            (entry, {})
            if isinstance(entry, str)
            else (entry.get("name"), entry.get("params") or {})
        )
        if not isinstance(name, str) or (
            not isinstance(entry, str) and set(entry) - {"name", "params"}
        ):
            raise ConfigError(
                f"scorer {MULTI!r}: params.scorers[{index}] must be a name or "
                "{name, params}"
            )
        sub = resolve(name, config_dir)
        if sub.family not in ("inspect", "user"):
            raise ConfigError(
                f"scorer {MULTI!r}: params.scorers[{index}] is {name!r}; "
                "multi_scorer combines "
                f"inspect scorers ({', '.join(INSPECT_NAMES)}) and user scorers only"
            )
        validated.append(
            {
                "name": canonical_name(name),
                "params": validate_scorer_params(name, params, config_dir),
                "rule_version": sub.rule_version,
            }
        )
    return validated


def score_many(
    name: str,
    params: Mapping[str, Any],
    rows: Sequence[tuple[str, ScoreContext, str, int]],
    config_dir: Path | None = None,
    *,
    cache: dict[str, Any] | None = None,
) -> list[ScoreResult]:
    """Score (solution, context, item_id, epoch) rows with one scorer entry, in order.

    `cache`: one dict the caller keeps for the calls of a whole grade (and drops after
    it), where a scorer family keeps what serves many calls (inspect's rebuilt per-item
    states).
    """
    spec = resolve(name, config_dir)
    if spec.fn is not None:
        return [
            best_over_targets(spec, solution, context, params)
            for solution, context, _, _ in rows
        ]
    return families().score(
        canonical_name(name), dict(params), rows, config_dir or Path.cwd(), cache
    )


def best_over_targets(
    spec: ScorerSpec, solution: str, context: ScoreContext, params: Mapping[str, Any]
) -> ScoreResult:
    """A pure scorer against several acceptable targets: the first full credit, else
    the first target's result."""
    assert spec.fn is not None
    if len(context.targets) <= 1 or spec.all_targets:
        return spec.fn(solution, context, **params)
    first = None
    for target in context.targets:
        result = spec.fn(
            solution,
            ScoreContext(
                targets=(target,),
                choices=context.choices,
                metadata=context.metadata,
                logprobs=context.logprobs,
                input=context.input,
            ),
            **params,
        )
        if result.score == 1.0:
            return result
        first = first or result
    return first  # type: ignore[return-value]


def score_solution(
    name: str,
    params: Mapping[str, Any] | None,
    solution: str,
    target: str | ScoreContext,
) -> ScoreResult:
    """Grade one solution with a registered scorer, against a target string or a full
    context."""
    context = target if isinstance(target, ScoreContext) else ScoreContext.of(target)
    return score_many(
        name, validate_scorer_params(name, params), [(solution, context, "item", 1)]
    )[0]
