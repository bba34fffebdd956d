"""Reproducible uniform draws, each fixed by its parts: the offline models'
randomness."""

from __future__ import annotations

import hashlib


def unit(*parts: object) -> float:
    """A uniform draw in (0, 1) fixed by `parts`."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2**64
