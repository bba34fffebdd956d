"""Which of inspect's cached responses a study may re-use (`cache:` in the config).

inspect's response cache is one directory for the machine: with `cache: true`, a call
that any study (or a clone of this one) made before with the same model, messages and
settings is answered from it at $0. `cache: study` keys every entry by this study's
store as well, so its draws are its own; `cache: false` reads and writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..paths import StudyPaths
from ..plan.estimates import EstimateLine
from ..store.backend import location


def scope(cache: bool | str, paths: StudyPaths, condition_scope: str) -> str | None:
    """The cache scope of a condition's calls under the study's `cache:` setting;
    None when the study caches nothing."""
    if cache is False:
        return None
    if cache == "study":
        return f"{location(paths)}::{condition_scope}"
    return condition_scope


def shared_note(
    cache: bool | str, origin: str, lines: Sequence[EstimateLine]
) -> str | None:
    """Before a run with the shared cache (`cache: true`): say how many of the planned
    model calls earlier calls (by any study on this machine) already answer, when some
    do; `origin` is this study as `cache_origins.where` names it."""
    if cache is not True:
        return None
    cached = sum(line.cached for line in lines)
    if not cached:
        return None
    # a verifiable scorer's lines count its grades, which call no model
    calls = sum(line.calls for line in lines if "/" in line.model)
    counts = origins(lines)
    from . import cache_origins

    note = (
        f"response cache: {cached} of {calls} model calls are answered at $0 from "
        f"earlier replies ({cache_origins.describe(counts, origin)}) in "
        f"{_cache_root()}, shared by every study on this machine"
    )
    if set(counts) == {origin}:
        return f"{note}; add --fresh to draw them anew"
    return f"{note}; for draws of this study's own, set `cache: study` in the config"


def origins(lines: Sequence[EstimateLine]) -> Counter[str]:
    """Whose earlier calls the cached ones are: a count per study."""
    from . import cache_origins
    from .cache_lookup import FOUND

    counts: Counter[str] = Counter()
    for condition_id in {line.condition_id for line in lines if line.cached}:
        model, keys = FOUND.get(condition_id, ("", ()))
        counts.update(cache_origins.origins(model, keys))
    return counts


def _cache_root() -> Path:
    from .cache_lookup import cache_root

    return cache_root()
