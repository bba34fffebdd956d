"""The params of inspect-ai's scorers that read only a stored reply, declared here so
that a study naming one loads without importing inspect-ai (three seconds of every
`status`, `results` or `export`). They are inspect-ai's own, as the pinned version's
signatures give them; a test builds them from those signatures and compares."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, create_model

_CONFIG = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

_FIELDS: dict[str, dict[str, tuple[Any, Any]]] = {
    "match": {
        "location": (Literal["begin", "end", "any", "exact"], "end"),
        "ignore_case": (bool, True),
        "numeric": (bool, False),
    },
    "includes": {"ignore_case": (bool, True)},
    "pattern": {
        "pattern": (str, ...),
        "ignore_case": (bool, True),
        "match_all": (bool, False),
    },
    "answer": {"pattern": (Literal["letter", "word", "line"], ...)},
    # `choice` scores what inspect's multiple_choice solver parsed from the reply;
    # `multiple_correct` is that solver's setting
    "choice": {"multiple_correct": (bool, False)},
    "f1": {"stop_words": (Optional[list[str]], None)},
    "exact": {},
}


class MultiParams(BaseModel):
    """multi_scorer: the entries it combines and inspect's reducer over them."""

    model_config = ConfigDict(extra="forbid", strict=True)
    scorers: list[Any]
    reducer: str = "mode"


@lru_cache(maxsize=None)
def inspect_params(name: str) -> type[BaseModel]:
    """The strict params model of inspect's scorer `name`."""
    return create_model(f"{name}_params", __config__=_CONFIG, **_FIELDS[name])


@lru_cache(maxsize=1)
def inspect_rule_version() -> str:
    """The rules of inspect's scorers are those of the installed inspect-ai: a new
    version is a new grade condition."""
    from importlib.metadata import version

    return f"inspect-ai=={version('inspect-ai')}"
