"""Where the numbers are in a text and what each is worth: plain spellings of LaTeX,
Unicode signs and fractions, then one pattern for every way a number is written."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from ..lazy import lazy_pattern

# LaTeX spellings of things the number pattern reads in plain form: "1{,}234", "1\,234",
# "\$5", "3 \times 10^8".
_MATH_SPELLINGS = (
    ("{,}", ","),
    ("\\,", ""),
    ("\\!", ""),
    ("\\ ", " "),
    ("\\;", " "),
    ("\\$", "$"),
    ("\\%", "%"),
    ("\\times", "×"),
    ("\\cdot", "×"),
    ("\\approx", "≈"),
    ("\\left", ""),
    ("\\right", ""),
    ("\\(", ""),
    ("\\)", ""),
    ("\\[", ""),
    ("\\]", ""),
)
# Unicode minus signs, full-width forms and multiplication dots as plain ASCII; the en
# dash only where it is a sign (below)
_SIGNS = str.maketrans(
    {
        "\u2212": "-",
        "\u2012": "-",
        "\u2010": "-",
        "\u2011": "-",
        "\ufe63": "-",
        "\u00b7": "×",
        "\u2219": "×",
        "\u22c5": "×",
        "\u3000": " ",
        **{chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)},
    }
)
# "–7", "(–6)", "= –3": an en dash before a number, not between two ("3–5")
_EN_DASH_SIGN = lazy_pattern(r"(?:^|(?<=[\s(\[=:≈*_$]))–(?=\$?\.?\d)", re.MULTILINE)
_VULGAR = lazy_pattern(r"(\d?)([½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞])")
# 3.2*10**5: Python's power
_PY_POWER = lazy_pattern(r"(?<=\d)\s*\*\*\s*(?=[-+]?\d)")
_SUPERSCRIPT = lazy_pattern(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_TO_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_TEXT_COMMAND = lazy_pattern(
    r"\\(?:text|mathrm|textbf|mathbf|operatorname|mbox)\s*\{([^{}]*)\}"
)
# 2\frac{1}{2}
_LATEX_MIXED = lazy_pattern(
    r"(?<![\d.])(\d+)\s*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}"
)
_FRAC_SHORTHAND = lazy_pattern(
    r"\\([dt]?frac)\s*(?:(\d)|\{([^{}]*)\})\s*(?:(\d)|\{([^{}]*)\})"
)
# cm^2, s^{2}: a unit's exponent
_UNIT_POWER = lazy_pattern(r"(?<=[A-Za-z])\s*\^\s*(?:\{\s*-?\d+\s*\}|-?\d+)")


def _vulgar(match: re.Match[str]) -> str:
    """ "2½" as the mixed number "2 1/2", "¾" as "3/4"."""
    fraction = unicodedata.normalize("NFKC", match[2]).replace("\u2044", "/")
    return f"{match[1]} {fraction}" if match[1] else fraction


def plain_signs(text: str) -> str:
    """Unicode minus signs, full-width digits, vulgar fractions and middle dots in
    plain form."""
    text = text.translate(_SIGNS)
    if "–" in text:
        text = _EN_DASH_SIGN.sub("-", text)
    if "**" in text:
        text = _PY_POWER.sub("^", text)
    return _VULGAR.sub(_vulgar, text)


_REPEATING = (
    # 0.\overline{3}, 0.1\dot{6}, 0.3̅, 0.(3)
    lazy_pattern(r"(\d*)\.(\d*)\\overline\s*\{(\d+)\}"),
    lazy_pattern(r"(\d*)\.(\d*)\\dot\s*\{?(\d)\}?"),
    lazy_pattern(r"(\d*)\.(\d*?)((?:\d\u0305)+)"),
    lazy_pattern(r"(\d*)[.,](\d*?)\((\d+)\)"),
)
# 0.333..., 0.1666…: digits that repeat, then an ellipsis
_ELLIPSIS = lazy_pattern(r"(\d*)\.(\d+)(?:\.\.\.|…)")


def _fraction(whole: str, fixed: str, repeat: str) -> str:
    """The repeating decimal whole.fixed(repeat) as "numerator/denominator"."""
    repeat = repeat.replace("\u0305", "")
    scale = 10 ** len(fixed)
    denominator = scale * (10 ** len(repeat) - 1)
    numerator = int(whole or 0) * denominator + int(fixed or 0) * (
        10 ** len(repeat) - 1
    )
    return f"{numerator + int(repeat)}/{denominator}"


def _ellipsis(match: re.Match[str]) -> str:
    digits = match[2]
    for period in range(1, 7):
        repeat = digits[-period:]
        if len(digits) >= max(3, 2 * period) and digits.endswith(
            repeat * (3 if period == 1 else 2)
        ):
            fixed = digits
            while fixed.endswith(repeat):
                fixed = fixed[: -len(repeat)]
            return _fraction(match[1], fixed, repeat)
    return match[0]


def plain_repeating(text: str) -> str:
    """Repeating decimals as fractions: "0.\\overline{3}", "0.(3)" and "0.333..."
    are "3/9"."""
    for pattern in _REPEATING:
        text = pattern.sub(lambda m: _fraction(m[1], m[2], m[3]), text)
    return _ELLIPSIS.sub(_ellipsis, text) if "." in text else text


def normalise_math(text: str) -> str:
    """Plain text for the number pattern: Unicode signs, repeating decimals, LaTeX
    spellings, `\\text{}`, superscripts and unit exponents."""
    text = plain_repeating(plain_signs(text))
    if "\\" in text or "{" in text:  # most replies have no LaTeX: skip its rewrites
        for spelling, plain in _MATH_SPELLINGS:
            text = text.replace(spelling, plain)
        text = _TEXT_COMMAND.sub(r"\1", text)
        text = _LATEX_MIXED.sub(
            r"\1 \2/\3",
            _FRAC_SHORTHAND.sub(
                lambda m: f"\\{m[1]}{{{m[2] or m[3]}}}{{{m[4] or m[5]}}}", text
            ),
        )
    text = _SUPERSCRIPT.sub(
        lambda m: "^{" + m.group(0).translate(_TO_PLAIN) + "}", text
    )
    return _UNIT_POWER.sub("", text) if "^" in text else text


_DIGITS = r"(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_NUMBER_PARTS = rf"""
    # not the tail of a word or of another number ("H2O", "v1.2"), not an exponent;
    # a CJK character may touch it ("合計は1,250円")
    (?<![A-Za-z0-9_.^])
    \$?
    (?:
        \\[dt]?frac\{{(?P<fnum>[^{{}}]*)\}}\{{(?P<fden>[^{{}}]*)\}}
      | (?P<whole>\d+)[ ](?P<mnum>\d+)/(?P<mden>\d+)(?![\d/.])
      | (?P<mant>{_DIGITS})
        (?:
            (?P<exp>[eE][-+]?\d+)(?!\w)
          | \s*(?:×|\*|x)\s*10\s*\^\s*\{{?\s*(?P<pow>-?\d+)\s*\}}?
          | \s*\^\s*\{{?\s*(?P<power>-?\d+)\s*\}}?
          | /(?P<den>{_DIGITS})(?![\d/])
          SPACED
        )?
        (?:\s*(?P<scale>thousand|millions?|billion|trillion|lakh|crore|mill[oó]n(?:es)?|milioni?|milh(?:ão|ões)|millionen|milliarden?|milliards?|miliard[oi]|万|萬|亿|億)(?![A-Za-z]))?
    )
"""
# "3 / 4" after an answer label is a fraction; at the end of a cut-off reply "180 / 2.5"
# is an unfinished sum.
NUMBER_MARKED = lazy_pattern(
    _NUMBER_PARTS.replace("SPACED", r"| \s+/\s+(?P<sden>\d+)(?![\d/.])"), re.VERBOSE
)
NUMBER_WHOLE = lazy_pattern(_NUMBER_PARTS.replace("SPACED", ""), re.VERBOSE)
_PLAIN = lazy_pattern(r"-?(?:\d+(?:\.\d*)?|\.\d+)")
_SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "lakh": 1e5,
    "crore": 1e7,
    "万": 1e4,
    "萬": 1e4,
    "亿": 1e8,
    "億": 1e8,
}


def _scale(word: str) -> float:
    """What a scale word multiplies by: "million", "millones", "Milliarden", "万"."""
    word = word.lower()
    if word in _SCALES:
        return _SCALES[word]
    return 1e9 if word.startswith(("milliard", "miliard")) else 1e6


def _plain_number(text: str | None) -> float | None:
    cleaned = (text or "").strip().replace(",", "")
    return float(cleaned) if _PLAIN.fullmatch(cleaned) else None


def number_value(match: re.Match[str]) -> float | None:
    """The value of one matched number (unsigned), or None when it is not a finite
    number (1/0, 1e999)."""
    groups = match.groupdict()
    if groups["fnum"] is not None:
        numerator, denominator = (
            _plain_number(groups["fnum"]),
            _plain_number(groups["fden"]),
        )
    elif groups["whole"] is not None:
        numerator = float(groups["whole"]) * float(groups["mden"]) + float(
            groups["mnum"]
        )
        denominator = float(groups["mden"])
    else:
        numerator, denominator = _plain_number(groups["mant"]), 1.0
        if numerator is None:
            return None
        if groups["exp"]:
            numerator = float(groups["mant"].replace(",", "") + groups["exp"])
        elif groups["pow"]:
            # a string keeps 10^400 an inf, not an OverflowError
            numerator *= float(f"1e{groups['pow']}")
        elif groups["power"]:
            numerator = _power(numerator, int(groups["power"]))
        elif groups["den"] or groups.get("sden"):
            denominator = _plain_number(groups["den"] or groups["sden"])
        if groups["scale"] and numerator is not None:
            numerator *= _scale(groups["scale"])
    if numerator is None or not denominator:
        return None
    value = numerator / denominator
    return value if math.isfinite(value) else None


def _power(base: float, exponent: int) -> float | None:
    try:
        return float(base**exponent) if abs(exponent) <= 1000 else None
    except (OverflowError, ZeroDivisionError):
        return None


def _is_negative(text: str, start: int) -> bool:
    """A minus right before the number that is a sign, not a subtraction or a range
    ("- 5", "to -5", "=-5", "**-13**", "是 -3")."""
    before = text[:start].rstrip().removesuffix("$").rstrip()
    if not before.endswith("-"):
        return False
    prior = before[:-1].rstrip().removesuffix("$").rstrip("*_ \t")
    return (
        not prior
        or prior[-1] in "=:([{,≈~：，"
        or ord(prior[-1]) >= 0x2E80  # a CJK character: "答案是 -3"
        or re.search(r"(?:^|\s)[A-Za-z]{2,}$", prior) is not None
    )


@dataclass(frozen=True)
class Number:
    """One number found in a text."""

    start: int
    end: int
    raw: str
    """The text read, its sign included."""
    value: float
    percent: bool = False
    """Written as a percentage ("25%", "25 percent")."""


_PERCENT = lazy_pattern(r"\s*(?:%|\\%|percent\b|per\s+cent\b)", re.IGNORECASE)


def numbers_in(text: str, pattern: re.Pattern[str]) -> list[Number]:
    """Every finite number in `text`, in order."""
    found = []
    for match in pattern.finditer(text):
        value = number_value(match)
        if value is None:
            continue
        raw, start = match.group(0).strip(), match.start()
        if _is_negative(text, start):
            value, raw, start = -value, "-" + raw, text.rindex("-", 0, start)
        percent = _PERCENT.match(text, match.end()) is not None
        found.append(Number(start, match.end(), raw, value, percent))
    return found
