"""The held-out table of issue 50: replies written the way today's models answer, each
with a careful human's verdict, by a helper who never saw the scorers' code
(`held_out_50/*.jsonl`, kept as written: reply, target, verdict 1 or 0, kind, note,
and choices for multiple choice; judge replies carry the score a reader takes, or
null for none).

Read before issue 50's changes: numeric 295/433 (8 wrong credits), multiple_choice
296/333, exact_match 163/296, judge 31/48. After them: numeric 430/433,
multiple_choice 332/333, exact_match 284/296, judge 41/48, no wrong credit. What is
still disagreed is listed in KNOWN_MISSES, each with why it is left.
"""

from __future__ import annotations

import json
from pathlib import Path

_FOLDER = Path(__file__).parent / "held_out_50"


def _rows(name: str, scorer: str) -> list[dict]:
    with (_FOLDER / f"{name}.jsonl").open(encoding="utf-8") as handle:
        return [
            {**json.loads(line), "scorer": scorer} for line in handle if line.strip()
        ]


HELD_OUT: list[dict] = [
    row
    for scorer in ("numeric", "multiple_choice", "exact_match")
    for row in _rows(scorer, scorer)
]
"""Every scored case: scorer, reply, target, verdict (1 credits), kind, note,
choices."""

JUDGE_REPLIES: list[dict] = _rows("judge_replies", "judge")
"""Judge replies: reply, score (None: the reply gives no verdict), kind, note."""

KNOWN_MISSES: dict[str, str] = {
    # numeric
    "En México usamos la coma para los miles: el total es de $1,250 pesos.": (
        "a Spanish reply reads as Spain's locale (decimal comma); Mexico's comma "
        "thousands are not told apart from it"
    ),
    "La respuesta es cuarenta y dos.": "number words are read in English only",
    "Die Antwort ist zweiundvierzig.": "number words are read in English only",
    # multiple_choice
    "Enzymes are catalysts that lower the activation energy of a reaction.": (
        "a paraphrase of an option's text, not the text itself"
    ),
    # exact_match
    "Here's the answer:\n\n> Plants absorb carbon dioxide from the atmosphere.": (
        "the answer is the object of a sentence; a target merely contained in a "
        "sentence is not credited (that is how includes() makes wrong credits)"
    ),
    "Water boils at 100°C at sea level.": "contained in a sentence, as above",
    "München": "an exonym (another language's name) is not the target's name",
    "Köln": "an exonym (another language's name) is not the target's name",
    "Ein Kilometer hat tausend Meter.": "number words are read in English only",
    "The speed of light is about 300 000 km/s.": (
        "digits grouped by a plain space in an English reply are two numbers"
    ),
    "meters per second squared": "unit names are not spelled out as symbols",
    "m·s⁻²": "unit algebra (m·s⁻² = m/s²) is not done",
    "97 is a prime number.": "a statement is not read as yes or no",
    "The USA": "abbreviations of names are not expanded",
    "Shakespeare": (
        "a surname alone is not the full name (cases_reply_formats.py pins this)"
    ),
    "Darwin": "a surname alone is not the full name",
    # judge replies: itemeval reads only JSON verdicts (README "Graders")
    "{'reasoning': 'The model answered C, which is the reference.', 'score': 1}": (
        "single quotes are not JSON"
    ),
    '{\n  "verdict": {\n    "score": 0,\n    "reason": "The reply hedges between '
    'two answers."\n  }\n}': "the score must be a top-level key",
    "**Score: 0**\n\nThe response never commits to a single option.": "no JSON",
    "Reasoning: the response matches the reference exactly.\nFinal score: 1": (
        "no JSON"
    ),
    "The response is correct. I give it a score of 1.": "no JSON",
    "Based on the rubric, this deserves 7/10: accurate but missing the second "
    "example.": "no JSON",
    '{"reasoning": "Correct answer with clear steps.", "score": 1, "confid': (
        "a cut-off object is invalid JSON"
    ),
}
"""Replies the scorers still read differently from the helper, by reply text."""
