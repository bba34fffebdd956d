"""The pieces every scorer shares: the result it returns, the context it reads, where
the answer is in a reply."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Literal

from pydantic import BaseModel

# One shared read-only empty mapping, so no context can grow metadata another one sees.
_NO_METADATA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ScoreResult:
    """The outcome of one scorer on one solution; `score is None` exactly when
    `parse_error` is set."""

    score: float | None
    answer: str | None
    """What was read from the solution (stored as `score_raw`)."""
    parse_error: str | None = None
    """A failure code such as `no_number_found`; a result, not an exception."""
    explanation: str | None = None
    raw: str | None = None
    """The score's original value as text when it was not a float (inspect's "C",
    "I", "P", "N"); stored as `score_raw`."""
    metadata: Mapping[str, Any] | None = None
    """What else the scorer reported (e.g. `option_probs`, `risk_score`); stored as
    JSON in `score_metadata`."""

    def __post_init__(self) -> None:
        if (self.score is None) != (self.parse_error is not None):
            raise ValueError(
                "ScoreResult needs a score or a parse_error, not both or "
                f"neither: {self}"
            )


@dataclass(frozen=True)
class ScoreContext:
    """What a scorer may know about the item besides the solution."""

    targets: tuple[str, ...] = ()
    """One or several acceptable targets."""
    choices: tuple[str, ...] = ()
    """The item's option texts, when it has choices."""
    # Metadata and logprobs may hold unhashable values, so they stay out of the hash
    # (not out of ==).
    metadata: Mapping[str, Any] = field(
        default_factory=lambda: _NO_METADATA, hash=False
    )
    """The item's mapped metadata columns."""
    logprobs: Any = field(default=None, hash=False)
    """The solution's stored logprobs, when generate asked for them."""
    input: str = ""
    """The item's input, for scorers that read the question (inspect's
    TaskState.input)."""

    @property
    def target(self) -> str:
        """The first target, "" when there is none."""
        return self.targets[0] if self.targets else ""

    @classmethod
    def of(cls, target: str | Sequence[str], **rest: Any) -> ScoreContext:
        """A context from one target string or a sequence of them; `rest` are the
        other fields."""
        targets = (target,) if isinstance(target, str) else tuple(target)
        return cls(targets=targets, **rest)


Family = Literal[
    "careful", "probability", "text", "inspect", "user", "multi", "model_graded"
]


@dataclass(frozen=True)
class ScorerSpec:
    """One scorer: its family, params model and rule version; pure families also
    carry their function."""

    fn: Callable[..., ScoreResult] | None
    """`fn(solution, context, **params)` for the careful and probability families;
    None for inspect's scorers."""
    params_model: type[BaseModel]
    rule_version: str
    """Part of the grade condition's identity: bump it whenever the scorer's rules
    change."""
    family: Family = "careful"
    needs: tuple[str, ...] = ()
    """What the study must provide: "choices" (mapping.choices), "logprobs"
    (solvers.logprobs)."""
    all_targets: bool = False
    """`fn` compares with every acceptable target itself (BLEU's several references),
    rather than being called once per target."""


def failed(code: str, answer: str | None, explanation: str) -> ScoreResult:
    """A result that could not be scored: the failure `code` is data, not an
    exception."""
    return ScoreResult(
        score=None, answer=answer, parse_error=code, explanation=explanation
    )
