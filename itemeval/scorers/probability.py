"""The probability scorers: `risk` reads the first token's logprobs, `numeric_risk` a
probability written as text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .answer import answer_region
from .base import ScoreContext, ScoreResult, failed

_PROBABILITY = re.compile(
    r"(?<![\w.])(?P<number>\d+(?:\.\d+)?|\.\d+)\s*(?P<percent>%?)"
)


def option_probs(
    first_token: dict, option_tokens: Sequence[str]
) -> dict[str, float] | None:
    """P(option) renormalised over the option tokens, from one token's top alternatives;
    None if none is there.

    A token counts for an option when it equals the option after stripping whitespace ("
    1" is "1"), and the probabilities of such variants add up. An option absent from the
    alternatives gets 0.
    """
    candidates = list(first_token.get("top") or []) or [first_token]
    mass = dict.fromkeys(option_tokens, 0.0)
    for candidate in candidates:
        token = (candidate.get("token") or "").strip()
        if token in mass and candidate.get("logprob") is not None:
            mass[token] += math.exp(candidate["logprob"])
    total = sum(mass.values())
    if total <= 0:
        return None
    return {token: value / total for token, value in mass.items()}


def risk(
    solution: str, context: ScoreContext, *, option_tokens: Sequence[str] = ("0", "1")
) -> ScoreResult:
    """Correct when the most probable option token (first generated token) is the
    target.

    `risk_score` is P(last option) for two options, so with the default ("0", "1") it is
    P("1").
    """
    tokens = context.logprobs
    if not tokens:
        return failed(
            "no_logprobs",
            None,
            "the solution has no logprobs: set solvers.logprobs: true and "
            "solvers.top_logprobs (e.g. 20) and generate again",
        )
    probs = option_probs(tokens[0], list(option_tokens))
    if probs is None:
        return _no_option_token(tokens[0], option_tokens)
    # a tie goes to the option listed first
    predicted = max(probs, key=lambda token: probs[token])
    return ScoreResult(
        score=1.0 if predicted == context.target.strip() else 0.0,
        answer=predicted,
        explanation=f"first token {tokens[0].get('token')!r}",
        metadata={
            "option_probs": probs,
            "risk_score": probs[option_tokens[-1]] if len(option_tokens) == 2 else None,
        },
    )


def _no_option_token(first: dict, option_tokens: Sequence[str]) -> ScoreResult:
    """The failure of a first token none of whose alternatives is an option token."""
    seen = [candidate.get("token") for candidate in (first.get("top") or [first])]
    return failed(
        "option_token_missing",
        None,
        f"none of the option tokens {list(option_tokens)} is among the "
        f"first token's alternatives {seen}",
    )


def read_probability(text: str) -> float | None:
    """The last number in the answer read as a probability: 0.73, .73 and 73% all
    read 0.73; None outside [0, 1]."""
    matches = list(_PROBABILITY.finditer(answer_region(text)))
    if not matches:
        return None
    last = matches[-1]
    value = float(last["number"]) / (100 if last["percent"] else 1)
    return value if 0.0 <= value <= 1.0 else None


def numeric_risk(
    solution: str, context: ScoreContext, *, labels: Sequence[str] = ("0", "1")
) -> ScoreResult:
    """A probability of the positive (last) label written as text, thresholded at 0.5
    against the target."""
    value = read_probability(solution)
    if value is None:
        return failed(
            "not_a_probability",
            None,
            "no number between 0 and 1 (or percentage) found in the answer",
        )
    probs = {labels[0]: 1.0 - value, labels[-1]: value}
    predicted = labels[-1] if value >= 0.5 else labels[0]
    correct = predicted == context.target.strip()
    return ScoreResult(
        score=1.0 if correct else 0.0,
        answer=predicted,
        explanation=f"read probability {value!r}",
        metadata={"option_probs": probs, "risk_score": value},
    )
