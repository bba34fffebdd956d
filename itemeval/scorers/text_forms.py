"""The form two short answers are compared in: wrappers, case, articles, punctuation,
diacritics, number words, digit grouping and unit spacing made alike."""

from __future__ import annotations

import re
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
_BRACED_POWER = lazy_pattern(r"\^\{?(-?\d+)\}?")
# "100 degrees Celsius", "100 ºC" (an ordinal sign for the degree sign)
_UNIT_WORDS = (
    (lazy_pattern(r"\s*degrees?\s+celsius\b"), "°c"),
    (lazy_pattern(r"\s*degrees?\s+fahrenheit\b"), "°f"),
)
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


def _units(text: str) -> str:
    for pattern, written in _UNIT_WORDS:
        text = pattern.sub(written, text)
    return text


def normalise_text(text: str) -> str:
    """Compatibility forms folded (NFKC: "Ｐａｒｉｓ", "H₂O"; powers as their digits:
    "m/s²" = "m/s^2"; "degrees Celsius" = "°C"; bold spans as plain text),
    typographic apostrophes made plain, diacritics dropped, wrappers, list marks and
    end punctuation gone, whitespace runs collapsed, case folded, a leading article
    dropped, number words and digit groups as plain digits, a unit against its
    number."""
    # "100 ºC": an ordinal sign for the degree sign (NFKC would make it an "o")
    powered = _SUPERSCRIPT.sub(lambda m: m[0].translate(_TO_PLAIN), text)
    powered = re.sub(r"(?<=\d)(\s*)º", r"\1°", powered)
    folded = unicodedata.normalize("NFKC", powered).translate(_APOSTROPHES)
    # a power as its digits ("m/s^2" = "m/s²" = "m/s2"), bold spans as plain text
    # ("**New** **York**")
    folded = fold_diacritics(_BRACED_POWER.sub(r"\1", folded)).replace("**", "")
    collapsed = _units(" ".join(unwrap(" ".join(folded.split())).split()).casefold())
    return _number_forms(
        unwrap(_LEADING_ARTICLE.sub("", collapsed))
    )  # "the **Sahara**"


_TRANSLITERATED = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
)
_KIND_WORDS = lazy_pattern(
    r"\b(?:ocean|sea|river|lake|desert|mountains|island|islands|mount|mt\.?)(?=\s|$)"
)


def target_forms(target: str) -> frozenset[str]:
    """The forms an answer may take to equal the target, each normalised: the
    target itself; German umlauts written out ("Zuerich" for "Zürich"); without the
    kind of place it names ("Pacific Ocean" for "Pacific", "Mt. Everest" for "Mount
    Everest")."""
    main = normalise_text(target)
    forms = {main, normalise_text(target.translate(_TRANSLITERATED))}
    bare = " ".join(_KIND_WORDS.sub(" ", main).split())
    if bare and bare != main:
        forms.add(bare)
    return frozenset(form for form in forms if form)


def same_answer(answer: str, forms: frozenset[str]) -> bool:
    """Whether an answer, normalised (and without a kind of place), is one of the
    target's forms."""
    said = normalise_text(answer)
    return said in forms or " ".join(_KIND_WORDS.sub(" ", said).split()) in forms
