"""A study as declared: its config, templates, items, the condition grid and the
kinds of condition (imported, pairwise, cascade).

`load_study` and `Study` are importable from here; they load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {"load_study": "load", "Study": "load"}

__all__ = list(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'itemeval.study' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_PUBLIC[name]}")
    return getattr(module, name)
