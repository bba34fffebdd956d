"""Verifiable scorers: pure functions that grade a stored solution's text against an item's target (SPEC §10)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError


@dataclass(frozen=True)
class ScoreResult:
    """The outcome of one scorer on one solution; `score is None` exactly when `parse_error` is set."""

    score: float | None
    answer: str | None
    """What was read from the solution (stored as `score_raw`)."""
    parse_error: str | None = None
    """A failure code such as `no_number_found`; a result, not an exception."""
    explanation: str | None = None

    def __post_init__(self) -> None:
        if (self.score is None) != (self.parse_error is not None):
            raise ValueError(f"ScoreResult needs a score or a parse_error, not both or neither: {self}")


def _failed(code: str, answer: str | None, explanation: str) -> ScoreResult:
    return ScoreResult(score=None, answer=answer, parse_error=code, explanation=explanation)


# --- where the answer is --------------------------------------------------------------------

# "**Answer**:" is how markdown-happy models write the label, so emphasis before the colon counts.
_ANSWER_LABEL = re.compile(r"answer[*_]*\s*:", re.IGNORECASE)


def answer_region(text: str) -> str:
    """The text after the last `ANSWER:` label (case-insensitive), else the whole text.

    The last line containing the label wins, and on that line its last label. When nothing but
    emphasis follows the label ("**Answer:**" alone on its line), the next non-blank line is the
    answer, because models often put the answer on the line below the label.
    """
    lines = text.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        labels = list(_ANSWER_LABEL.finditer(lines[index]))
        if not labels:
            continue
        rest = lines[index][labels[-1].end() :].strip()
        if rest.strip("*_ \t"):
            return rest
        following = [line.strip() for line in lines[index + 1 :] if line.strip()]
        return following[0] if following else ""
    return text.strip()


# --- exact_match ----------------------------------------------------------------------------


def _normalise_text(text: str) -> str:
    """Case-folded, whitespace runs collapsed, wrapping `*` emphasis and one trailing period dropped."""
    collapsed = " ".join(text.split()).strip("* ")
    if collapsed.endswith("."):
        collapsed = collapsed[:-1].rstrip()
    return collapsed.casefold()


def exact_match(solution: str, target: str) -> ScoreResult:
    """1.0 when the answer equals the target ignoring case, runs of whitespace and a trailing period.

    Runs of whitespace compare equal to a single space ("New  York" = "New York" ≠ "NewYork").
    """
    answer = answer_region(solution)
    expected = _normalise_text(target)
    if not expected:
        return _failed("empty_target", answer, "the item's target is empty, so there is nothing to match")
    return ScoreResult(score=1.0 if _normalise_text(answer) == expected else 0.0, answer=answer)


# --- multiple_choice ------------------------------------------------------------------------

_LONE_LETTER = re.compile(r"(?:(?:option|choice|letter)\s*)?[(\[]?([A-Za-z])[)\]]?\.?", re.IGNORECASE)
_TARGET_LETTER = re.compile(r"[(\[]?([A-Za-z])[)\]]?\.?")
_LEADING_LABEL = re.compile(r"\s*(?:[(\[]([A-Za-z])[)\]]|([A-Za-z])[).:])(?=\s|$)")
_OPTION_TOKEN = re.compile(
    r"[(\[](?P<bracketed>[A-Za-z])[)\]]"  # "(c)", "[B]"
    r"|(?<![\w'’.])(?P<capital>[A-Z])(?![\w'’]|\.\w)"  # a standalone capital, not "I'm" or "U.S."
)


def _is_prose_capital(text: str, match: re.Match[str]) -> bool:
    """The pronoun "I", or an article "A" opening a sentence ("A quick check shows...")."""
    letter = match["capital"]
    if letter == "I":
        return True
    if letter != "A":
        return False
    before = text[: match.start()]
    starts_sentence = not before.strip() or (before[-1].isspace() and before.rstrip()[-1] in ".!?:")
    return starts_sentence and re.match(r"\s+[a-z]", text[match.end() :]) is not None


def read_choice(text: str) -> str | None:
    """The chosen option letter (upper case) in an answer, or None.

    Rules, first that applies wins (markdown `*` and backticks are ignored throughout):
    1. the whole answer is one letter, bracketed or not, any case: "B", "(b)", "**B**", "b.", "Option C";
    2. the answer opens with an option label, any case: "B) Paris", "(b) Paris", "B. Paris", "c: 12";
    3. the last option token in the answer: a bracketed letter "(c)" of any case, or a standalone
       capital A–Z — except the pronoun "I" and an article "A" that opens a sentence and is followed
       by a lower-case word. So "I think it's B" reads B. Bare lower-case letters in prose are never
       read ("the answer is a bit unclear" has no letter), and "B is right, not A" reads A.
    """
    plain = re.sub(r"[*`]", "", text).strip()
    if lone := _LONE_LETTER.fullmatch(plain):
        return lone[1].upper()
    if label := _LEADING_LABEL.match(plain):
        return (label[1] or label[2]).upper()
    tokens = [m for m in _OPTION_TOKEN.finditer(plain) if m["bracketed"] or not _is_prose_capital(plain, m)]
    if not tokens:
        return None
    return (tokens[-1]["bracketed"] or tokens[-1]["capital"]).upper()


def multiple_choice(solution: str, target: str) -> ScoreResult:
    """1.0 when the chosen letter (see `read_choice`) is the target letter.

    The target must be a single letter, optionally bracketed, any case ("B", "(b)", "b.").
    """
    target_letter = re.sub(r"[*`]", "", target).strip()
    lone = _TARGET_LETTER.fullmatch(target_letter)
    if lone is None:
        return _failed("target_not_letter", None, f"the target {target!r} is not a single option letter")
    answer = answer_region(solution)
    choice = read_choice(answer)
    if choice is None:
        return _failed("no_letter_found", None, "no option letter found in the answer")
    return ScoreResult(score=1.0 if choice == lone[1].upper() else 0.0, answer=choice)


# --- numeric --------------------------------------------------------------------------------

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


def numeric(solution: str, target: str, *, rel_tol: float = 1e-6, abs_tol: float = 1e-9) -> ScoreResult:
    """1.0 when the final number in the answer equals the numeric target within the tolerances."""
    expected = read_target_number(target)
    if expected is None:
        return _failed("target_not_numeric", None, f"the target {target!r} is not a number")
    found = read_final_number(answer_region(solution))
    if found is None:
        return _failed("no_number_found", None, "no number found in the answer")
    raw, value = found
    close = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)
    return ScoreResult(score=1.0 if close else 0.0, answer=raw, explanation=f"read {value!r}, target {expected!r}")


# --- the registry ---------------------------------------------------------------------------


class NoParams(BaseModel):
    """A scorer that takes no params."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NumericParams(BaseModel):
    """Tolerances of `numeric`: equal when within `rel_tol` (relative) or `abs_tol` (absolute)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    rel_tol: float = Field(default=1e-6, ge=0)
    abs_tol: float = Field(default=1e-9, ge=0)


@dataclass(frozen=True)
class ScorerSpec:
    """One registered scorer: its pure function, its params model and its rule version."""

    fn: Callable[..., ScoreResult]
    params_model: type[BaseModel]
    rule_version: str
    """Part of the grade condition's identity: bump it whenever the scorer's rules change."""


SCORERS: dict[str, ScorerSpec] = {
    "exact_match": ScorerSpec(fn=exact_match, params_model=NoParams, rule_version="1"),
    "multiple_choice": ScorerSpec(fn=multiple_choice, params_model=NoParams, rule_version="1"),
    "numeric": ScorerSpec(fn=numeric, params_model=NumericParams, rule_version="1"),
}


def _scorer(name: str) -> ScorerSpec:
    if name not in SCORERS:
        raise ConfigError(f"unknown scorer {name!r}; known scorers: {', '.join(sorted(SCORERS))}")
    return SCORERS[name]


def _describe_params_error(name: str, spec: ScorerSpec, exc: ValidationError) -> str:
    allowed = ", ".join(spec.params_model.model_fields) or "none"
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown param {where!r}")
        elif where:
            problems.append(f"param {where!r}: {error['msg']} (got {error['input']!r})")
        else:
            problems.append(f"params must be a mapping of name to value (got {error['input']!r})")
    return f"scorer {name!r}: {'; '.join(problems)}. Allowed params: {allowed}"


def validate_scorer_params(name: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scorer's params with defaults filled in, so spelling a default out gives the same condition."""
    spec = _scorer(name)
    try:
        validated = spec.params_model.model_validate({} if params is None else params)
    except ValidationError as exc:
        raise ConfigError(_describe_params_error(name, spec, exc)) from None
    return validated.model_dump()


def score_solution(name: str, params: Mapping[str, Any] | None, solution: str, target: str) -> ScoreResult:
    """Grade one solution with a registered scorer."""
    return _scorer(name).fn(solution, target, **validate_scorer_params(name, params))
