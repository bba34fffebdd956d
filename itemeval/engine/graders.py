"""inspect-ai's model-graded scorers as graders: the scorer whose grader models carry
a grade task's settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from inspect_ai.model import CachePolicy, GenerateConfig, get_model
from inspect_ai.scorer import model_graded_fact, model_graded_qa, multi_scorer
from pydantic import BaseModel, ConfigDict

from ..scorers.base import ScorerSpec
from .scorers import RULE_VERSION
from .send_guard import guard

MODEL_GRADED = {
    "model_graded_qa": model_graded_qa,
    "model_graded_fact": model_graded_fact,
}
GRADER_TEMPERATURE = 0.0
"""Like itemeval's judges, model-graded scorers grade at temperature 0, so a re-grade
repeats and caches."""


class _ModelGradedParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    model: Union[str, list[str]]
    """The grader's inspect model id, or several for a panel whose grades `reducer`
    combines."""
    template: str | None = None
    instructions: str | None = None
    grade_pattern: str | None = None
    partial_credit: bool = False
    reducer: str = "majority"
    max_tokens: int | None = None
    """Most tokens a grader reply may have (a capped run sends one in any case)."""


def model_graded_spec(name: str) -> ScorerSpec:
    return ScorerSpec(
        fn=None,
        params_model=_ModelGradedParams,
        rule_version=RULE_VERSION,
        family="model_graded",
    )


def grader_models(params: Mapping[str, Any]) -> list[str]:
    model = params["model"]
    return [model] if isinstance(model, str) else list(model)


def _grader_config(
    config: Mapping[str, Any], cache_scope: str | None
) -> GenerateConfig:
    """The grader models' config: the grade task's limits, its cache, the grader
    temperature."""
    generate = {
        key: value
        for key, value in config.items()
        if key
        in (
            "max_retries",
            "timeout",
            "attempt_timeout",
            "max_connections",
            "max_tokens",
        )
    }
    cache = (
        CachePolicy(expiry=None, per_epoch=False, scopes={"condition": cache_scope})
        if cache_scope
        else None
    )
    return GenerateConfig(temperature=GRADER_TEMPERATURE, cache=cache, **generate)


def build_model_graded(
    name: str,
    params: Mapping[str, Any],
    *,
    config: Mapping[str, Any],
    cache_scope: str | None,
) -> Any:
    """inspect's model-graded scorer whose grader models carry the grade task's
    limits, cache and temperature."""
    models = [
        # a config each, as inspect keeps the one it is given
        guard(
            get_model(model, config=_grader_config(config, cache_scope), memoize=False)
        )
        for model in grader_models(params)
    ]
    options = {
        key: params[key]
        for key in ("template", "instructions", "grade_pattern", "partial_credit")
    }
    graders = [MODEL_GRADED[name](**options, model=model) for model in models]
    # A panel is inspect's own: one grader per model, their grades reduced by
    # multi_scorer (what model_graded_qa(model=[...], reducer=...) builds from 0.3.262
    # on; before, it had no reducer and always took the mode).
    return graders[0] if len(graders) == 1 else multi_scorer(graders, params["reducer"])
