"""Canonical JSON, content hashes and slugs: the only place ids are minted from."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_NON_SLUG = re.compile(r"[^a-z0-9]+")


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept as is: the same value gives the same
    text everywhere."""
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(text: str) -> str:
    """Hash of a template or file's text, with CRLF normalised so checkouts on any OS
    agree."""
    return sha256_hex(text.replace("\r\n", "\n"))


def bytes_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def slug_part(text: str) -> str:
    """Lower-case, with every run of characters outside [a-z0-9] turned into a single
    '-'."""
    return _NON_SLUG.sub("-", text.lower())


def condition_id(slug: str, payload: dict[str, Any]) -> str:
    """`<slug>--<first 12 hex of sha256(canonical_json(payload))>` (README
    "Concepts")."""
    return f"{slug}--{sha256_hex(canonical_json(payload))[:12]}"


def text_hash(text: str | None) -> str | None:
    """Short fingerprint of a stored solution, used to tell when a grade has gone
    stale."""
    if text is None:
        return None
    return sha256_hex(text)[:16]
