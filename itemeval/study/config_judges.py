"""The study config's `graders:` entries: one LLM judge each, pointwise or pairwise."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..records import REASONING_EFFORTS
from .config_calls import CallLimits

MAX_DRAWS = 100
"""A judge's draws per answer; more is a typo, as with replications."""
ReasoningEffort = Literal[REASONING_EFFORTS]  # type: ignore[valid-type]


class Grader(CallLimits):
    model: str = Field(
        min_length=1,
        description="The judge's inspect model id.",
    )
    temperature: float | None = Field(
        default=None,
        ge=0,
        description=(
            "The judge's sampling temperature (default 0); part of the id "
            "when set to another value."
        ),
    )
    draws: int = Field(
        default=1,
        ge=1,
        le=MAX_DRAWS,
        description=(
            "How many times the judge grades each stored answer, each "
            "draw an independent sample (its own cache scope and seed); "
            "`results` reduces them per answer. Not part of the id: "
            "raising it asks only the new draws."
        ),
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description=(
            "Most tokens a judge reply may have; part of the grade condition id."
        ),
    )
    reasoning_effort: ReasoningEffort | None = Field(
        default=None,
        description="Reasoning effort for reasoning judges; part of the id.",
    )
    reasoning_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Reasoning token budget for reasoning judges; part of the id.",
    )
    kind: Literal["pointwise", "pairwise"] = Field(
        default="pointwise",
        description=(
            "`pairwise`: the judge says which of two stored answers is "
            'better (docs/guides/judges.md: "Pairwise judges").'
        ),
    )
    baseline: str | None = Field(
        default=None,
        description=(
            "pairwise: a generate condition (slug or id) every other one "
            "is compared with; default all pairs."
        ),
    )
    orders: Literal[1, 2] = Field(
        default=2,
        description=(
            "pairwise: 2 asks each pair in both orders; 1 once, in an "
            "order fixed by the pair's key."
        ),
    )
    rubric: str | None = Field(
        default=None,
        description=(
            "pairwise: its rubric (default `builtin:pairwise`), with "
            "{answer_a} and {answer_b}."
        ),
    )

    @model_validator(mode="after")
    def _pairwise_keys(self) -> Grader:
        """baseline, orders and rubric mean something only to a pairwise judge."""
        if self.kind != "pairwise":
            named = [
                k
                for k in ("baseline", "orders", "rubric")
                if k in self.model_fields_set
            ]
            if named:
                raise ValueError(f"{', '.join(named)} need kind: pairwise")
        elif self.draws != 1:
            # a verdict's key has no draw: the pairwise store would hold one of them
            raise ValueError("draws need kind: pointwise")
        return self
