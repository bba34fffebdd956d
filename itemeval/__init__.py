"""itemeval: generate-then-grade, item-level LLM evaluation on inspect-ai.

The library behind the CLI, for notebooks and scripts:

    from itemeval import frames, load_study, run_generate, run_grade
    from itemeval import GenerateOptions, GradeOptions
    study = load_study("configs/demo.yaml")
    run_generate(study, GenerateOptions(yes=True))
    run_grade(study, GradeOptions(yes=True))
    tables = frames("configs/demo.yaml")  # items, solutions, grades, long, results

Names are imported on first use, so `import itemeval` stays instant.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_PUBLIC = {
    "load_study": "study.load",
    "Study": "study.load",
    "run_generate": "stages.generate",
    "GenerateOptions": "stages.generate",
    "run_grade": "stages.grade.stage",
    "GradeOptions": "stages.grade.stage",
    "run_estimate": "stages.estimate",
    "EstimateOptions": "stages.estimate",
    "study_status": "results.status",
    "run_export": "bridges.export",
    "frames": "bridges.frames",
    "Frames": "bridges.frames",
    "run_import": "bridges.importer",
    "StageResult": "outcomes",
    "ConditionRun": "outcomes",
    "ItemevalError": "errors",
    "ConfigError": "errors",
    "StoreError": "errors",
    "BudgetError": "errors",
    "ConfirmationRequired": "errors",
    "StudyLocked": "errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'itemeval' has no attribute {name!r}")
    return getattr(importlib.import_module(f"itemeval.{_PUBLIC[name]}"), name)
