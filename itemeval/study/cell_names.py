"""Generate conditions named by the facets that tell them apart (model | prompt |
config), for tables at 80 columns and for sentences: "arith-good | concise | cold"
reads where a slug cut in its middle ("arith-g…cise_cold") does not."""

from __future__ import annotations

from collections.abc import Sequence

from ..records import GenerateCondition, GradeCondition

HEADERS = {
    "model": "model",
    "prompt": "prompt",
    "model_config": "config",
    "solver": "solver",
}
"""The facets a generate condition varies on, with their column headers."""


def cell_facets(generate: Sequence[GenerateCondition]) -> dict[str, dict[str, str]]:
    """{condition id: {facet: level}} for the facets whose level differs between
    the conditions (the model alone when none does)."""
    levels = {
        "model": _short(c.model for c in generate),
        "prompt": _short((c.prompt.ref for c in generate), prefix="builtin:"),
        "model_config": {c.model_config_name: c.model_config_name for c in generate},
        "solver": {c.solver: c.solver for c in generate},
    }
    values = {
        "model": [c.model for c in generate],
        "prompt": [c.prompt.ref for c in generate],
        "model_config": [c.model_config_name for c in generate],
        "solver": [c.solver for c in generate],
    }
    varying = [facet for facet in HEADERS if len(set(values[facet])) > 1]
    varying = varying or ["model"]
    return {
        c.id: {facet: levels[facet][values[facet][i]] for facet in varying}
        for i, c in enumerate(generate)
    }


def cell_name(facets: dict[str, str]) -> str:
    """One condition's levels joined: "arith-good | concise | cold"."""
    return " | ".join(facets.values())


GENERIC_NAMES = frozenset({"model", "default", "base", "chat", "latest"})
"""A model's last part that names no model by itself: `mockllm/model` stays whole."""


def _short(names, prefix: str | None = None) -> dict[str, str]:
    """Each name without its provider ("itemeval/arith-good" is "arith-good") or
    `prefix`, unless that would make two names the same or leave a generic word."""
    names = list(dict.fromkeys(names))
    short = {
        name: name.removeprefix(prefix) if prefix else _model_name(name)
        for name in names
    }
    if len(set(short.values())) < len(names):
        return {name: name for name in names}
    return short


def _model_name(model: str) -> str:
    last = model.rsplit("/", 1)[-1]
    return model if last in GENERIC_NAMES else last


def grader_facets(grade: Sequence[GradeCondition]) -> dict[str, dict[str, str]]:
    """{grade condition id: {facet: level}} for the grader and rubric where they
    differ between the conditions: "strict-judge | concise" where the slug
    "strict-judge_concise" (often far longer) would be cut. The grader is a judge's
    name, a scorer with its params and reference ("numeric-rel_tol-0.01"), a human
    rater ("human-ann"); conditions the levels cannot tell apart keep their slug."""
    rubrics = _short((c.rubric.ref for c in grade if c.rubric), prefix="builtin:")
    levels = {
        c.id: {
            "grader": _grader(c),
            "rubric": rubrics[c.rubric.ref] if c.rubric and c.kind != "human" else "",
        }
        for c in grade
    }
    varying = [
        facet
        for facet in GRADE_HEADERS
        if len({level[facet] for level in levels.values()}) > 1
    ] or ["grader"]
    named = {gid: {f: level[f] for f in varying} for gid, level in levels.items()}
    seen = [grader_name(facets) for facets in named.values()]
    return {
        c.id: named[c.id]
        if seen.count(grader_name(named[c.id])) == 1
        else {"grader": c.slug}
        for c in grade
    }


GRADE_HEADERS = {"grader": "grader", "rubric": "rubric"}
"""The facets a grade condition is named by in tables."""


def grader_name(facets: dict[str, str]) -> str:
    """A grade condition's levels joined, leaving out a rubric it has none of."""
    return " | ".join(level for level in facets.values() if level)


def _grader(condition: GradeCondition) -> str:
    if condition.kind == "judge":
        return condition.grader_name or condition.slug
    if condition.kind in ("verifiable", "model_graded"):
        return condition.slug.removeprefix("scorer_")
    return condition.slug  # a human rater, a cascade
