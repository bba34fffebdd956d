"""The arithmetic problem in a prompt, as the offline models read it: an expression or
a chain of steps ("start with 3, add 4"), its exact answer and how hard it is."""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass
from fractions import Fraction


def fmt(value: Fraction) -> str:
    """An integer as digits, anything else as a short decimal."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


# --- reading the problem
# ---------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """An arithmetic problem found in a prompt, with its worked steps."""

    span: str
    # ("17 * 23", 391): left-hand side and its value
    steps: tuple[tuple[str, Fraction], ...]
    hardness: int  # operations, +1 for a number >= 100, +1 for decimals

    @property
    def answer(self) -> Fraction:
        return self.steps[-1][1]


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_APPLY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}
_WORDS = [
    (r"\bmultiplied by\b|\btimes\b|×", "*"),
    (r"\bdivided by\b|÷", "/"),
    (r"\bplus\b", "+"),
    (r"\bminus\b", "-"),
]
_CANDIDATE = re.compile(r"[\d(][\d. \t+\-*/()]*")  # one line at a time
_CHAIN_START = re.compile(r"\bstart(?:ing)? with (\d+(?:\.\d+)?)", re.I)
_CHAIN_STEP = re.compile(
    r"\b(add|plus|subtract|minus|multiply by|times|divide by)\s+(\d+(?:\.\d+)?)", re.I
)
_CHAIN_SYMBOL = {
    "add": "+",
    "plus": "+",
    "subtract": "-",
    "minus": "-",
    "multiply by": "*",
    "times": "*",
    "divide by": "/",
}


def _apply(
    symbol: str, left: Fraction, right: Fraction, steps: list[tuple[str, Fraction]]
) -> Fraction:
    if symbol == "/" and right == 0:
        raise ZeroDivisionError("division by zero in the problem")
    value = _APPLY[symbol](left, right)
    steps.append((f"{fmt(left)} {symbol} {fmt(right)}", value))
    return value


def _evaluate(node: ast.AST, steps: list[tuple[str, Fraction]]) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, steps)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _evaluate(node.left, steps), _evaluate(node.right, steps)
        return _apply(_OPS[type(node.op)], left, right, steps)
    raise ValueError("not plain arithmetic")


def _hardness(steps: list[tuple[str, Fraction]], numbers: list[str]) -> int:
    big = any(abs(float(n)) >= 100 for n in numbers)
    decimal = any("." in n for n in numbers) or any(
        v.denominator != 1 for _, v in steps
    )
    return len(steps) + int(big) + int(decimal)


def _chain_problem(text: str) -> Problem | None:
    """'Start with 36, add 14, then multiply by 3.' evaluated left to right."""
    start = _CHAIN_START.search(text)
    if start is None:
        return None
    tail = text[start.end() :].split("?")[0]
    moves = _CHAIN_STEP.findall(tail)
    if not moves:
        return None
    steps: list[tuple[str, Fraction]] = []
    value = Fraction(start[1])
    try:
        for word, number in moves:
            value = _apply(_CHAIN_SYMBOL[word.lower()], value, Fraction(number), steps)
    except ZeroDivisionError:
        return None
    numbers = [start[1]] + [n for _, n in moves]
    return Problem(
        span=start[0] + tail, steps=tuple(steps), hardness=_hardness(steps, numbers)
    )


def _expression_problem(text: str) -> Problem | None:
    """The candidate expression with the most operations ('12 times 7 plus 5' reads
    as 12 * 7 + 5)."""
    for pattern, symbol in _WORDS:
        text = re.sub(pattern, f" {symbol} ", text, flags=re.I)
    best: Problem | None = None
    for match in _CANDIDATE.finditer(text):
        span = match[0].strip().rstrip(" .+-*/(")
        try:
            steps: list[tuple[str, Fraction]] = []
            _evaluate(ast.parse(span, mode="eval").body, steps)
        except (SyntaxError, ValueError, ZeroDivisionError):
            continue
        if steps and (best is None or len(steps) >= len(best.steps)):
            numbers = re.findall(r"\d+(?:\.\d+)?", span)
            best = Problem(
                span=span, steps=tuple(steps), hardness=_hardness(steps, numbers)
            )
    return best


def find_problem(text: str) -> Problem | None:
    """The arithmetic problem in a prompt, or None when there is none."""
    return _chain_problem(text) or _expression_problem(text)
