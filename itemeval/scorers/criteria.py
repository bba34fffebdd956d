"""Scores with several named criteria: a rubric's `criteria:` front matter, the judge's
reply shape for it, and the per-criterion values a grade keeps.

Criterion values live in the grade row's `score_metadata` JSON under `criteria`, so a
grade stays one row of the existing store (no schema change for local or Delta stores);
`results` and `export/criteria_long.parquet` unfold them to one row per criterion.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import yaml

from ..errors import ConfigError

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_NAME = re.compile(r"^[A-Za-z_][\w-]{0,63}$")


def split_front_matter(text: str, where: str = "rubric") -> tuple[tuple[str, ...], str]:
    """(the criteria a rubric declares, its text without the front-matter block)."""
    match = _FRONT.match(text)
    if match is None:
        return (), text
    try:
        data = yaml.safe_load(match[1]) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: front matter is not YAML ({exc})") from None
    if not isinstance(data, dict) or set(data) - {"criteria"}:
        raise ConfigError(
            f"{where}: front matter may hold only `criteria: [name, ...]`"
        )
    names = data.get("criteria") or []
    if not isinstance(names, list) or not all(
        isinstance(n, str) and _NAME.match(n) for n in names
    ):
        raise ConfigError(
            f"{where}: criteria must be a list of names (letters, digits, _ and -)"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: a criterion is named twice in {names}")
    return tuple(names), text[match.end() :]


def format_suffix(criteria: tuple[str, ...]) -> str:
    """The format suffix of a rubric with criteria: the total and every criterion."""
    shape = ", ".join(f'"{name}": <number>' for name in criteria)
    return f"""\
## How to reply

Give your assessment first. Then end your reply with a fenced JSON block, and write
nothing after it:

```json
{{"score": <total>, "criteria": {{{shape}}}, "reasoning": "<one or two sentences>"}}
```

- `score` is your overall score on the scale the rubric defines, a bare JSON number.
- `criteria` gives every criterion named above its own bare JSON number.
- `reasoning` is a JSON string: escape double quotes and backslashes inside it.
"""


SCORE_LIMIT = 1e6
"""The largest score or criterion value, either sign, a verdict may give: no rubric's
scale reaches a million points, and one value of -1e308 would swamp every mean."""


def read_criteria(
    value: Any, expected: tuple[str, ...]
) -> tuple[dict[str, float] | None, str | None]:
    """(criterion -> number, None) from a judge's `criteria` object, or (None, failure
    code): `criterion_missing` when an expected name is absent, `criterion_not_numeric`
    when its value is not a finite number, `criterion_out_of_range` past ±SCORE_LIMIT.
    Names the rubric did not ask for are kept."""
    given = value if isinstance(value, Mapping) else {}
    if any(name not in given for name in expected):
        return None, "criterion_missing"
    values = {}
    for name, raw in given.items():
        number = _number(raw)
        if number is None:
            if name in expected:
                return None, "criterion_not_numeric"
            continue
        if abs(number) > SCORE_LIMIT and name in expected:
            return None, "criterion_out_of_range"
        values[str(name)] = number
    return values, None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)):
        try:
            value = float(str(value))  # the judge parser's raw JSON numbers
        except ValueError:
            return None
    number = float(value)
    return number if math.isfinite(number) else None


TOTAL_KEYS = ("score", "total")
"""A mapping's key that declares its total; the other keys are its criteria."""


def mapping_score(value: Mapping[str, Any]) -> tuple[float | None, dict[str, float]]:
    """An inspect or user score whose value is a mapping: (its score, its criteria).
    The score is the declared total (`score` or `total`), else the mean of the values;
    None when a value is not a number."""
    total_key = next((k for k in TOTAL_KEYS if k in value), None)
    criteria = {}
    for name, raw in value.items():
        if name == total_key:
            continue
        number = _number(_letter(raw))
        if number is None:
            return None, {}
        criteria[str(name)] = number
    if total_key is not None:
        return _number(_letter(value[total_key])), criteria
    if not criteria:
        return None, {}
    return sum(criteria.values()) / len(criteria), criteria


def _letter(value: Any) -> Any:
    """inspect's letter grades as value_to_float reads them (C 1, P 0.5, I 0, N 0)."""
    letters = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
    return letters.get(value, value) if isinstance(value, str) else value


def criteria_of(score_metadata: Any) -> dict[str, float]:
    """The criteria a grade row keeps in its `score_metadata` JSON ({} when none)."""
    if not isinstance(score_metadata, str) or '"criteria"' not in score_metadata:
        return {}
    found = json.loads(score_metadata).get("criteria")
    return dict(found) if isinstance(found, dict) else {}


@lru_cache(maxsize=256)
def rubric_criteria(text: str) -> tuple[tuple[str, ...], str]:
    """`split_front_matter` of a rubric already checked at load, read once per text."""
    return split_front_matter(text)
