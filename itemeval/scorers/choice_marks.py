"""How a multiple-choice reply commits to an option besides an answer label: a line
that is only the letter in bold or after a tick, "which is option C", a retraction
("Wait, actually … it's C"), another option called right too, an option's text."""

from __future__ import annotations

import re
import string
import unicodedata

from ..lazy import lazy_pattern
from .hedges import joined_by_hedge, sounds_unsure

_EXPLICIT = (
    # a line that is only the letter in bold, or after a tick: "**B**", "✔️ **C**"
    lazy_pattern(
        r"^[ \t]*(?:[✅✔☑]\ufe0f?[ \t]*)?\*\*\(?([A-Z])\)?[.)]?\*\*[ \t.]*$",
        re.MULTILINE,
    ),
    # "✅ B) Mitochondria"
    lazy_pattern(r"^[ \t]*[✅✔☑]\ufe0f?[ \t]*\**\(?([A-Z])\b(?!['’])", re.MULTILINE),
    # "B) cos(x) ✅": an option's line ticked at its end
    lazy_pattern(
        r"^[ \t]*\**\(?([A-Z])[).:]\**[^\n]{0,80}?[✅✔☑]\ufe0f?[ \t]*$", re.MULTILINE
    ),
    # a reply that opens with its letter: "Option C. Canberra has been …"
    lazy_pattern(r"\A[ \t]*\**(?:(?i:option|choice)\s+)?\(?([A-Z])\)?\**[.:](?=\s)"),
    # "which is option C", "That matches option **D**"
    lazy_pattern(
        r"\b(?:which|that)(?:\s+is|['’]s|\s+matches|\s+corresponds\s+to)\s+"
        r"(?:option|choice|answer)\s+\**\(?([A-Z])\b"
        r"|\b(?:matches|corresponds\s+to)\s+(?:option|choice)\s+\**\(?([A-Z])\b",
        re.IGNORECASE,
    ),
    # "Selected: C", "My choice: **D**"
    lazy_pattern(
        r"^[ \t]*\**(?:selected|selection|my\s+choice|choice|chosen|my\s+pick"
        r"|correct(?:\s+(?:answer|option|choice))?)\**"
        r"[ \t]*[:：][ \t]*\**\(?([A-Z])\b",
        re.IGNORECASE | re.MULTILINE,
    ),
)


def explicit_letter(reply: str) -> tuple[int, str] | None:
    """(where, letter) of the last explicit choice in a reply, or None."""
    found = [
        (match.end(), next(group for group in match.groups() if group))
        for pattern in _EXPLICIT
        for match in pattern.finditer(reply)
    ]
    return max(found) if found else None


_ALSO_RIGHT = lazy_pattern(
    r"\b\(?([A-Z])\)?\s+(?:is|would\s+be|could\s+be|seems|looks)\s+also\s+"
    r"(?:correct|right|valid|defensible|acceptable|possible|true|plausible)\b"
    r"|\b\(?([A-Z])\)?\s+(?:could|might|may)\s+also\s+(?:work|be\s+(?:right|correct))\b",
)


def also_right(text: str, chosen: str) -> bool:
    """Whether the reply calls another option right too ("Though C is also
    defensible.")."""
    return any((match[1] or match[2]) != chosen for match in _ALSO_RIGHT.finditer(text))


def _fold(text: str) -> str:
    """Case and diacritics folded, markup and spacing plain: what an option's text is
    compared as."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[*_`]", "", plain).split())


_NOT_BEFORE = lazy_pattern(
    r"(?:\bnot|\bisn['’]t|\bnor|\bneither|\brather\s+than|\binstead\s+of|\bexcept)"
    r"\s+(?:the\s+)?$"
)


def _mentions(text: str, choices: tuple[str, ...]) -> list[tuple[int, int, int]]:
    """(start, end, option index) of each option's text named in `text`, longest
    first where two overlap, negated ones ("not Sydney") left out."""
    found: list[tuple[int, int, int]] = []
    for index, choice in enumerate(choices):
        option = _fold(choice)
        if len(option) < 2:
            continue
        pattern = r"(?<![\w.])" + re.escape(option) + r"(?![\w])"
        for match in re.finditer(pattern, text):
            if not _NOT_BEFORE.search(text[max(0, match.start() - 20) : match.start()]):
                found.append((match.start(), match.end(), index))
    found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
    kept: list[tuple[int, int, int]] = []
    for mention in found:
        if not kept or mention[0] >= kept[-1][1]:
            kept.append(mention)
    return kept


class TwoOptions(Exception):
    """The reply offers two options' texts as its answer."""


def option_named(text: str, choices: tuple[str, ...]) -> str | None:
    """The letter of the one option whose text `text` names ("Jane Austen wrote it."
    is B of four authors); raises TwoOptions when two are offered ("Sydney or
    Canberra")."""
    folded = _fold(text)
    mentions = _mentions(folded, choices)
    options = {index for _, _, index in mentions}
    if len(options) == 1:
        return string.ascii_uppercase[options.pop()]
    if len(options) > 1:
        first, last = mentions[-2], mentions[-1]
        if joined_by_hedge(folded[first[1] : last[0]]) or sounds_unsure(folded):
            raise TwoOptions(text)
    return None


def without_options(text: str, choices: tuple[str, ...]) -> str:
    """`text` with the options' own texts blanked, so a letter inside one ("vitamin
    D") is not read as a letter."""
    for choice in sorted(choices, key=len, reverse=True):
        if len(choice.strip()) >= 3:
            text = re.sub(
                r"(?<![\w.])" + re.escape(choice.strip()) + r"(?!\w)",
                lambda m: " " * len(m[0]),
                text,
                flags=re.IGNORECASE,
            )
    return text
