"""The `exact_match` scorer: the answer equals the target once both are stripped of
how models wrap answers and written in one form (`text_forms.normalise_text`)."""

from __future__ import annotations

import re

from .answer import find_answer
from .base import ScoreContext, ScoreResult, failed
from .hedges import after_retraction, sounds_unsure
from .text_forms import normalise_text
from .text_reading import (
    HEDGED,
    Ambiguous,
    apposition,
    committed,
    leading_sentences,
    offers_more,
    read_text_answer,
    stated_answer,
    subject_of,
)

__all__ = ["Ambiguous", "exact_match", "normalise_text", "read_text_answer"]


_ITEM = re.compile(r"\s*(?:[-*•]|\d{1,2}[.)])\s+\S")


def _ambiguous(answer: str) -> ScoreResult:
    return failed("ambiguous_answer", answer, "the answer offers more than one answer")


def _credit(answer: str) -> ScoreResult:
    return ScoreResult(score=1.0, answer=answer)


def exact_match(solution: str, context: ScoreContext) -> ScoreResult:
    """1.0 when the answer equals the target after both are normalised (see
    `normalise_text`).

    Runs of whitespace compare equal to a single space ("New  York" = "New York" ≠
    "NewYork"). A trailing ", not X" or aside in brackets is dropped; an answer offering
    two ("Paris or Lyon") is `ambiguous_answer`; an answer followed by more sentences
    ("Paris. It has been the capital since …") is its first sentences.
    """
    found = find_answer(solution)
    answer = found.text
    expected = normalise_text(context.target)
    if not expected:
        return failed(
            "empty_target",
            answer,
            "the item's target is empty, so there is nothing to match",
        )
    if normalise_text(answer) == expected:
        return _credit(answer)
    polar = _polar(answer, expected)
    if polar is not None:
        return polar
    if not found.marked:
        return _unmarked(answer, expected)
    try:
        return _marked(answer, expected)
    except Ambiguous:
        return _ambiguous(answer)


def _matches(text: str, expected: str) -> bool:
    """Whether one answer, hedge words around it dropped, is the target; raises
    Ambiguous when it offers two."""
    read = committed(read_text_answer(text))
    if normalise_text(read) == expected:
        return True
    if HEDGED.match(read) and not HEDGED.match(expected):
        raise Ambiguous(text)
    return False


def _marked(answer: str, expected: str) -> ScoreResult:
    """A marked answer, or its first sentences when more follow."""
    if _matches(answer, expected):
        return _credit(answer)
    for first, rest in leading_sentences(answer):
        if normalise_text(read_text_answer(first)) == expected:
            if offers_more(rest):
                raise Ambiguous(answer)
            return _credit(first)
    # "Paris, the capital of France"; "Kyoto? No — Tokyo."
    for said in (apposition(answer), after_retraction(answer)):
        if said is not None and len(said.split()) <= 8 and _matches(said, expected):
            return _credit(said)
    return ScoreResult(score=0.0, answer=answer)


_POLAR = {"yes", "no", "true", "false"}
_LEADING_POLAR = re.compile(
    r"^\W*(yes|no|true|false)\b(?:\s*[,.;:!—–-]|\s+because\b|\s+since\b|\s*$)",
    re.IGNORECASE,
)


def _polar(answer: str, expected: str) -> ScoreResult | None:
    """A yes/no (true/false) target against an answer of one sentence that opens
    with the word and gives a reason: "No, it is not.", "Yes, because 17 is prime."
    None when that is not the case (the usual rules apply)."""
    if expected not in _POLAR or "\n" in answer.strip():
        return None
    if len([s for s in re.split(r"(?<=[.!?])\s+", answer.strip()) if s]) > 1:
        return None
    lead = _LEADING_POLAR.match(answer)
    if lead is None:
        return None
    words = set(re.findall(r"\b(yes|no|true|false)\b", answer.casefold()))
    if len(words & (_POLAR - {"true", "false"})) > 1:  # "Yes and no."
        return failed("ambiguous_answer", answer, "the answer says both yes and no")
    said = lead[1].casefold()
    return ScoreResult(score=1.0 if said == expected else 0.0, answer=lead[1])


def _unmarked(reply: str, expected: str) -> ScoreResult:
    """A reply that marks no answer: a one-line answer may carry an aside, ", not X"
    or a hedge word ("Paris (France)", "I think it's Canberra."); else its first
    sentence may be the answer, or its last sentence state it ("… is Tokyo.",
    "Paris is the capital of France."); an unsure one is ambiguous."""
    sentences = [s for s in re.split(r"(?<=[.!?。！？])\s+|\n", reply.strip()) if s]
    if _offers_two(reply, sentences, expected):
        return _ambiguous(reply)
    one_line = "\n" not in reply.strip()
    try:
        if one_line and _matches(reply, expected):
            return _credit(reply)
    except Ambiguous:
        return _ambiguous(reply)
    # "Canberra. It was chosen as a compromise." on one line
    if one_line and len(sentences) > 1 and len(sentences[0].split()) <= 6:
        if _quietly(sentences[0], expected):
            return _credit(sentences[0])
    last = sentences[-1] if sentences else ""
    for said in (stated_answer(last), subject_of(last)):
        try:
            if said is not None and _matches(said, expected):
                return _credit(said)
        except Ambiguous:
            return _ambiguous(said or reply)
    return ScoreResult(score=0.0, answer=reply)


def _offers_two(reply: str, sentences: list[str], expected: str) -> bool:
    """Whether an unmarked reply is not sure, lists answers ("- Canberra\n- Sydney")
    or offers another after the target ("I think it's Canberra, but it might be
    Sydney.")."""
    if sounds_unsure(reply):
        return True
    if len(sentences) > 1 and all(_ITEM.match(s) for s in sentences):
        return any(_quietly(s, expected) for s in sentences)
    if any(offers_more(s) for s in sentences[1:]) or offers_more(reply.strip()):
        named = rf"(?<!\w){re.escape(expected)}(?!\w)"
        return re.search(named, normalise_text(reply)) is not None
    return False


def _quietly(text: str, expected: str) -> bool:
    """Whether `text` holds the target as an answer, a hedge counting as no."""
    try:
        return _matches(text, expected)
    except Ambiguous:
        return False
