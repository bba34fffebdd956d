"""The `exact_match` scorer: the answer equals the target once both are stripped of
how models wrap answers."""

from __future__ import annotations

import re
import unicodedata

from .answer import find_answer
from .base import ScoreContext, ScoreResult, failed
from .hedges import is_hedge, sounds_unsure

_LATEX_WRAPPER = re.compile(
    r"\\(?:text|textbf|textit|mathrm|mathbf|mathit|emph|boxed|fbox)\s*\{([^{}]*)\}"
)
_MATH_DELIMITERS = re.compile(r"\\\[|\\\]|\\\(|\\\)|\$\$?")
_PAIRS = {
    "`": "`",
    '"': '"',
    "'": "'",
    "“": "”",
    "‘": "’",
    "«": "»",
    "[": "]",
    "(": ")",
    "{": "}",
    "*": "*",
    "_": "_",
    "„": "“",
}
_TRAILING = ".!?…;,:"
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)")
_NOT_CLAUSE = re.compile(r",\s+not\s+[^,]*$", re.IGNORECASE)
_TRAILING_ASIDE = re.compile(r"(?<=\S)\s+\(([^()]*)\)$")
# a reply ending "The capital of Japan is Tokyo."
_COPULA = re.compile(
    r"(?:\b(?:(?:is|are|was|were|be)\s+)?(?:called|named|known\s+as)\b"
    r"|\b(?:is|are|was|were|be)\b|\bit[’']s)"
    r"\s+(?P<answer>[^\s].{0,60}?)\s*[.!]?\s*\Z",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:think|thinks|thought|believe|believes|believed|assume|assumes|assumed|"
    r"say|says|said|claim|claims|claimed|mistake|mistakes|mistaken|confuse|confuses|"
    r"confused|guess|guesses)\b",
    re.IGNORECASE,
)
"""A last sentence that reports what someone believes, not what the reply answers."""
_HEDGED = re.compile(
    r"^(?:either\s+)?\S.*?(?:\s+or\s+|,?\s+(?:possibly|maybe|perhaps|probably)\s+)\S",
    re.IGNORECASE,
)


def _unwrap(text: str) -> str:
    """Strip wrappers and trailing punctuation until none is left: "`**Paris**`." →
    "Paris"."""
    previous = None
    while text != previous:
        previous = text
        text = _LATEX_WRAPPER.sub(r"\1", text)
        text = _MATH_DELIMITERS.sub("", text).strip().rstrip(_TRAILING).strip()
        if (text[:1] in ("*", "_")) != (text[-1:] in ("*", "_")):
            text = text.strip("*_ ")  # emphasis left dangling by a cut: "Canberra**"
        while len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
            text = text[1:-1].strip()
    return text


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'"})
"""Typographic apostrophes as the ASCII one: "O’Brien" is "O'Brien"."""


def normalise_text(text: str) -> str:
    """Compatibility forms folded (NFKC: "Ｐａｒｉｓ", "H₂O"), typographic apostrophes
    made plain, wrappers and end punctuation gone, whitespace runs collapsed, case
    folded, a leading article dropped."""
    folded = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    collapsed = " ".join(_unwrap(" ".join(folded.split())).split()).casefold()
    return _unwrap(_LEADING_ARTICLE.sub("", collapsed))  # "the **Sahara**"


class Ambiguous(Exception):
    """The answer offers two answers ("Paris or Lyon", "Paris (or maybe Lyon)")."""


def read_text_answer(answer: str) -> str:
    """The answer without a trailing ", not Sydney" or aside "(France)"; raises
    Ambiguous on a hedge."""
    text = _unwrap(" ".join(unicodedata.normalize("NFKC", answer).split()))
    aside = _TRAILING_ASIDE.search(text)
    if aside is not None:
        if is_hedge(aside[1]):
            raise Ambiguous(text)
        text = text[: aside.start()]
    return _unwrap(_NOT_CLAUSE.sub("", text))


def exact_match(solution: str, context: ScoreContext) -> ScoreResult:
    """1.0 when the answer equals the target after both are normalised (see
    `normalise_text`).

    Runs of whitespace compare equal to a single space ("New  York" = "New York" ≠
    "NewYork"). A trailing ", not X" or aside in brackets is dropped; an answer offering
    two ("Paris or Lyon") is `ambiguous_answer`.
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
        return ScoreResult(score=1.0, answer=answer)
    polar = _polar(answer, expected)
    if polar is not None:
        return polar
    if not found.marked:
        return _unmarked(answer, expected)
    try:
        read = read_text_answer(answer)
    except Ambiguous:
        return failed(
            "ambiguous_answer", answer, "the answer offers more than one answer"
        )
    if _HEDGED.match(read) and not _HEDGED.match(expected):
        return failed(
            "ambiguous_answer", answer, "the answer offers more than one answer"
        )
    return ScoreResult(
        score=1.0 if normalise_text(read) == expected else 0.0, answer=answer
    )


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
    """A reply that marks no answer: a one-line answer may carry an aside or ", not
    X" ("Paris (France)"); else its last sentence may state it ("… is Tokyo."); an
    unsure one is ambiguous."""
    if sounds_unsure(reply):
        return failed("ambiguous_answer", reply, "the reply is not sure of its answer")
    if "\n" not in reply.strip():
        try:
            if normalise_text(read_text_answer(reply)) == expected:
                return ScoreResult(score=1.0, answer=reply)
        except Ambiguous:
            return failed(
                "ambiguous_answer", reply, "the answer offers more than one answer"
            )
    last_sentence = re.split(r"(?<=[.!?])\s+|\n", reply.strip())[-1]
    stated = _COPULA.search(last_sentence)
    if stated is not None and _REPORTED.search(last_sentence[: stated.start()]):
        stated = None  # "Many people think it is Sydney." states no answer
    if stated is not None and normalise_text(stated["answer"]) == expected:
        return ScoreResult(score=1.0, answer=stated["answer"])
    if (
        stated is not None
        and _HEDGED.match(stated["answer"])
        and not _HEDGED.match(expected)
    ):
        return failed(
            "ambiguous_answer",
            stated["answer"],
            "the answer offers more than one answer",
        )
    return ScoreResult(score=0.0, answer=reply)
