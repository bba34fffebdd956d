"""Writes the claims demo dataset claims.jsonl: yes/no arithmetic claims labelled 1 (true) or 0 (false)."""

from __future__ import annotations

import json
import operator
from fractions import Fraction
from pathlib import Path

# (claim about an expression, the expression in Python, the comparison, the number); the label is computed.
CLAIMS = [
    ("17 * 23", "greater than", 400), ("12 + 30", "equal to", 42), ("81 / 9", "less than", 10),
    ("100 - 58", "at least", 50), ("7 * 8", "at most", 56), ("345 + 678", "greater than", 1000),
    ("144 / 12", "equal to", 13), ("25 * 16 - 130", "less than", 250), ("(48 + 27) / 5", "at least", 15),
    ("987 - 654", "at most", 300), ("37 * 48", "greater than", 1800), ("56 + 38", "equal to", 94),
    ("200 - 64", "less than", 130), ("45 / 6", "at least", 7.5), ("12 * 7 + 5", "at most", 88),
    ("19 * 19", "greater than", 361),
]
COMPARE = {"greater than": operator.gt, "less than": operator.lt, "equal to": operator.eq,
           "at least": operator.ge, "at most": operator.le}


def main() -> None:
    path = Path(__file__).with_name("claims.jsonl")
    with path.open("w", encoding="utf-8") as handle:
        for number, (expression, relation, value) in enumerate(CLAIMS, start=1):
            truth = COMPARE[relation](Fraction(eval(expression)), Fraction(str(value)))  # noqa: S307 - our literals
            row = {"qid": f"claim-{number:03d}", "claim": f"Is {expression} {relation} {value}?",
                   "label": "1" if truth else "0"}
            handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
