"""The study config's base model and its `agents:` entries (README "Agents"): split
from config.py, which re-exports every name."""

from __future__ import annotations

from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_TIMEOUT_S = 7 * 86_400


class Strict(BaseModel):
    # allow_inf_nan: `.inf` is valid YAML, and neither a cap nor a timeout may be
    # infinite. Every field has a description= (test_config checks it): the config
    # reference and the JSON Schema (`itemeval schema`) are generated from them
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


AGENT_SOLVERS = ("react", "generate", "chain_of_thought", "self_critique", "task")
"""The solvers an `agents:` entry may name besides a user's `module:function`."""
BUILTIN_SOLVERS = ("plain", "task")
"""`facets.solver` names that need no `agents:` entry: today's one call, and an
inspect task's own solver."""
DEFAULT_MESSAGE_LIMIT = 30
"""An agent entry's message limit when it sets neither message_limit nor token_limit:
every agent cell has a worst case for the estimate and the cap."""


class ToolEntry(Strict):
    name: str = Field(
        min_length=1,
        description=(
            "An inspect tool by name (bash, python, text_editor, think) "
            "or a user `@tool` as `module:function` from beside the "
            "config."
        ),
    )
    args: dict[str, Any] = Field(
        default={},
        description=(
            "The tool factory's arguments (bash: timeout, ...); part of the id."
        ),
    )


class AgentEntry(Strict):
    solver: str = Field(
        min_length=1,
        description=(
            "react, generate (a tool loop), chain_of_thought, "
            "self_critique, task (the inspect task's own solver) or a "
            "user `@solver`/`@agent` as `module:function` from beside the "
            "config."
        ),
    )
    args: dict[str, Any] = Field(
        default={},
        description=(
            "The solver factory's arguments (react: prompt, attempts, "
            "...); part of the id."
        ),
    )
    tools: list[Union[str, ToolEntry]] = Field(
        default=[],
        description=(
            "Tools offered to the model: a name or {name, args}; part of the id."
        ),
    )
    message_limit: int | None = Field(
        default=None,
        ge=1,
        description="inspect's per-sample message limit; part of the id.",
    )
    token_limit: int | None = Field(
        default=None,
        ge=1,
        description=(
            "inspect's per-sample token limit (every call's input and "
            "output); part of the id."
        ),
    )
    time_limit: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT_S,
        description=(
            "inspect's per-sample wall-clock limit in seconds; part of the id."
        ),
    )
    working_limit: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT_S,
        description=(
            "inspect's per-sample working-time limit in seconds (waits "
            "for connections and retries excluded); part of the id."
        ),
    )
    sandbox: str | None = Field(
        default=None,
        description=(
            "The sandbox its tools run in (`local`, or `docker` where "
            "installed); default the study's `sandbox`."
        ),
    )

    @field_validator("solver")
    @classmethod
    def _known_solver(cls, value: str) -> str:
        if value in AGENT_SOLVERS or ":" in value:
            return value
        raise ValueError(
            f"unknown solver {value!r}: use one of {', '.join(AGENT_SOLVERS)} or a "
            "user @solver as module:function"
        )

    def limits(self) -> dict[str, float | int]:
        """The limits inspect is given (a message limit by default, see
        DEFAULT_MESSAGE_LIMIT)."""
        names = ("message_limit", "token_limit", "time_limit", "working_limit")
        found = {n: getattr(self, n) for n in names if getattr(self, n) is not None}
        if "message_limit" not in found and "token_limit" not in found:
            found["message_limit"] = DEFAULT_MESSAGE_LIMIT
        return found
