"""A yes/no (or true/false) target against a short answer that opens with the word,
in English or another language ("Nope.", "Ja.", "はい。", "False.")."""

from __future__ import annotations

import re

from ..lazy import lazy_pattern
from .base import ScoreResult, failed

_YES = ("yes", "yeah", "yep", "yup", "true", "correct", "ja", "oui", "sí", "si")
_NO = ("no", "nope", "nah", "false", "incorrect", "nein", "non")
_CJK_YES = ("はい", "是的", "是", "对", "да")
_CJK_NO = ("いいえ", "不是", "否", "нет")
_SIDE = {word: "yes" for word in (*_YES, *_CJK_YES)} | {
    word: "no" for word in (*_NO, *_CJK_NO)
}
_LEADING = lazy_pattern(
    r"^\W*(?P<word>" + "|".join((*_YES, *_NO)) + r")\b"
    r"(?:\s*[,.;:!—–]|\s+-|\s+because\b|\s+since\b|\s*$)"
    r"|^\W*(?P<cjk>" + "|".join((*_CJK_YES, *_CJK_NO)) + r")(?=\W|$)",
    re.IGNORECASE,
)
_THINK_SO = lazy_pattern(
    r"^\W*i\s+(?P<neg>don['’]t\s+|do\s+not\s+)?(?:think|believe)\s+so\W*$",
    re.IGNORECASE,
)
_ANY = lazy_pattern(r"\b(yes|no)\b", re.IGNORECASE)


def polar(answer: str, expected: str) -> ScoreResult | None:
    """A yes/no (true/false) target against an answer of one sentence that opens
    with the word and gives a reason: "No, it is not.", "Yes, because 17 is prime.",
    "Nope.", "I don't think so.". None when that is not the case (the usual rules
    apply)."""
    want = _SIDE.get(expected)
    if want is None or "\n" in answer.strip():
        return None
    if len([s for s in re.split(r"(?<=[.!?。])\s*", answer.strip()) if s]) > 1:
        return None
    think = _THINK_SO.match(answer)
    if think is not None:
        said = "no" if think["neg"] else "yes"
        return ScoreResult(score=1.0 if said == want else 0.0, answer=answer.strip())
    lead = _LEADING.match(answer)
    if lead is None:
        return None
    word = (lead["word"] or lead["cjk"]).casefold()
    if len({w.casefold() for w in _ANY.findall(answer)}) > 1:  # "Yes and no."
        return failed("ambiguous_answer", answer, "the answer says both yes and no")
    return ScoreResult(score=1.0 if _SIDE[word] == want else 0.0, answer=word)
