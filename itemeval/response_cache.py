"""Which of inspect's cached responses a study may re-use (`cache:` in the config).

inspect's response cache is one directory for the machine: with `cache: true`, a call
that any study (or a clone of this one) made before with the same model, messages and
settings is answered from it at $0. `cache: study` keys every entry by this study's
store as well, so its draws are its own; `cache: false` reads and writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from .study import Study


def scope(study: Study, condition_scope: str) -> str | None:
    """The cache scope of a condition's calls; None when the study caches nothing."""
    if study.config.cache is False:
        return None
    if study.config.cache == "study":
        where = study.paths.remote or str(Path(study.paths.root).resolve())
        return f"{where}::{condition_scope}"
    return condition_scope


def shared_note(study: Study, models: list[str]) -> str | None:
    """Before a run with the shared cache: say that earlier calls of these models by any
    study are in it, and will be re-used, when they are."""
    if study.config.cache is not True:
        return None
    root = _cache_root()
    found = sorted(m for m in set(models) if _has_entries(root / m))
    if not found:
        return None
    return (
        f"response cache: earlier replies of {', '.join(found)} are in {root}, shared "
        "by every study on this machine; identical calls are answered from it at $0. "
        "For draws of this study's own, set `cache: study` in the config"
    )


def _cache_root() -> Path:
    from . import (
        inspect_tasks,
    )  # inspect-ai is loaded by then: the run is about to call

    return inspect_tasks.response_cache_root()


def _has_entries(folder: Path) -> bool:
    return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))
