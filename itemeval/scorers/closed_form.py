"""Exact answers written with roots and pi (`5\\sqrt{2}`, `\\frac{\\sqrt{3}}{2}`, `3√2`,
`16π`, `\\sqrt[3]{2}`), and their values.

The expression is rewritten in sympy's syntax here and evaluated by sympy's parser
(implicit multiplication: `5sqrt(2)`, `16pi`), loaded only when a reply has one. The
rewritten text is checked first to hold only digits, operators, brackets and the names
`sqrt`, `root` and `pi`, so nothing else reaches the parser.
"""

from __future__ import annotations

import math
import re
from tokenize import TokenError

from ..lazy import lazy_import, lazy_pattern

sympy = lazy_import("sympy")
sympy_parser = lazy_import("sympy.parsing.sympy_parser")

MARKER = lazy_pattern(r"\\sqrt|√|∛|\\pi(?![a-z])|π")
"""A root or pi: what makes an answer a closed form."""
# one piece of a math expression, as the span search reads it
_TOKEN = lazy_pattern(
    r"\\(?:sqrt|[dt]?frac|pi|cdot|times|left|right)(?![a-z])|\d+(?:\.\d+)?"
    r"|[√∛π×·÷+\-*/^(){}\[\]±]|\\pm|[ \t]+"
)
_SAFE = lazy_pattern(r"[\d\s.+\-*/()a-z,]*")
_NAMES = lazy_pattern(r"[a-z]+")
_BIG_POWER = lazy_pattern(r"\*\*\s*\(?\s*[-+]?\d{3,}|\*\*[^*]*\*\*")


class PlusMinus(Exception):
    """The answer is `±`: two values."""


def _braced(text: str, at: int) -> tuple[str, int]:
    """The group starting at `at` ("{...}" with nesting, or one character) and the
    index after it."""
    while at < len(text) and text[at] == " ":
        at += 1
    if at >= len(text):
        return "", at
    if text[at] != "{":
        return text[at], at + 1
    depth = 0
    for index in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[at + 1 : index], index + 1
    return text[at + 1 :], len(text)


def _command(text: str, at: int) -> tuple[str, int] | None:
    """`\\frac{a}{b}` or `\\sqrt[n]{a}` at `at` in sympy's syntax, and where it ends."""
    frac = re.match(r"\\[dt]?frac", text[at:])
    if frac is not None:
        top, after = _braced(text, at + frac.end())
        bottom, after = _braced(text, after)
        return f"(({to_sympy(top)})/({to_sympy(bottom)}))", after
    if text.startswith("\\sqrt", at):
        after, index = at + 5, None
        if text[after : after + 1] == "[":
            index = text.find("]", after)
            degree, after = text[after + 1 : index], index + 1
        body, after = _braced(text, after)
        if index is not None:
            return f"root({to_sympy(body)},{to_sympy(degree)})", after
        return f"sqrt({to_sympy(body)})", after
    return None


_PLAIN_ROOT = lazy_pattern(r"([√∛])\s*(\d+(?:\.\d+)?|\([^()]*\)|\{[^{}]*\})")


def to_sympy(text: str) -> str:
    """The expression in sympy's syntax: `\\frac{a}{b}` → `((a)/(b))`, `\\sqrt{x}` →
    `sqrt(x)`, `√2` → `sqrt(2)`, `\\pi` → `pi`, `^` → `**`."""
    out, at = [], 0
    while at < len(text):
        command = _command(text, at) if text[at] == "\\" else None
        if command is not None:
            out.append(command[0])
            at = command[1]
            continue
        out.append(text[at])
        at += 1
    plain = "".join(out)
    plain = _PLAIN_ROOT.sub(
        lambda m: (
            ("sqrt(" if m[1] == "√" else "root(")
            + m[2].strip("(){}")
            + (")" if m[1] == "√" else ",3)")
        ),
        plain,
    )
    for spelling, written in (
        ("\\pi", "pi"),
        ("π", "pi"),
        ("\\cdot", "*"),
        ("\\times", "*"),
        ("×", "*"),
        ("·", "*"),
        ("÷", "/"),
        ("\\left", ""),
        ("\\right", ""),
        ("^", "**"),
        ("{", "("),
        ("}", ")"),
    ):
        plain = plain.replace(spelling, written)
    return plain


def value_of(text: str) -> float | None:
    """The real value of a whole expression, or None when it is not one."""
    if "±" in text or "\\pm" in text:
        raise PlusMinus(text)
    expression = to_sympy(text.strip().strip("$").strip()).strip()
    if not expression or len(expression) > 200 or not _SAFE.fullmatch(expression):
        return None
    if set(_NAMES.findall(expression)) - {"sqrt", "root", "pi"}:
        return None
    if _BIG_POWER.search(expression):
        return None
    transformations = sympy_parser.standard_transformations + (
        sympy_parser.implicit_multiplication_application,
    )
    try:
        parsed = sympy_parser.parse_expr(expression, transformations=transformations)
        value = complex(sympy.N(parsed))
    # a malformed expression is no answer: sympy raises several kinds for those
    except (
        SyntaxError,
        TokenError,
        TypeError,
        ValueError,
        ZeroDivisionError,
        AttributeError,
    ):
        return None
    if abs(value.imag) > 1e-12 or not math.isfinite(value.real):
        return None
    return value.real


def last_closed_form(text: str) -> tuple[int, int, float] | None:
    """The last expression in `text` with a root or pi: (start, end, value)."""
    markers = list(MARKER.finditer(text))
    if not markers:
        return None
    spans, start = [], None
    for token in _TOKEN.finditer(text):
        if start is None or token.start() != spans[-1][1]:
            spans.append([token.start(), token.end()])
        else:
            spans[-1][1] = token.end()
        start = token.start()
    last = markers[-1].start()
    for begin, end in reversed(spans):
        if begin <= last < end:
            piece = text[begin:end].strip().rstrip("+-*/^×·÷ ")
            offset = text.index(piece, begin) if piece else begin
            value = value_of(piece) if piece else None
            return None if value is None else (offset, offset + len(piece), value)
    return None
