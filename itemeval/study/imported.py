"""Imported generate conditions: ids from what defines them, the record of them, and
which of their answers a new import keeps."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from ..errors import StoreError
from ..hashing import canonical_json, condition_id, sha256_hex, slug_part
from ..paths import StudyPaths
from ..records import SAMPLING_PARAM_NAMES, GenerateCondition, Template
from ..store.files import write_json_atomic
from .grid import model_short_name

IMPORTS_FILE = "imports.json"
KIND = "imported"
RUNTIME_KEYS = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "max_connections",
        "adaptive_connections",
        "cache",
        "cache_prompt",
        "batch",
        "extra_headers",
        "fallback_models",
    }
)
"""GenerateConfig fields on how a run was executed, not what it asked: not in ids."""

# ---- the condition a log defines -----------------------------------------------------


def log_payload(log: Any) -> dict[str, Any]:
    """What defines an imported condition: model, config, task, plan, dataset."""
    spec, plan = log.eval, log.plan
    config = {
        **spec.model_generate_config.model_dump(exclude_none=True),
        **plan.config.model_dump(exclude_none=True),
    }
    steps = [step.model_dump(mode="json") for step in plan.steps]
    dataset = {
        "name": spec.dataset.name,
        "location": spec.dataset.location,
        "task_args": spec.task_args,
    }
    return {
        "kind": KIND,
        "model": spec.model,
        "generate_config": {k: v for k, v in config.items() if k not in RUNTIME_KEYS},
        "task": {
            "name": spec.task,
            "version": spec.task_version,
            "plan": sha256_hex(canonical_json(steps))[:16],
            "dataset": sha256_hex(canonical_json(dataset))[:16],
        },
    }


def condition_of(payload: dict[str, Any]) -> GenerateCondition:
    """The imported generate condition of a payload (from a log or imports.json)."""
    task = payload["task"]
    slug = "_".join(
        slug_part(part)
        for part in (model_short_name(payload["model"]), task["name"], KIND)
    )
    config = payload["generate_config"]
    return GenerateCondition(
        id=condition_id(slug, payload),
        slug=slug,
        model=payload["model"],
        prompt=Template(
            ref=f"{KIND}:{task['name']}",
            kind="prompt",
            text="",
            hash=task["plan"],
            source="local",
            path="",
        ),
        model_config_name=KIND,
        params={k: config[k] for k in SAMPLING_PARAM_NAMES if k in config},
        payload=payload,
        kind=KIND,
    )


# ---- the study's record of imported conditions ---------------------------------------


def imports_path(paths: StudyPaths) -> Path:
    return paths.root / IMPORTS_FILE


def imported_conditions(paths: StudyPaths) -> list[GenerateCondition]:
    """Conditions earlier imports recorded, in the order they were first imported."""
    path = imports_path(paths)
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [condition_of(entry["payload"]) for entry in data["conditions"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"{path}: not a valid imports file ({type(exc).__name__}: {exc}); "
            "move it aside and re-import the logs"
        ) from None


def record_imports(
    paths: StudyPaths,
    conditions: Iterable[GenerateCondition],
    logs: dict[str, set[str]],
) -> None:
    """Add new conditions (and the logs each came from) to imports.json, atomically."""
    path = imports_path(paths)
    data = (
        json.loads(path.read_text(encoding="utf-8"))
        if path.is_file()
        else {"conditions": []}
    )
    entries = {entry["id"]: entry for entry in data["conditions"]}
    for condition in conditions:
        entry = entries.get(condition.id)
        if entry is None:
            entry = {"id": condition.id, "slug": condition.slug, "logs": []}
            entry["payload"] = condition.payload
            data["conditions"].append(entry)
            entries[condition.id] = entry
        entry["logs"] = sorted(set(entry["logs"]) | logs.get(condition.id, set()))
    write_json_atomic(path, data)


def newest_rows(
    rows: list[dict[str, Any]], stored: dict[tuple[str, str, int], dict[str, Any]]
) -> tuple[list[dict[str, Any]], int]:
    """The rows to write: per key the newest answer, and only when the store lacks it.

    Re-importing a log finds its sample uuids stored and writes nothing; a newer log
    of the condition replaces older answers; an errored sample never replaces an
    answer. Returns the rows and how many were already stored or older.
    """
    best: dict[tuple[str, str, int], dict[str, Any]] = {}
    for row in rows:
        key = (row["condition_id"], row["item_id"], int(row["epoch"]))
        if _better(row, best.get(key)):
            best[key] = row
    fresh = [
        row
        for key, row in best.items()
        if key not in stored
        or (
            stored[key]["sample_uuid"] != row["sample_uuid"]
            and _better(row, stored[key])
        )
    ]
    return fresh, len(best) - len(fresh)


def _better(row: dict[str, Any], other: dict[str, Any] | None) -> bool:
    if other is None:
        return True
    if row["error"] is not None and other["error"] is None:
        return False
    if other["error"] is not None and row["error"] is None:
        return True
    return _stamp(row["created_at"]) > _stamp(other["created_at"])


def _stamp(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.fromisoformat(str(value))
