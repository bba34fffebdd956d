"""The read side: what `itemeval results`, `status` and `show` compute from the stores.

`ResultsOptions` and `study_results` are importable from here (README "The study as
data frames"); they load on first use, so reading `status` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "ResultsOptions": "options",
    "study_results": "compute",
    "check_options": "options",
    "graded_frame": "cells",
    "grade_conditions": "compute",
}

__all__ = list(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'itemeval.results' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_PUBLIC[name]}")
    return getattr(module, name)
