"""Which study made the calls inspect's shared response cache answers.

inspect's cache records no caller. After each run with `cache: true` or `study`,
itemeval notes the cache entries the run wrote (the files that appeared in each model's
cache folder while it ran) beside inspect's cache, with the study's name and where its
store is; the lookup before a run (cache_lookup) then names, for each cached call, the
study whose earlier call answers it. Two studies running at the same moment on one
machine with the same model may each be named for the other's entries; an entry no
itemeval run noted (another tool, an itemeval before this) is counted as unrecorded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ..paths import StudyPaths
from ..records import TaskSpec
from ..store.backend import location

UNRECORDED = ""
"""The origin of an entry no itemeval run noted."""


def where(name: str, paths: StudyPaths) -> str:
    """A study as the notes name it: its name and its store's place."""
    return f"{name} ({location(paths)})"


def record(origin: str, specs: Iterable[TaskSpec], since_ns: int) -> None:
    """Note the cache entries of the specs' models written since `since_ns` as
    `origin`'s, a study as `where` names it (best effort: a note that cannot be written
    only loses the naming)."""
    from inspect_ai.model import cache_path

    models = {spec.model for spec in specs if spec.cache_scope is not None}
    for model in sorted(models):
        try:
            folder = cache_path(model=model)
            keys = [
                entry.name
                for entry in os.scandir(folder)
                if entry.is_file() and entry.stat().st_mtime_ns >= since_ns
            ]
            if keys:
                lines = "".join(
                    json.dumps({"key": key, "study": origin}) + "\n" for key in keys
                )
                path = _origins_file(model)
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(lines)  # one append: whole lines, never interleaved
        except (OSError, ValueError):
            continue


def origins(model: str, keys: Iterable[str]) -> Counter[str]:
    """How many of these cache keys each study's calls wrote (UNRECORDED: none
    noted); the latest note of a key wins."""
    noted: dict[str, str] = {}
    try:
        with open(_origins_file(model), encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                    noted[record["key"]] = record["study"]
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line of a killed writer
    except OSError:
        pass
    return Counter(noted.get(key, UNRECORDED) for key in keys)


def describe(counts: Counter[str], own: str) -> str:
    """`16 from study a (/x/studies/a), 8 from this study`, largest first; `own` is
    this study as `where` names it."""
    parts = []
    for origin, n in counts.most_common():
        if origin == own:
            parts.append(f"{n} from this study's earlier calls")
        elif origin == UNRECORDED:
            parts.append(f"{n} from calls no itemeval run noted")
        else:
            parts.append(f"{n} from study {origin}")
    return ", ".join(parts)


def _origins_file(model: str) -> Path:
    """Beside inspect's cache folder, not in it (inspect reads every file there as an
    entry)."""
    from .cache_lookup import cache_root

    root = cache_root()
    name = hashlib.sha256(model.encode()).hexdigest()[:16]
    return root.parent / f"{root.name}-itemeval-origins" / f"{name}.jsonl"
