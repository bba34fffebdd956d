"""The metrics a study declares: which built-in or user metric, with which params, over
which grade conditions' answers — checked when the study loads."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..records import GradeCondition
from ..scorers.registry import ANSWERS, answer_holds, canonical_name
from ..stats.metric_figures import CLASSIFICATION

Kind = Literal["mean", "classification", "correlation", "corpus", "user"]


class _NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CorpusBleuParams(_NoParams):
    tokenize: Literal["13a", "none", "intl", "char", "zh", "ja-mecab", "ko-mecab"] = (
        "13a"
    )
    lowercase: bool = False


class ChrfParams(_NoParams):
    char_order: int = Field(default=6, ge=1)
    word_order: int = Field(default=0, ge=0)
    beta: int = Field(default=2, ge=1)
    lowercase: bool = False


KINDS: dict[str, tuple[Kind, type[BaseModel]]] = {
    "accuracy": ("mean", _NoParams),
    **{name: ("classification", _NoParams) for name in CLASSIFICATION},
    "pearson": ("correlation", _NoParams),
    "spearman": ("correlation", _NoParams),
    "kendall_tau": ("correlation", _NoParams),
    "corpus_bleu": ("corpus", CorpusBleuParams),
    "chrf": ("corpus", ChrfParams),
}
"""Built-in metrics by name."""

READS: dict[Kind, tuple[str, ...]] = {
    "classification": ("label", "number"),
    "correlation": ("number",),
    "corpus": ("label", "number", "text"),
}
"""What a metric compares with the target, as a scorer's `answer` must hold it
(scorers.registry.ANSWERS): a class, a number, or text."""


@dataclass(frozen=True)
class PlannedMetric:
    """One `metrics:` entry resolved: what it computes, over which grade conditions."""

    name: str
    kind: Kind
    params: dict[str, Any]
    grade_condition_ids: tuple[str, ...]
    source_hash: str | None = None
    """A user metric's module source hash: part of what it reports."""
    user: Any = field(default=None, compare=False)
    label: str = ""
    """What its rows are called: the name, with the params that differ from the
    defaults (`chrf(word_order=2)`), so two entries of one metric stay apart."""


def plan_metrics(
    entries: list[Any], grade: list[GradeCondition], config_dir: Path
) -> list[PlannedMetric]:
    """Every declared metric resolved; a config error names the entry and the fault.

    Entries of the same metric and params are one metric over the grade conditions
    either names (a name-wide entry beside one naming a slug): its rows come once and
    count once among the pairs `p_adjusted` adjusts over."""
    planned: dict[str, PlannedMetric] = {}
    for index, entry in enumerate(entries):
        name, params, scorer = (
            (entry, {}, None)
            if isinstance(entry, str)
            else (entry.name, entry.params, entry.scorer)
        )
        where = f"metrics[{index}] ({name})"
        metric = _plan_one(name, params, scorer, grade, config_dir, where)
        earlier = planned.get(metric.label)
        if earlier is not None:
            ids = earlier.grade_condition_ids + metric.grade_condition_ids
            metric = replace(earlier, grade_condition_ids=tuple(dict.fromkeys(ids)))
        planned[metric.label] = metric
    return list(planned.values())


def _plan_one(name, params, scorer, grade, config_dir, where) -> PlannedMetric:
    user = None
    shown = dict(params or {})
    if ":" in name:
        from .user_metrics import load_user_metric

        user = load_user_metric(name, config_dir)
        kind: Kind = "user"
    elif name in KINDS:
        kind, model = KINDS[name]
        params = _validated(model, params, where)
        defaults = model().model_dump()
        shown = {k: v for k, v in params.items() if defaults.get(k) != v}
    else:
        known = ", ".join(KINDS)
        raise ConfigError(
            f"{where}: unknown metric; built in: {known}; or module.path:function"
        )
    if kind == "corpus":
        from ..scorers.overlap import require

        require("sacrebleu", "sacrebleu", f"{where}")
    ids = _feeding(kind, name, scorer, grade, where)
    return PlannedMetric(
        name=name,
        kind=kind,
        params=dict(params),
        grade_condition_ids=ids,
        source_hash=user.source_hash if user else None,
        user=user,
        label=metric_label(name, shown),
    )


def metric_label(name: str, params: dict[str, Any]) -> str:
    """`name`, or `name(key=value, ...)` with the params sorted by key."""
    if not params:
        return name
    shown = ", ".join(f"{key}={_shown(params[key])}" for key in sorted(params))
    return f"{name}({shown})"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _validated(model: type[BaseModel], params: Any, where: str) -> dict[str, Any]:
    try:
        return model.model_validate(params or {}).model_dump()
    except ValidationError as exc:
        allowed = ", ".join(model.model_fields) or "none"
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'params'}: {e['msg']}"
            for e in exc.errors()
        )
        raise ConfigError(f"{where}: {problems}. Allowed params: {allowed}") from None


def _feeding(kind, name, scorer, grade, where) -> tuple[str, ...]:
    """The grade conditions whose rows the metric reads; a config error when none can
    give it what it compares."""
    if scorer is None:
        fed = tuple(c.id for c in grade if _can_feed(kind, c, named=False))
        if not fed:
            raise ConfigError(f"{where}: {_none_feeds(kind, name, grade)}")
        return fed
    chosen = [c for c in grade if _names(c, scorer)]
    if not chosen:
        names = ", ".join(sorted({c.scorer for c in grade if c.scorer})) or "none"
        graders = sorted({c.grader_name for c in grade if c.grader_name})
        example = f", e.g. {grade[0].slug}" if grade else ""
        raise ConfigError(
            f"{where}: scorer {scorer!r} names no facets.scorer entry (entries: "
            f"{names}), no grader (graders: {', '.join(graders) or 'none'}) and no "
            f"grade condition's slug{example}"
        )
    for condition in chosen:
        if not _can_feed(kind, condition, named=True):
            raise ConfigError(f"{where}: {_why_not(kind, name, condition)}")
    return tuple(c.id for c in chosen)


def _names(condition: GradeCondition, scorer: str) -> bool:
    """Whether `scorer` names the grade condition: its scorer's name (every entry of
    it), its grader's name (every rubric of that judge), or its slug with or without
    `scorer_` (that condition alone)."""
    if condition.slug in (scorer, f"scorer_{scorer}"):
        return True
    if condition.scorer:
        return canonical_name(condition.scorer) == canonical_name(scorer)
    return condition.grader_name == scorer


def _can_feed(kind: Kind, condition: GradeCondition, *, named: bool) -> bool:
    """Whether the condition's grade rows hold what the metric reads. A user scorer
    or multi_scorer (whose answer itemeval cannot know) feeds a metric only when the
    entry names it."""
    if kind in ("mean", "user"):
        return True
    if not condition.is_verifiable:
        return False  # judges and model-graded scorers store a verdict, not an answer
    holds = answer_holds(condition.scorer)
    if holds is None:
        return named
    return bool(set(holds) & set(READS[kind]))


def _holding(what: tuple[str, ...]) -> str:
    return ", ".join(name for name, holds in ANSWERS.items() if set(holds) & set(what))


def _why_not(kind: Kind, name: str, condition: GradeCondition) -> str:
    if not condition.is_verifiable:
        return (
            f"{name} reads the answer a scorer extracted, but {condition.slug} is a "
            f"{condition.kind} grade condition, which stores only its verdict"
        )
    if kind == "correlation":
        return (
            f"{name} compares numbers, but scorer {condition.scorer!r} does not read a "
            f"number from the reply; use one of {_holding(READS[kind])}"
        )
    return (
        f"{name} compares the class a scorer read from the reply with the target, "
        f"but scorer {condition.scorer!r} keeps the whole reply, not a class; use "
        f"one that extracts one: {_holding(READS[kind])}"
    )


def _none_feeds(kind: Kind, name: str, grade: list[GradeCondition]) -> str:
    entries = ", ".join(sorted({c.scorer for c in grade if c.scorer})) or "none"
    what = {"classification": "a class", "correlation": "a number"}.get(kind, "text")
    return (
        f"{name} compares {what} a scorer read from each reply with the target, and "
        f"no facets.scorer entry reads one (entries: {entries}); add one of "
        f"{_holding(READS[kind])}, or name a user scorer with `scorer:`"
    )
