"""The `numeric` scorer: the answer's final number equals the numeric target within tolerances."""

from __future__ import annotations

import math
import re

from .base import ScoreContext, ScoreResult, answer_region, failed

# LaTeX spellings of things the number pattern reads in plain form: "1{,}234", "1\,234", "\$5".
_MATH_SPELLINGS = (("{,}", ","), ("\\,", ""), ("\\!", ""), ("\\$", "$"), ("\\%", "%"), ("\u2212", "-"))
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_NUMBER = re.compile(
    rf"""
    (?<![\w.])                      # not the tail of a word or of another number ("H2O", "v1.2")
    \$?(?P<sign>-)?\$?
    (?:
        \\[dt]?frac\{{(?P<fnum>[^{{}}]*)\}}\{{(?P<fden>[^{{}}]*)\}}
      | (?P<mant>{_DIGITS})
        (?:
            (?P<exp>[eE][-+]?\d+)
          | \s*(?:×|\\times|\\cdot|\*|x)\s*10\^\{{?(?P<pow>-?\d+)\}}?
          | \s*/\s*(?P<den>{_DIGITS})(?![\d/])
        )?
    )
    """,
    re.VERBOSE,
)
_PLAIN = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")


def _normalise_math(text: str) -> str:
    for spelling, plain in _MATH_SPELLINGS:
        text = text.replace(spelling, plain)
    return text


def _plain_number(text: str | None) -> float | None:
    cleaned = (text or "").strip().replace(",", "")
    return float(cleaned) if _PLAIN.fullmatch(cleaned) else None


def _number_value(match: re.Match[str]) -> float | None:
    """The value of one matched number, or None when it is not a finite number (1/0, 1e999)."""
    if match["fnum"] is not None:
        numerator, denominator = _plain_number(match["fnum"]), _plain_number(match["fden"])
    else:
        numerator = _plain_number(match["mant"])
        denominator = _plain_number(match["den"]) if match["den"] else 1.0
        if match["exp"] and numerator is not None:
            numerator = float(match["mant"].replace(",", "") + match["exp"])
        elif match["pow"] and numerator is not None:
            numerator *= float(f"1e{match['pow']}")  # a string keeps 10^400 an inf, not an OverflowError
    if numerator is None or not denominator:
        return None
    value = -numerator / denominator if match["sign"] else numerator / denominator
    return value if math.isfinite(value) else None


def _last_number(text: str) -> tuple[str, float] | None:
    found = None
    for match in _NUMBER.finditer(text):
        value = _number_value(match)
        if value is not None:
            found = (match.group(0).strip(), value)
    return found


def _last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{...}`, nested braces included; None if there is none."""
    starts = list(_BOXED.finditer(text))
    if not starts:
        return None
    depth, begin = 1, starts[-1].end()
    for index in range(begin, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[begin:index]
    return text[begin:]  # a truncated reply still committed to what it had boxed


def read_target_number(target: str) -> float | None:
    """The target as a number, when the whole target is one: "1,234", "$5", "50%", "\\frac{3}{4}"."""
    text = _normalise_math(target).strip()
    boxed = _last_boxed(text)
    if boxed is not None and text.startswith("\\"):
        text = boxed
    text = text.strip().strip("$").strip().rstrip(".").removesuffix("%").strip()
    match = _NUMBER.fullmatch(text)
    return _number_value(match) if match else None


def read_final_number(text: str) -> tuple[str, float] | None:
    """The final number in an answer as (the text read, its value); the last `\\boxed{}` decides if any.

    `$`, `%` and thousands separators are dropped ("50%" reads 50, not 0.5); fractions "3/4",
    "\\frac{3}{4}", "\\dfrac", scientific "1.5e3" and "1.5 × 10^3" are read as their value.
    """
    region = _normalise_math(text)
    boxed = _last_boxed(region)
    return _last_number(region if boxed is None else boxed)


def numeric(solution: str, context: ScoreContext, *, rel_tol: float = 1e-6, abs_tol: float = 1e-9) -> ScoreResult:
    """1.0 when the final number in the answer equals the numeric target within the tolerances."""
    expected = read_target_number(context.target)
    if expected is None:
        return failed("target_not_numeric", None, f"the target {context.target!r} is not a number")
    found = read_final_number(answer_region(solution))
    if found is None:
        return failed("no_number_found", None, "no number found in the answer")
    raw, value = found
    close = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)
    return ScoreResult(score=1.0 if close else 0.0, answer=raw, explanation=f"read {value!r}, target {expected!r}")
