"""Facets crossed into generate and grade conditions with content-hashed `slug--hash`
ids (README "Concepts")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..hashing import canonical_json, condition_id, sha256_hex, slug_part
from ..records import (
    SAMPLING_PARAM_NAMES,
    AgentSpec,
    GenerateCondition,
    GradeCondition,
    Template,
    panel,
)
from ..scorers.base import ScorerSpec
from ..scorers.reference import check_reference
from ..scorers.registry import (
    canonical_name,
    families,
    resolve,
    validate_scorer_params,
)
from .config import ModelConfigFacet, ScorerEntry, Solvers, StudyConfig

JUDGE_TEMPERATURE = 0.0


def model_short_name(model: str) -> str:
    """`openai/gpt-4.1-mini` -> `gpt-4.1-mini`; the provider and any service prefix
    are dropped."""
    return model.rstrip("/").rsplit("/", 1)[-1]


def resolve_params(solvers: Solvers, model_config: ModelConfigFacet) -> dict[str, Any]:
    """`solvers.*` overridden by the params the model config sets (an explicit null
    clears one)."""
    params = {name: getattr(solvers, name) for name in SAMPLING_PARAM_NAMES}
    for name in SAMPLING_PARAM_NAMES:
        if name in model_config.model_fields_set:
            params[name] = getattr(model_config, name)
    return {name: value for name, value in params.items() if value is not None}


def generate_condition(
    model: str,
    prompt: Template,
    model_config: ModelConfigFacet,
    solvers: Solvers,
    agent: AgentSpec | None = None,
) -> GenerateCondition:
    """A plain condition's payload and slug are as before solvers were a facet, so
    its id never changed; another solver adds itself to both."""
    params = resolve_params(solvers, model_config)
    if params.get("top_logprobs") and not params.get("logprobs"):
        raise ConfigError(
            f"model config {model_config.name!r}: top_logprobs needs logprobs: "
            "true (under solvers: "
            "or the model_config)"
        )
    payload = {
        "model": model,
        "model_config": {"name": model_config.name, **params},
        "prompt": {"ref": prompt.ref, "hash": prompt.hash},
    }
    parts = [model_short_name(model), prompt.ref, model_config.name]
    if agent is not None:
        payload["solver"] = agent.payload
        parts.append(agent.name)
    slug = "_".join(slug_part(part) for part in parts)
    return GenerateCondition(
        id=condition_id(slug, payload),
        slug=slug,
        model=model,
        prompt=prompt,
        model_config_name=model_config.name,
        params=params,
        payload=payload,
        agent=agent,
    )


def generate_conditions(
    config: StudyConfig,
    prompts: dict[str, Template],
    agents: list[AgentSpec | None] | None = None,
) -> list[GenerateCondition]:
    """models × prompts × model configs × solvers (`agents`, study/agents.py;
    default plain only), in config order; a repeated facet value is an error."""
    conditions = [
        generate_condition(model, prompts[ref], model_config, config.solvers, agent)
        for model in config.solvers.models
        for ref in config.facets.prompt
        for model_config in config.facets.model_config_
        for agent in agents or [None]
    ]
    check_distinct(
        conditions,
        "solvers.models / facets.prompt / facets.model_config / facets.solver",
    )
    return conditions


def generated(conditions: list[GenerateCondition]) -> list[GenerateCondition]:
    """The conditions `generate` runs: imported ones (`itemeval import`) are read."""
    return [c for c in conditions if c.kind != "imported"]


def scorer_entries(scorer: None | str | list[str | ScorerEntry]) -> list[ScorerEntry]:
    if scorer is None:
        return []
    entries = [scorer] if isinstance(scorer, str) else scorer
    return [ScorerEntry(name=e) if isinstance(e, str) else e for e in entries]


def verifiable_conditions(
    config: StudyConfig, config_dir: Path | None = None
) -> list[GradeCondition]:
    """One condition per `facets.scorer` entry; an entry whose params are not the
    scorer's defaults gets a slug suffix from its own params, so no entry's id
    depends on its siblings."""
    conditions = [
        _scorer_condition(entry, index, config, config_dir)
        for index, entry in enumerate(scorer_entries(config.facets.scorer))
        # a cascade is its own kind of condition: study/cascade.py
        if canonical_name(entry.name) != "cascade"
    ]
    check_distinct(conditions, "facets.scorer")
    return conditions


def _scorer_condition(
    entry: ScorerEntry, index: int, config: StudyConfig, config_dir: Path | None
) -> GradeCondition:
    """The grade condition of one `facets.scorer` entry."""
    name = canonical_name(entry.name)
    spec, params = _checked_scorer(entry, index, config, config_dir)
    graded = spec.family == "model_graded"
    payload = {
        "scorer": name,
        "params": params,
        "rule_version": spec.rule_version,
        **({"temperature": JUDGE_TEMPERATURE} if graded else {}),
        # only when set, so the ids of entries without one never change
        **({"reference": entry.reference} if entry.reference else {}),
    }
    slug = f"scorer_{slug_part(name)}" + _params_suffix(name, params, config_dir)
    if entry.reference:
        slug += f"-ref-{slug_part(entry.reference)}"
    return GradeCondition(
        id=condition_id(slug, payload),
        slug=slug,
        kind="model_graded" if graded else "verifiable",
        payload=payload,
        scorer=name,
        scorer_params=params,
        reference=entry.reference,
        grader_name=name if graded else None,
        grader_model=panel(params["model"]) if graded else None,
    )


def _checked_scorer(
    entry: ScorerEntry, index: int, config: StudyConfig, config_dir: Path | None
) -> tuple[ScorerSpec, dict[str, Any]]:
    """The entry's scorer and its validated params (a judge's template inlined);
    errors name the entry."""
    name = canonical_name(entry.name)
    try:
        spec = resolve(name, config_dir)
        params = validate_scorer_params(
            name, _filled(name, entry.params, config, config_dir), config_dir
        )
    except ConfigError as exc:
        raise ConfigError(f"facets.scorer[{index}]: {exc}") from None
    if "choices" in spec.needs and not config.benchmark.mapping.choices:
        raise ConfigError(
            f"facets.scorer[{index}]: scorer {name!r} needs each item's "
            "options: set "
            "benchmark.mapping.choices to a column holding a list of option texts"
        )
    if spec.family == "model_graded":
        params = _inline_template(params, config_dir, index)
    if entry.reference is not None:
        check_reference(
            entry.reference,
            config.benchmark.mapping.metadata,
            f"facets.scorer[{index}]",
        )
    return spec, params


def _filled(
    name: str, params: dict[str, Any], config: StudyConfig, config_dir: Path | None
) -> dict[str, Any]:
    """`task_scorer` takes the benchmark's task (and that task's version) as params."""
    if name != "task_scorer":
        return params
    return families().task_scorer_params(params, config, config_dir)


def _params_suffix(name: str, params: dict[str, Any], config_dir: Path | None) -> str:
    """The empty string for the scorer's default params, else a short hash of the
    entry's own params."""
    # its params are filled in; only another scorer index differs
    if name == "task_scorer":
        return f"-{params['index']}" if params.get("index") else ""
    try:
        defaults = validate_scorer_params(name, {}, config_dir)
    except ConfigError:
        defaults = None  # the scorer has required params: every entry names its own
    return "" if params == defaults else "-" + sha256_hex(canonical_json(params))[:4]


def check_distinct(conditions: list[Any], field: str) -> None:
    seen: set[str] = set()
    for condition in conditions:
        if condition.id in seen:
            raise ConfigError(
                f"{field}: condition {condition.slug} appears twice; list each "
                "facet value once"
            )
        seen.add(condition.id)


def select(conditions: list[Any], selectors: list[str]) -> list[Any]:
    """Conditions matching any selector: an exact id, an id prefix, or a slug. No
    selector keeps all."""
    if not selectors:
        return list(conditions)
    chosen = [c for c in conditions if any(matches(c, s) for s in selectors)]
    unmatched = [s for s in selectors if not any(matches(c, s) for c in conditions)]
    if unmatched:
        known = ", ".join(c.slug for c in conditions)
        raise ConfigError(
            "--condition: no condition matches "
            f"{', '.join(map(repr, unmatched))} (conditions: {known})"
        )
    return chosen


def matches(condition: Any, selector: str) -> bool:
    """Whether a --condition selector names the condition: its exact id, an id prefix
    or its slug."""
    return (
        condition.id == selector
        or condition.slug == selector
        or condition.id.startswith(selector)
    )


def pick_condition(conditions: list[Any], selector: str, option: str) -> str:
    """The id of the one condition `selector` names (id, id prefix or slug); a
    ConfigError naming `option` and every condition's slug otherwise."""
    found = [c for c in conditions if matches(c, selector)]
    if len(found) != 1:
        known = ", ".join(c.slug for c in conditions)
        many = "no" if not found else "more than one"
        raise ConfigError(
            f"{option}: {many} generate condition matches {selector!r} "
            f"(conditions: {known})"
        )
    return found[0].id


def _inline_template(
    params: dict[str, Any], config_dir: Path | None, index: int
) -> dict[str, Any]:
    """A model-graded `template` naming a file (relative to the config) is replaced
    by its text, so editing the file changes the condition's id like editing a rubric
    does."""
    template = params.get("template")
    if not template or "\n" in template or "{" in template:
        return params
    path = (config_dir or Path.cwd()) / template
    if not path.is_file():
        raise ConfigError(
            f"facets.scorer[{index}]: template {template!r} is neither a "
            "template text (with "
            f"{{question}}, {{answer}}, {{criterion}}) nor a file at {path}"
        )
    return {**params, "template": path.read_text(encoding="utf-8")}


def check_logprobs(
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
    config_dir: Path | None,
) -> None:
    """A scorer that reads logprobs needs every generate condition to ask for them."""
    readers = [
        c
        for c in grade
        if c.is_verifiable and "logprobs" in resolve(c.scorer, config_dir).needs
    ]
    if not readers:
        return
    missing = [
        c.slug
        for c in generate
        if not (c.params.get("logprobs") and c.params.get("top_logprobs"))
    ]
    if missing:
        raise ConfigError(
            f"facets.scorer: {readers[0].scorer} reads the first token's top "
            f"logprobs, but {', '.join(missing)} "
            "do not request them: add `logprobs: true` and `top_logprobs: 20` "
            "under solvers: (or the model_config)"
        )
