"""The `exact_match` scorer: the answer equals the target once both are stripped of
how models wrap answers and written in one form (`text_forms.normalise_text`)."""

from __future__ import annotations

import re

from .answer import Answer, find_answer, without_thinking
from .base import ScoreContext, ScoreResult, failed
from .hedges import after_retraction, sounds_unsure
from .numeric import numeric, read_target_number
from .text_forms import normalise_text, same_answer, target_forms, unwrap
from .text_polar import polar
from .text_reading import (
    HEDGED,
    Ambiguous,
    apposition,
    committed,
    leading_sentences,
    offers_more,
    read_text_answer,
    second_thought,
    stated_answers,
    subject_of,
)

__all__ = ["Ambiguous", "exact_match", "normalise_text", "read_text_answer"]

Forms = frozenset[str]
_ITEM = re.compile(r"\s*(?:[-*•>]|\d{1,2}[.)])\s+\S")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n")


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
    ("Paris. It has been the capital since …") is its first sentences; a sentence that
    states the answer is read for it; a number target is also met by the number the
    reply gives (as `numeric` reads it).
    """
    found = find_answer(solution)
    answer = found.text
    forms = target_forms(context.target)
    if not forms:
        return failed(
            "empty_target",
            answer,
            "the item's target is empty, so there is nothing to match",
        )
    instead = _taken_back(solution, found)
    if instead is not None:
        # "The answer is Sydney. Just kidding, it's Canberra.": the second answer
        return _credit(instead) if _quietly(instead, forms) else _zero(solution)
    if same_answer(answer, forms):
        return _credit(answer)
    yes_no = polar(answer, normalise_text(context.target))
    if yes_no is not None:
        return yes_no
    try:
        result = _marked(answer, forms) if found.marked else _unmarked(answer, forms)
    except Ambiguous:
        return _ambiguous(answer)
    if result.score == 0.0 and read_target_number(context.target) is not None:
        # "A hexagon has six sides." for 6, "300,000 km/s" for 300000; written to the
        # target's own decimals ("3.14" is not "3.140")
        by_number = numeric(solution, context)
        if by_number.score == 1.0 and _decimals(by_number.answer) == _decimals(
            context.target
        ):
            return _credit(answer)
    return result


def _decimals(number: str | None) -> int:
    digits = re.search(r"\.(\d+)", number or "")
    return len(digits[1]) if digits else 0


def _zero(answer: str) -> ScoreResult:
    return ScoreResult(score=0.0, answer=answer)


_TAKEN_BACK = re.compile(
    r"\b(?:just\s+kidding|scratch\s+that|I\s+was\s+wrong|correction|no,\s+wait"
    r"|wait,\s+no|that['’]s\s+wrong|I\s+mean)\b[\s,:;.!—–-]*",
    re.IGNORECASE,
)


def _taken_back(solution: str, found: Answer) -> str | None:
    """The short answer a reply gives after taking its marked answer back, or
    None."""
    if not found.marked or not found.text:
        return None
    tail = found.after
    if tail is None:
        at = solution.rfind(found.text)
        tail = solution[at + len(found.text) :] if at >= 0 else ""
    cues = list(_TAKEN_BACK.finditer(tail))
    again = tail[cues[-1].end() :].strip() if cues else ""
    return again if again and len(again.split()) <= 8 else None


def _matches(text: str, forms: Forms) -> bool:
    """Whether one answer, hedge words around it dropped, is the target; raises
    Ambiguous when it offers two."""
    read = committed(read_text_answer(text))
    if same_answer(read, forms):
        return True
    if HEDGED.match(read) and not any(HEDGED.match(form) for form in forms):
        raise Ambiguous(text)
    return False


def _quietly(text: str, forms: Forms) -> bool:
    """Whether `text` holds the target as an answer, a hedge counting as no."""
    try:
        return _matches(text, forms)
    except Ambiguous:
        return False


def _says(sentence: str, forms: Forms) -> bool:
    """Whether a sentence states the target as its answer ("… is Tokyo.", "Paris is
    the capital of France.", "… was written by George Orwell.")."""
    candidates = [*stated_answers(sentence), subject_of(sentence)]
    return any(c is not None and _matches(c, forms) for c in candidates)


def _marked(answer: str, forms: Forms) -> ScoreResult:
    """A marked answer, or its first sentences when more follow, or what its
    sentence states."""
    if _matches(answer, forms):
        return _credit(answer)
    for first, rest in leading_sentences(answer):
        if same_answer(read_text_answer(first), forms):
            if offers_more(rest):
                raise Ambiguous(answer)
            return _credit(first)
    # "Paris, the capital of France"; "Kyoto? No — Tokyo."
    for said in (apposition(answer), after_retraction(answer)):
        if said is not None and len(said.split()) <= 8 and _matches(said, forms):
            return _credit(said)
    first = _SENTENCE.split(unwrap(answer.strip()))[0]
    if not offers_more(answer) and _says(first, forms):
        return _credit(first)
    return ScoreResult(score=0.0, answer=answer)


def _content_lines(reply: str) -> list[str]:
    """The reply's lines without list and quote marks, an introduction ("Key
    points:") left out."""
    raw = [line for line in without_thinking(reply).splitlines() if line.strip()]
    if len(raw) > 1 and raw[0].rstrip("* \t").endswith(":"):
        raw = raw[1:]
    return [line for line in (unwrap(line) for line in raw) if line]


def _unmarked(reply: str, forms: Forms) -> ScoreResult:
    """A reply that marks no answer: a one-line answer may carry an aside, ", not X"
    or a hedge word ("Paris (France)", "I think it's Canberra."); else its first
    short sentence or line may be the answer ("Canberra. It was chosen …", "1.
    Ottawa"), or its first or last sentence state it ("… is Tokyo.", "Paris is the
    capital of France."); an unsure one is ambiguous."""
    sentences = [s for s in _SENTENCE.split(reply.strip()) if s]
    if _offers_two(reply, sentences, forms):
        raise Ambiguous(reply)
    if "\n" not in reply.strip() and _matches(reply, forms):
        return _credit(reply)
    lines = _content_lines(reply)
    first = [s for s in _SENTENCE.split(lines[0]) if s] if lines else []
    rest = " ".join([*first[1:], *lines[1:]])
    if first and len(first[0].split()) <= 6 and not first[0].endswith("?"):
        if not offers_more(rest) and _quietly(first[0], forms):
            return _credit(first[0])
    for sentence in {first[0] if first else "", sentences[-1] if sentences else ""}:
        if sentence and _says(sentence, forms):
            return _credit(sentence)
    return ScoreResult(score=0.0, answer=reply)


def _offers_two(reply: str, sentences: list[str], forms: Forms) -> bool:
    """Whether an unmarked reply is not sure, lists answers ("- Canberra\n- Sydney")
    or offers another after the target ("I think it's Canberra, but it might be
    Sydney.")."""
    if sounds_unsure(reply):
        return True
    items = [s for s in sentences if _ITEM.match(s)]
    short = [s for s in items if len(s.split()) <= 5]
    if len(sentences) > 1 and len(items) == len(sentences) and len(short) > 1:
        return any(_quietly(s, forms) for s in short)
    if any(offers_more(s) for s in sentences[1:]) or second_thought(reply):
        said = normalise_text(reply)
        return any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", said) for f in forms)
    return False
