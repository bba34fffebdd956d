"""The form two short answers are compared in: wrappers, case, articles, punctuation,
diacritics, number words, digit grouping and unit spacing made alike."""

from __future__ import annotations

import unicodedata

from ..lazy import lazy_pattern
from .number_words import words_as_digits

_LATEX_WRAPPER = lazy_pattern(
    r"\\(?:text|textbf|textit|mathrm|mathbf|mathit|emph|boxed|fbox)\s*\{([^{}]*)\}"
)
_MATH_DELIMITERS = lazy_pattern(r"\\\[|\\\]|\\\(|\\\)|\$\$?")
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
_TRAILING = ".!?…;,:。！？"
_LEADING_ARTICLE = lazy_pattern(r"^(?:the|a|an)\s+(?=\S)")
# a list item or a quote: "- Canberra", "> Canberra", "1. Canberra", "→ Canberra"
_LEADING_MARK = lazy_pattern(r"^(?:[-*•→>]|\d{1,2}[.)])[ \t]+(?=\S)")


def unwrap(text: str) -> str:
    """Strip wrappers, list marks and trailing punctuation until none is left:
    "`**Paris**`." → "Paris", "- **Canberra**" → "Canberra"."""
    previous = None
    while text != previous:
        previous = text
        text = _LATEX_WRAPPER.sub(r"\1", text)
        text = _MATH_DELIMITERS.sub("", text).strip().rstrip(_TRAILING).strip()
        text = _LEADING_MARK.sub("", text)
        if (text[:1] in ("*", "_")) != (text[-1:] in ("*", "_")):
            text = text.strip("*_ ")  # emphasis left dangling by a cut: "Canberra**"
        while len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
            text = text[1:-1].strip()
    return text


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'"})
"""Typographic apostrophes as the ASCII one: "O’Brien" is "O'Brien"."""
_SUPERSCRIPT = lazy_pattern(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_TO_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_BRACED_POWER = lazy_pattern(r"\^\{(-?\d+)\}")
_DIGIT_GROUP = lazy_pattern(r"(?<=\d)[,\u00a0\u202f ](?=\d{3}(?!\d))")
_UNIT_SPACE = lazy_pattern(r"(?<=\d)\s+(?=[°%‰a-zµΩ$€£])|\s*/\s*")


def fold_diacritics(text: str) -> str:
    """Accents and other combining marks dropped: "Zürich" → "Zurich", "São" →
    "Sao"."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped)


def _number_forms(text: str) -> str:
    """Number words as digits, digit groups joined, a unit written against its
    number: "one thousand" and "1,000" → "1000", "100 °c" → "100°c"."""
    text = _DIGIT_GROUP.sub("", words_as_digits(text))
    return _UNIT_SPACE.sub(lambda m: "/" if "/" in m[0] else "", text)


def normalise_text(text: str) -> str:
    """Compatibility forms folded (NFKC: "Ｐａｒｉｓ", "H₂O"; superscripts as powers:
    "m/s²" = "m/s^2"), typographic apostrophes made plain, diacritics dropped,
    wrappers, list marks and end punctuation gone, whitespace runs collapsed, case
    folded, a leading article dropped, number words and digit groups as plain
    digits, a unit against its number."""
    powered = _SUPERSCRIPT.sub(lambda m: "^" + m[0].translate(_TO_PLAIN), text)
    folded = unicodedata.normalize("NFKC", powered).translate(_APOSTROPHES)
    folded = fold_diacritics(_BRACED_POWER.sub(r"^\1", folded))
    collapsed = " ".join(unwrap(" ".join(folded.split())).split()).casefold()
    return _number_forms(
        unwrap(_LEADING_ARTICLE.sub("", collapsed))
    )  # "the **Sahara**"
