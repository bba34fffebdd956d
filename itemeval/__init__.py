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

_PUBLIC = {
    "__version__": "version",
    "load_study": "study.load",
    "Study": "study.load",
    "run_generate": "stages.generate",
    "GenerateOptions": "plan.options",
    "run_grade": "stages.grade.stage",
    "GradeOptions": "plan.options",
    "run_estimate": "stages.estimate",
    "EstimateOptions": "plan.options",
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

__all__ = list(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'itemeval' has no attribute {name!r}")
    return getattr(importlib.import_module(f"itemeval.{_PUBLIC[name]}"), name)
