"""Whether an answer hedges: two answers joined by "or", "and", a comma, a slash or a
range dash, an aside offering another, or a reply that says it is not sure."""

from __future__ import annotations

import re

from ..lazy import lazy_pattern

OR_WORDS = r"or|oder|ou|o|ó|oppure|ou\s+bien|bzw\.?|或者?|还是|または|か"
""""or" in the languages the answer labels know (English, German, French, Spanish,
Italian, Portuguese, Chinese, Japanese)."""

_HEDGE_WORDS = lazy_pattern(
    rf"\b(?:{OR_WORDS}|and|to|either|maybe|possibly|perhaps|probably|between"
    r"|und|et|y|entre|zwischen)\b|(?:或者?|还是|または|か|到|至|～)"
    r"|[,/&?~]|(?<=\S)[-–—](?=\S)|\s[–—]\s",
    re.IGNORECASE,
)
_FILLER = lazy_pattern(
    r"[\s()\[\]*_`$]|\b(?:option|choice|it's|its|it is|is|be|could|might|or maybe)\b",
    re.IGNORECASE,
)
# "B (if counted from the start) or C (otherwise)"
_CONDITION = lazy_pattern(r"\([^()]*\)")
_HEDGE_PHRASE = lazy_pattern(
    r"\b(?:could|might|may)\s+also\b"
    r"|\bor\s+(?:maybe|possibly|perhaps)\b|\balternatively\b",
    re.IGNORECASE,
)
_UNSURE = lazy_pattern(
    r"\b(?:not\s+(?:sure|certain)|unsure|can[’']?t\s+decide|cannot\s+decide"
    r"|can[’']?t\s+tell|torn\s+between|both\s+(?:seem|look|are|could\s+be)\s+"
    r"(?:valid|plausible|possible|reasonable|correct)|"
    r"either\s+[^.,;!?\n]{1,40}?\s+or)\b",
    re.IGNORECASE,
)


def joined_by_hedge(between: str) -> bool:
    """Whether the text between two different answers only joins them ("2 or 0.5",
    "B/D", "40-42", "A, C")."""
    between = _CONDITION.sub(" ", between)
    if _HEDGE_PHRASE.search(between):
        return True
    if re.search(r"[A-Za-z]", between):
        # "$47 — is $73": a dash among words is punctuation, not a range
        between = re.sub(r"\s[–—]\s", " ", between)
    hedges = _HEDGE_WORDS.findall(between)
    return bool(hedges) and not _FILLER.sub("", _HEDGE_WORDS.sub("", between)).strip(
        ".!"
    )


def sounds_unsure(text: str) -> bool:
    """Whether the reply says it is not sure ("I'm not sure", "torn between", "can't
    decide")."""
    return _UNSURE.search(text) is not None


_HEDGE_ASIDE = lazy_pattern(
    r"\b(?:or|maybe|possibly|perhaps|probably|alternatively)\b", re.IGNORECASE
)


def is_hedge(aside: str) -> bool:
    """Whether an aside offers another answer ("(or possibly 8)", "(maybe Lyon)")."""
    return _HEDGE_ASIDE.search(aside) is not None


_RETRACTION = lazy_pattern(
    r"\b(?:wait|actually|on\s+second\s+thought|hmm,?\s+no|no,\s+wait|correction"
    r"|let\s+me\s+reconsider|scratch\s+that|I\s+was\s+wrong|that['’]s\s+wrong"
    r"|just\s+kidding)\b|\?\s*no\s*[—–-]",
    re.IGNORECASE,
)


def after_retraction(text: str) -> str | None:
    """What a reply says after its last retraction cue, when it has one."""
    cues = list(_RETRACTION.finditer(text))
    return text[cues[-1].end() :] if cues else None
