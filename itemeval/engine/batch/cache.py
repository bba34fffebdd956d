"""Batch replies written into inspect's response cache (README "Batch mode"), under
the key the same call made live would have, for a study whose conditions use the
cache: a later `--force` run, a wiped study re-run, or another study asking the same
thing reads them at $0, as it would a live reply.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...records import Cell, TaskSpec
from ..cache_lookup import store_replies

Answered = tuple[TaskSpec, Cell, dict[str, Any]]
"""A cell's task, the cell, and the chat completion the batch answered it with."""


def store(answered: Iterable[Answered]) -> int:
    """Cache each answer whose task uses the cache; how many were stored. A cache
    that cannot be written costs a later run money, never this run its rows."""
    by_spec: dict[str, tuple[TaskSpec, list[tuple[Cell, dict[str, Any]]]]] = {}
    for spec, cell, body in answered:
        if spec.cache_scope is not None and spec.scorer is None:
            by_spec.setdefault(spec.name, (spec, []))[1].append((cell, body))
    stored = 0
    for spec, replies in by_spec.values():
        try:
            stored += store_replies(spec, replies)
        except Exception:  # noqa: BLE001 - see the docstring
            continue
    return stored
