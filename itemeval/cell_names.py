"""Generate conditions named by the facets that tell them apart (model | prompt |
config), for tables at 80 columns and for sentences: "arith-good | concise | cold"
reads where a slug cut in its middle ("arith-g…cise_cold") does not."""

from __future__ import annotations

from collections.abc import Sequence

from .records import GenerateCondition

HEADERS = {"model": "model", "prompt": "prompt", "model_config": "config"}
"""The facets a generate condition varies on, with their column headers."""


def cell_facets(generate: Sequence[GenerateCondition]) -> dict[str, dict[str, str]]:
    """{condition id: {facet: level}} for the facets whose level differs between
    the conditions (the model alone when none does)."""
    levels = {
        "model": _short(c.model for c in generate),
        "prompt": _short((c.prompt.ref for c in generate), prefix="builtin:"),
        "model_config": {c.model_config_name: c.model_config_name for c in generate},
    }
    values = {
        "model": [c.model for c in generate],
        "prompt": [c.prompt.ref for c in generate],
        "model_config": [c.model_config_name for c in generate],
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


def _short(names, prefix: str | None = None) -> dict[str, str]:
    """Each name without its provider ("itemeval/arith-good" is "arith-good") or
    `prefix`, unless that would make two names the same."""
    names = list(dict.fromkeys(names))
    short = {
        name: name.removeprefix(prefix) if prefix else name.rsplit("/", 1)[-1]
        for name in names
    }
    if len(set(short.values())) < len(names):
        return {name: name for name in names}
    return short
