"""The study's declared analysis (`analysis:` in the config): what will be concluded
from what, frozen by `itemeval preregister` before the data
(study/preregistration.py)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Analysis(BaseModel):
    """What `results` will conclude from: the compared pairs, the grade conditions,
    the figures, and how intervals and tests are made. Every field has the default
    `results` uses, so a declaration says exactly what a plain `results` shows."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    compare: list[list[str]] = Field(
        default=[],
        description=(
            "The pairs compared, each two generate conditions (slug or "
            "id) as `results --compare A B` names them, or two levels of "
            "`by`; empty: no comparison is declared (the cells' means "
            "alone are)."
        ),
    )
    by: Optional[Literal["model", "prompt", "model_config"]] = Field(
        default=None,
        description=(
            "The generate facet whose levels `compare` names (`results "
            "--compare A B --by model`); None: the pairs are conditions."
        ),
    )
    graders: list[str] = Field(
        default=[],
        description=(
            "The grade conditions (slugs) the conclusions rest on; empty: every one."
        ),
    )
    metrics: list[str] = Field(
        default=["mean"],
        description=(
            "The figures concluded from: `mean` (the cells' item means "
            "and their paired differences) and any of the study's "
            "`metrics:` by name."
        ),
    )
    reducer: str = Field(
        default="mean",
        description=(
            "`results --reducer`: a cell's replications to one score per item."
        ),
    )
    draws: Literal["mean", "majority", "median"] = Field(
        default="mean",
        description=("`results --draws`: a judge's draws of one answer to one score."),
    )
    interval: Literal["auto", "t", "wilson", "bootstrap"] = Field(
        default="auto",
        description="`results --ci`: how the cells' intervals are made.",
    )
    alpha: float = Field(
        default=0.05,
        gt=0,
        lt=1,
        description=("The error rate a declared comparison is decided at (two-sided)."),
    )
    correction: Literal["holm", "none"] = Field(
        default="holm",
        description=(
            "Which p decides across the declared pairs: `holm` "
            "(p_adjusted) or `none` (p)."
        ),
    )
    stopping: Literal["fixed", "until-decided", "race"] = Field(
        default="fixed",
        description=(
            "How the run ends: every item (`fixed`), `generate "
            "--until-decided`, or a race."
        ),
    )
    note: Optional[str] = Field(
        default=None,
        description=(
            "Anything else the plan says, in words (the hypotheses, the "
            "primary outcome)."
        ),
    )

    @field_validator("compare")
    @classmethod
    def _pairs(cls, pairs: list[list[str]]) -> list[list[str]]:
        for pair in pairs:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ValueError(
                    f"each compared pair names two different conditions, e.g. "
                    f"[base, tuned]; got {pair}"
                )
        return pairs
