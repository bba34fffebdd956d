"""Numbers written the way a reply's language writes them: "1.250,50" in German,
Spanish or Italian, "12 345,6" in French, "12,34,567" in Indian digit grouping.

The language is read from the reply's own words; Babel (CLDR's data) says what each
locale's group and decimal signs are and checks that a number's grouping is one the
locale writes (`strict`), so "1.2345" is never taken for a German number.
"""

from __future__ import annotations

import re

from ..lazy import lazy_import, lazy_pattern

babel_numbers = lazy_import("babel.numbers")

# Words that say which language a reply is in; an answer word counts twice.
_WORDS = {
    "de": "der die das ist und beträgt betragen insgesamt also sind mit für von den "
    "dem ein eine wir kostet zusammen zuerst dazu braucht kommen hat",
    "fr": "le la les est et des du donc il elle un une faut réponse total résultat "
    "vaut sont avec pour",
    "es": "el la los las es y del por lo tanto se un una en resultado necesitan "
    "primero luego son con para",
    "it": "il la è di che per un una sono con risultato quindi",
    "pt": "o a é de que um uma os as são com para resultado portanto",
    "en": "the is and of to so a in that it we are has have each answer total "
    "therefore which this with for",
}
_ANSWER_WORDS = {
    "de": "antwort ergebnis lösung",
    "fr": "réponse",
    "es": "respuesta",
    "it": "risposta",
    "pt": "resposta",
}
_VOCABULARY = {
    language: set(words.split()) | set(_ANSWER_WORDS.get(language, "").split())
    for language, words in _WORDS.items()
}
_TOKEN = lazy_pattern(r"[^\W\d_]+")
_INDIAN = lazy_pattern(r"(?<![\d,.])\d{1,2},(?:\d{2},)+\d{3}(?:\.\d+)?(?![\d,])")
_CONTINENTAL = lazy_pattern(
    r"(?<![\d.,])(?:\d{1,3}(?:[. \u00a0\u202f]\d{3})+(?:,\d+)?|\d+,\d+)(?![\d,]|\.\d)"
)


def _scores(text: str) -> dict[str, int]:
    counts = dict.fromkeys(_VOCABULARY, 0)
    for token in _TOKEN.findall(text.casefold()):
        for language, vocabulary in _VOCABULARY.items():
            if token in vocabulary:
                counts[language] += 2 if token in _ANSWER_WORDS.get(language, "") else 1
    return counts


def reply_locale(reply: str) -> str | None:
    """The Babel locale the reply writes its numbers in: "de", "fr", "es", "it",
    "pt", "en_IN", or None for English (and whatever cannot be told)."""
    if _INDIAN.search(reply):
        return "en_IN"
    if not re.search(r"\d[.,\s\u00a0\u202f]\d", reply):
        return None  # no number that a locale would write differently
    counts = _scores(reply)
    english = counts.pop("en")
    language, score = max(counts.items(), key=lambda item: item[1])
    if score >= 2 and score > english or score == 1 and english == 0:
        return language
    return None


def _plain(match: re.Match[str], locale: str) -> str:
    token = match[0]
    if locale != "en_IN":
        # a space of any width groups digits in every locale: "12 345", "3 000"
        group = babel_numbers.get_group_symbol(locale)
        token = re.sub(r"[ \u00a0\u202f.]", group, token)
    try:
        value = babel_numbers.parse_decimal(token, locale=locale, strict=True)
    except babel_numbers.NumberFormatError:
        return match[0]
    return format(value, "f")


def plain_numbers(text: str, locale: str | None) -> str:
    """`text` with every number written in `locale`'s way rewritten in plain digits
    ("1.250,50" → "1250.50" in "de")."""
    if locale is None:
        return text
    pattern = _INDIAN if locale == "en_IN" else _CONTINENTAL
    return pattern.sub(lambda match: _plain(match, locale), text)
