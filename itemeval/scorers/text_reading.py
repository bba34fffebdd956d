"""Which words of a short answer are the answer: asides and "not X" clauses set aside,
hedge words around one committed answer dropped, the sentence that states it."""

from __future__ import annotations

import re
import unicodedata

from ..lazy import lazy_pattern
from .hedges import is_hedge
from .text_forms import unwrap

_NOT_CLAUSE = lazy_pattern(
    r"(?:,|;)\s*(?:not|rather\s+than|instead\s+of|but\s+not)\b[^,]*$"
    r"|(?:\s[—–-]|\s\()\s*(?:not|rather\s+than|instead\s+of|but\s+not)\b.*$",
    re.IGNORECASE,
)
_INNER_NOT = lazy_pattern(r",\s+not\s+[^,]{1,40},", re.IGNORECASE)
_TRAILING_ASIDE = lazy_pattern(r"(?<=\S)\s+\(([^()]*)\)$")
HEDGED = lazy_pattern(
    r"^(?:either\s+)?\S.*?(?:\s+or\s+|,?\s+(?:possibly|maybe|perhaps|probably)\s+)\S",
    re.IGNORECASE,
)
"""Two answers offered: "Paris or Lyon", "neon, possibly argon"."""
_COMMITTED_LEAD = lazy_pattern(
    r"^(?:(?:i\s+(?:think|believe|guess|suspect|reckon)|i['’]m\s+(?:fairly\s+|pretty\s+"
    r"|quite\s+)?(?:sure|confident|certain)|probably|likely|most\s+likely|perhaps"
    r"|maybe|if\s+i\s+remember\s+correctly,?|my\s+(?:best\s+)?guess\s+is)"
    r"(?:\s+(?:that\s+)?(?:it['’]s|it\s+is|it\s+was|the\s+answer\s+is))?[\s:,]+)",
    re.IGNORECASE,
)
_COMMITTED_TAIL = lazy_pattern(
    r",?\s+(?:i\s+think|i\s+believe|i\s+guess|probably|i['’]m\s+fairly\s+sure"
    r"|(?:though|but)\s+i['’]m\s+not\s+(?:100\s*%|entirely|completely|totally)?\s*"
    r"(?:sure|certain))\W*$",
    re.IGNORECASE,
)


class Ambiguous(Exception):
    """The answer offers two answers ("Paris or Lyon", "Paris (or maybe Lyon)")."""


def read_text_answer(answer: str) -> str:
    """The answer without a trailing ", not Sydney", "— not Sydney" or aside
    "(France)"; raises Ambiguous on a hedge."""
    text = unwrap(" ".join(unicodedata.normalize("NFKC", answer).split()))
    aside = _TRAILING_ASIDE.search(text)
    if aside is not None:
        if is_hedge(aside[1]):
            raise Ambiguous(text)
        text = text[: aside.start()]
    return unwrap(_NOT_CLAUSE.sub("", _INNER_NOT.sub("", text)))


def committed(text: str) -> str:
    """One answer without the hedge words around it: "I think it's Canberra",
    "Probably Canberra", "Canberra, I think" → "Canberra"."""
    return unwrap(_COMMITTED_TAIL.sub("", _COMMITTED_LEAD.sub("", text.strip())))


_SENTENCE_BREAK = lazy_pattern(r"(?<=[.!?。！？])\s+(?=\S)")
_MORE_ANSWERS = lazy_pattern(
    r"^\W*(?:or|no|not|nope|maybe|perhaps|possibly|alternatively|though|but\s+(?:it\s+)?"
    r"(?:might|could|may))\b",
    re.IGNORECASE,
)
_SECOND_THOUGHT = lazy_pattern(
    r"\b(?:wait|actually|no,|just\s+kidding|correction)\b"
    r"|,?\s+but\s+(?:it\s+)?(?:might|could|may)\s+(?:also\s+)?be\b",
    re.IGNORECASE,
)


def leading_sentences(text: str) -> list[tuple[str, str]]:
    """(the first sentences, the rest) at each sentence break of an answer: "Paris.
    It is the capital." → [("Paris.", "It is the capital.")]."""
    breaks = [m.start() for m in _SENTENCE_BREAK.finditer(text.strip())]
    body = text.strip()
    return [(body[:at], body[at:].strip()) for at in breaks]


def offers_more(rest: str) -> bool:
    """Whether what follows an answer offers another or takes it back ("Or maybe
    Lyon.", "No — …", "Wait, actually …")."""
    return _MORE_ANSWERS.search(rest) is not None or second_thought(rest)


def second_thought(text: str) -> bool:
    """Whether a reply takes its answer back or offers another anywhere in it
    ("Wait, actually …", "…, but it might be Sydney")."""
    return _SECOND_THOUGHT.search(text) is not None


_SUBJECT = lazy_pattern(
    r"^(?:the\s+)?(?P<subject>[^,;:]{1,60}?)(?:,\s+not\s+[^,]{1,40},)?\s+"
    r"(?:is|was|are|were|wrote|painted|composed|discovered|invented|founded|built"
    r"|directed|designed|developed|led|won|sculpted|formulated|proposed)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_NO_CLAIM = lazy_pattern(
    r"\b(?:not|never|no\s+longer|isn['’]t|wasn['’]t|aren['’]t|weren['’]t|but|however"
    r"|although|though|while|whereas|whether|if)\b|n['’]t\b",
    re.IGNORECASE,
)


def subject_of(sentence: str) -> str | None:
    """The subject of a sentence that states the answer about it: "Paris is the
    capital of France." → "Paris"; None for a negation or a contrast ("Sydney is
    the largest city, but …")."""
    stated = _SUBJECT.match(sentence.strip())
    if stated is None or _NO_CLAIM.search(stated["rest"]):
        return None
    if _NO_CLAIM.search(stated["subject"]):
        return None
    return stated["subject"]


_COPULA = lazy_pattern(
    r"(?:\b(?:(?:is|are|was|were|be)\s+)?(?:called|named|known\s+as)\b"
    r"|\b(?:is|are|was|were|be)\b|\bit[’']s)\s+",
    re.IGNORECASE,
)
# "was written by George Orwell", "was developed by Charles Darwin"
_PASSIVE = lazy_pattern(
    r"\b(?:was|were|is)\s+\w+\s+by\s+(?P<agent>[^,;]{1,60}?)\s*[.!]?\s*\Z"
)
_LEADING_WORDS = lazy_pattern(
    r"^(?:in|on|at|from|about|around|approximately|roughly|nearly|called|named)\s+",
    re.IGNORECASE,
)
_CONTRAST = lazy_pattern(r"[,;]\s*(?:but|however|though|although|yet)\b", re.IGNORECASE)
_CLAUSE_END = lazy_pattern(r",\s+(?:which|who|where|and|but)\b|[,;]|\s+\(|[.!]?\s*\Z")
_REPORTED = lazy_pattern(
    r"\b(?:think|thinks|thought|believe|believes|believed|assume|assumes|assumed|"
    r"say|says|said|claim|claims|claimed|mistake|mistakes|mistaken|confuse|confuses|"
    r"confused|guess|guesses)\b",
    re.IGNORECASE,
)
"""A last sentence that reports what someone believes, not what the reply answers."""
_FIRST_PERSON = lazy_pattern(
    r"^\W*(?:i|we|my(?:\s+best)?)\s+(?:think|believe|guess|reckon|suspect)?",
    re.IGNORECASE,
)


def stated_answers(sentence: str) -> list[str]:
    """What a sentence says the answer is, last clause first ("The capital of Japan
    is Tokyo." → ["Tokyo"]; "Egypt is in Africa." → ["Africa", …]; "… was written by
    George Orwell." → ["George Orwell"]); a reported belief ("Many people think it is
    Sydney.") states nothing, the reply's own ("I think it's Canberra.") does."""
    said = []
    passive = _PASSIVE.search(sentence)
    if passive is not None:
        said.append(passive["agent"])
    # after a contrast only its last clause states the answer ("Sydney is the largest
    # city, but the capital is Canberra."; "… is Paris, I think, but it was Lyon")
    contrasts = list(_CONTRAST.finditer(sentence))
    after = contrasts[-1].end() if contrasts else 0
    for copula in reversed(list(_COPULA.finditer(sentence, after))):
        before = sentence[: copula.start()]
        if _REPORTED.search(before) and not _FIRST_PERSON.match(before):
            continue
        rest = sentence[copula.end() :]
        end = _CLAUSE_END.search(rest)
        clause = rest[: end.start()] if end else rest
        if clause.strip():
            said.append(_LEADING_WORDS.sub("", clause.strip()))
    return said


_APPOSITION = lazy_pattern(
    r"^(?P<head>[^,;:.]{1,40}),\s+(?:the|a|an|which|who|located|in)\b", re.IGNORECASE
)


def apposition(answer: str) -> str | None:
    """The answer before an apposition: "**Paris**, the capital of **France**" →
    "**Paris**"."""
    found = _APPOSITION.match(answer.strip())
    return None if found is None else found["head"]
