"""The study config's settings of one model call, shared by solvers and judges:
sampling parameters and call limits."""

from __future__ import annotations

import math
from typing import Any, Literal, Optional

from pydantic import Field, create_model

from ..records import SAMPLING_PARAMS, SamplingParam
from .agent_config import MAX_TIMEOUT_S, Strict


def _sampling_field(param: SamplingParam) -> tuple[Any, Any]:
    kind: Any = {"float": float, "int": int, "bool": bool}.get(param.type) or Literal[
        param.choices
    ]  # type: ignore[valid-type]
    return Optional[kind], Field(default=None, description=param.doc, **param.bounds)


SamplingParams = create_model(
    "SamplingParams",
    __base__=Strict,
    __doc__="The sampling settings, one field per entry of SAMPLING_PARAMS.",
    **{param.name: _sampling_field(param) for param in SAMPLING_PARAMS},
)


class CallLimits(Strict):
    max_retries: int = Field(
        default=3,
        ge=0,
        description=(
            "inspect's retries per call for 429/5xx/timeouts (inspect "
            "alone would retry forever)."
        ),
    )
    timeout: float = Field(
        default=600.0,
        gt=0,
        le=MAX_TIMEOUT_S,
        description=(
            "Seconds a call may take in total, retries included, before "
            "it becomes an error row."
        ),
    )
    attempt_timeout: float = Field(
        default=180.0,
        gt=0,
        le=MAX_TIMEOUT_S,
        description=(
            "Seconds one attempt may take before it is abandoned and retried."
        ),
    )
    max_connections: int | None = Field(
        default=None,
        ge=1,
        description="Concurrent calls per model (inspect's default when unset).",
    )

    def inspect_limits(self) -> dict[str, Any]:
        """These limits as GenerateConfig fields; inspect takes whole seconds, so
        timeouts round up."""
        limits = {
            "max_retries": self.max_retries,
            "timeout": math.ceil(self.timeout),
            "attempt_timeout": math.ceil(self.attempt_timeout),
            "max_connections": self.max_connections,
        }
        return {key: value for key, value in limits.items() if value is not None}
