"""The `exact_match` scorer: the answer equals the target up to case, whitespace runs and a trailing period."""

from __future__ import annotations

from .base import ScoreContext, ScoreResult, answer_region, failed


def _normalise_text(text: str) -> str:
    """Case-folded, whitespace runs collapsed, wrapping `*` emphasis and one trailing period dropped."""
    collapsed = " ".join(text.split()).strip("* ")
    if collapsed.endswith("."):
        collapsed = collapsed[:-1].rstrip()
    return collapsed.casefold()


def exact_match(solution: str, context: ScoreContext) -> ScoreResult:
    """1.0 when the answer equals the target ignoring case, runs of whitespace and a trailing period.

    Runs of whitespace compare equal to a single space ("New  York" = "New York" ≠ "NewYork").
    """
    answer = answer_region(solution)
    expected = _normalise_text(context.target)
    if not expected:
        return failed("empty_target", answer, "the item's target is empty, so there is nothing to match")
    return ScoreResult(score=1.0 if _normalise_text(answer) == expected else 0.0, answer=answer)
