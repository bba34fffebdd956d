"""JSON dataset text read without a traceback on hostile values: a value nested past
DEPTH_LIMIT, or an integer past Python's digit limit, is refused naming its row and
field (README "Datasets")."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from ..errors import ConfigError
from ..scorers.reply_objects import fits_int

DEPTH_LIMIT = 100
"""How deep a dataset value may nest: far past any real item (a chat history is 3 or 4
levels), and well inside what Python's JSON reader, pyarrow and our hashing follow."""


_COLON = re.compile(r"\s*:")


class _LongInteger(str):
    """An integer literal past Python's int-digit limit, kept as its text until the
    row is checked."""


def _integer(text: str) -> int | str:
    return int(text) if fits_int(text) else _LongInteger(text)


def loads(text: str, where: str) -> Any:
    """`json.loads`, with what Python's reader cannot hold refused by ConfigError
    naming `where` (a file, and a line for JSON lines) and the value's place in it.
    A malformed text raises json.JSONDecodeError, for the caller to word."""
    try:
        value = json.loads(text, parse_int=_integer)
    except RecursionError:
        place = _deep_place(text)
        raise _too_deep(where, place) from None
    _check(value, where)
    return value


def _check(value: Any, where: str) -> None:
    """Refuse a value nested past DEPTH_LIMIT or holding a _LongInteger, naming where
    it is; iterative, so a deep value cannot overflow the stack here."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, place = stack.pop()
        if isinstance(node, _LongInteger):
            digits = len(node.lstrip("-"))
            raise ConfigError(
                f"{where}: {_named(place)} is a number of {digits:,} digits (Python "
                f"reads at most {sys.get_int_max_str_digits():,}); write it as a JSON "
                "string"
            )
        if not isinstance(node, (dict, list)):
            continue
        if len(place) >= DEPTH_LIMIT:
            raise _too_deep(where, place[:2])
        children = node.items() if isinstance(node, dict) else enumerate(node)
        stack.extend((child, (*place, key)) for key, child in children)


def _too_deep(where: str, place: tuple[Any, ...]) -> ConfigError:
    return ConfigError(
        f"{where}: {_named(place)} is nested more than {DEPTH_LIMIT} levels deep; "
        "flatten it or leave the column out of mapping.metadata"
    )


def _named(place: tuple[Any, ...]) -> str:
    """`row 3, field 'extra'` for a place in a JSON list of rows (or in its `data` or
    `rows` list), `field 'extra'` for one in a row."""
    if len(place) > 1 and place[0] in ("data", "rows") and isinstance(place[1], int):
        place = place[1:]
    parts = []
    if place and isinstance(place[0], int):
        parts.append(f"row {place[0] + 1}")
        place = place[1:]
    if place:
        parts.append(f"field {place[0]!r}")
    return ", ".join(parts) or "the value"


def _deep_place(text: str) -> tuple[Any, ...]:
    """The keys and indexes down to where `text` first nests past DEPTH_LIMIT, read by
    a scan that follows strings, so that brackets and commas inside them do not count.
    Each open container is [its bracket, the key or index of the child being read]."""
    stack: list[list[Any]] = []
    index = 0
    while index < len(text) and len(stack) <= DEPTH_LIMIT:
        char = text[index]
        if char == '"':
            end = _string_end(text, index)
            if stack and stack[-1][0] == "{" and _COLON.match(text, end + 1):
                stack[-1][1] = text[index + 1 : end]
            index = end
        elif char in "[{":
            stack.append([char, 0 if char == "[" else None])
        elif char in "]}":
            stack.pop()
        elif char == "," and stack and stack[-1][0] == "[":
            stack[-1][1] += 1
        index += 1
    return tuple(at for _, at in stack[:3])


def _string_end(text: str, start: int) -> int:
    index = start + 1
    while index < len(text) and text[index] != '"':
        index += 2 if text[index] == "\\" else 1
    return index
