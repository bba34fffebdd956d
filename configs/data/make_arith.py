"""Writes the demo dataset arith.jsonl: arithmetic questions with answers computed from exact fractions."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

# (question, the same computation written as a Python expression, difficulty).
# The expression is kept apart from the question so the answers do not depend on any parser.
PROBLEMS = [
    ("What is 17 + 25?", "17 + 25", "easy"),
    ("What is 93 - 48?", "93 - 48", "easy"),
    ("What is 12 * 7?", "12 * 7", "easy"),
    ("What is 144 / 12?", "144 / 12", "easy"),
    ("What is 8 times 9?", "8 * 9", "easy"),
    ("What is 56 plus 38?", "56 + 38", "easy"),
    ("What is 100 minus 37?", "100 - 37", "easy"),
    ("What is 81 divided by 9?", "81 / 9", "easy"),
    ("What is 17 * 23?", "17 * 23", "medium"),
    ("What is 345 + 678 - 219?", "345 + 678 - 219", "medium"),
    ("What is (48 + 27) / 5?", "(48 + 27) / 5", "medium"),
    ("What is 25 * 16 - 130?", "25 * 16 - 130", "medium"),
    ("What is 45 / 6?", "45 / 6", "medium"),
    ("Start with 36, add 14, then multiply by 3. What number do you end with?", "(36 + 14) * 3", "medium"),
    ("What is 12 times 7 plus 5?", "12 * 7 + 5", "medium"),
    ("Start with 200, subtract 64, then divide by 8. What number do you end with?", "(200 - 64) / 8", "medium"),
    ("What is 37 * 48 - 29 * 11?", "37 * 48 - 29 * 11", "hard"),
    ("What is (125 + 375) * (64 - 28) / 9?", "(125 + 375) * (64 - 28) / 9", "hard"),
    ("What is 987 - 654 + 321 * 3?", "987 - 654 + 321 * 3", "hard"),
    ("What is 2 * (3 + 4) * (5 + 6)?", "2 * (3 + 4) * (5 + 6)", "hard"),
    (
        "Start with 15, multiply by 12, subtract 36, then divide by 8. What number do you end with?",
        "((15 * 12) - 36) / 8",
        "hard",
    ),
    ("What is 1234 + 5678 - 4321?", "1234 + 5678 - 4321", "hard"),
    ("What is 999 * 7 / 3?", "999 * 7 / 3", "hard"),
    ("What is 3.5 * 18 - 12.25?", "3.5 * 18 - 12.25", "hard"),
]


def exact(expression: str) -> Fraction:
    """Evaluates a trusted constant expression with every number as an exact fraction."""
    wrapped = " ".join(f'Fraction("{tok}")' if tok[0].isdigit() else tok for tok in _tokens(expression))
    return eval(wrapped, {"Fraction": Fraction})  # constants from this file only


def _tokens(expression: str) -> list[str]:
    return expression.replace("(", " ( ").replace(")", " ) ").split()


def render(value: Fraction) -> str:
    """An integer as digits, anything else as a short decimal."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


def rows() -> list[dict[str, str]]:
    return [
        {"qid": f"arith-{i:03d}", "question": q, "answer": render(exact(expr)), "difficulty": level}
        for i, (q, expr, level) in enumerate(PROBLEMS, start=1)
    ]


if __name__ == "__main__":
    out = Path(__file__).with_name("arith.jsonl")
    out.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    print(f"wrote {len(PROBLEMS)} rows to {out}")
