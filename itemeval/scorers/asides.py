"""What follows a reply's answer only to comment on it: checks, asides in brackets,
postscripts, recaps, hypotheticals ("If she had also bought 4 more, …"), sign-offs."""

from __future__ import annotations

import re

from ..lazy import lazy_pattern

CHECK = lazy_pattern(
    r"[*_#>\s]*\(?\s*(?:let(?:'s| me| us)\s+(?:verify|check|double[- "
    r"]check)|verif(?:y|ication)|check(?:ing)?\b|"
    r"double[- ]check|sanity check|note\b|for reference|proof\b"
    r"|验证|验算|检验|检查|検算|確認)",
    re.IGNORECASE,
)
"""A paragraph or line that verifies the answer ("Check: 35 + 15 = 50 ✓")."""
# a tick, a postscript, a recap, an aside, a counterfactual paragraph
_ASIDE = lazy_pattern(
    r"[*_#>\s]*(?:[✓✔]|p\.\s?s\.|ps:|(?:aside|fun\s+fact|by\s+the\s+way|recap"
    r"|hypothetically|for\s+comparison|in\s+comparison|for\s+context"
    r"|as\s+a\s+(?:quick\s+)?(?:sanity\s+)?check)\b"
    r"|if\b[^\n]*\b(?:would|were)\b)",
    re.IGNORECASE,
)
# "(That is 2.5 h × 60 km/h.)", "[Recap: …]"; not an option's label "(C) 12 Ω"
_BRACKETED = lazy_pattern(
    r"[*_>\s]*(?!\([A-Za-z]\))(?:\([^\n]*\)|\[[^\n]*\])[*_.\s]*", re.DOTALL
)
# A sentence after the answer that supposes another case: counterfactual ("If the
# second leg had lasted 2 hours, …would…"), about someone else ("If she reads 30
# pages a day, …"; not "If we add them, …", a step), or in another language
_HYPOTHETICAL = lazy_pattern(
    r"\s*(?:(?:if|suppose|supposing|hypothetically|had|were)\b[^.!?。]*?"
    r"\b(?:would|were|had|instead)\b"
    r"|if\s+(?!we\b|i\b|you\b|so\b)"
    r"|(?:wäre|hätte|würde|wenn|falls)\b|si\b[^.!?]*\b(?:serait|aurait|sería|habría)\b"
    r"|如果|假如|要是|若是|もし"
    r"|let\s+me\s+know\b|hope\s+this\s+helps|feel\s+free\b)",
    re.IGNORECASE,
)
_SENTENCES = lazy_pattern(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")
_RULE = lazy_pattern(r"\s*(?:-{3,}|\*{3,}|_{3,})\s*")
_BOLD_LINE = lazy_pattern(r"\s*\*\*[^*\n]{1,60}\*\*[ .!]*")


def _is_aside(text: str) -> bool:
    text = text.strip()
    return bool(text) and (
        CHECK.match(text) is not None
        or _ASIDE.match(text) is not None
        or _BRACKETED.fullmatch(text) is not None
    )


def _before_rule(paragraphs: list[str]) -> list[str]:
    """A bold answer line, then a horizontal rule: what follows the rule is
    commentary ("**720°**\\n\\n---\\n\\nEach angle is therefore 120°.")."""
    for index in range(1, len(paragraphs) - 1):
        if _RULE.fullmatch(paragraphs[index]) and _BOLD_LINE.fullmatch(
            paragraphs[index - 1]
        ):
            return paragraphs[:index]
    return paragraphs


def _without_hypotheticals(paragraph: str) -> str:
    """A paragraph without the sentences that end it supposing another case."""
    sentences = [s for s in _SENTENCES.split(paragraph) if s.strip()]
    if len(sentences) < 2:
        return paragraph
    while len(sentences) > 1 and _HYPOTHETICAL.match(sentences[-1]):
        sentences.pop()
    return " ".join(sentences)


def without_checks(reply: str) -> str:
    """The reply without what follows its answer only to verify or comment on it:
    trailing paragraphs or lines that check ("Let me verify: …", "Check: …", "✓ …"),
    an aside in brackets, a postscript, a recap, what follows a horizontal rule after
    a bold answer, a hypothetical ("If she had …, she would …")."""
    paragraphs = _before_rule(reply.rstrip().split("\n\n"))
    while len(paragraphs) > 1 and _is_aside(paragraphs[-1]):
        paragraphs.pop()
    lines = paragraphs[-1].split("\n")
    while len(lines) > 1 and _is_aside(lines[-1]):
        lines.pop()
    if lines:
        lines[-1] = _without_hypotheticals(lines[-1])
    return "\n\n".join([*paragraphs[:-1], "\n".join(lines)])
