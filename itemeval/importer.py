"""`itemeval import`: inspect logs upserted as the solutions of imported conditions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from .errors import ConfigError, StoreError
from .grid import model_short_name
from .hashing import canonical_json, condition_id, sha256_hex, slug_part
from .paths import StudyPaths
from .records import SAMPLING_PARAM_NAMES, GenerateCondition, Item, Template
from .store.files import write_json_atomic

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


# ---- logs -> rows --------------------------------------------------------------------


def log_files(locations: Iterable[str]) -> list[str]:
    """Every .eval/.json log named, a folder standing for the logs inside it."""
    from inspect_ai.log import list_eval_logs

    found: list[str] = []
    for location in locations:
        path = Path(location)
        if path.is_dir():
            infos = list_eval_logs(str(path), formats=["eval", "json"], recursive=True)
            found += sorted(info.name.removeprefix("file://") for info in infos)
        elif path.is_file():
            found.append(str(path.resolve()))
        else:
            raise ConfigError(f"import: no log file or folder at {location}")
    if not found:
        raise ConfigError(f"import: no inspect logs in {', '.join(locations)}")
    return found


@dataclass
class LogImport:
    """What one log brought: its condition, its rows, the samples matching no item."""

    path: str
    condition: GenerateCondition
    rows: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def read_log(
    path: str,
    items: dict[str, Item],
    *,
    id_field: str | None,
    price: Any,
    run_id: str,
) -> LogImport:
    """One log's samples as solutions rows of its imported condition."""
    from inspect_ai.log import read_eval_log

    from .generate import solution_row
    from .inspect_tasks import read_sample
    from .pricing import call_usd

    try:
        log = read_eval_log(path)
    except Exception as exc:  # noqa: BLE001 - a foreign or broken file, named for the user
        raise ConfigError(
            f"import: {path} is not a readable inspect log ({exc})"
        ) from None
    found = LogImport(path=path, condition=condition_of(log_payload(log)))
    for sample in log.samples or []:
        item_id = _item_id(sample, id_field)
        item = items.get(item_id)
        if item is None:
            found.unmatched.append(item_id)
            continue
        result = read_sample(sample, path)
        if result.skipped:
            continue  # a cancelled sample: there is no answer to import
        usd = call_usd(price(log.eval.model), result.usage, cache_hit=result.cache_hit)
        row = solution_row(
            found.condition, item, sample.epoch, result, run_id=run_id, usd=usd
        )
        row["created_at"] = _when(sample.completed_at or log.eval.created)
        found.rows.append(row)
    return found


def _item_id(sample: Any, id_field: str | None) -> str:
    if id_field is None:
        return str(sample.id)
    value = (sample.metadata or {}).get(id_field)
    return "" if value is None else str(value)


def _when(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    return datetime.fromisoformat(str(value)).astimezone(timezone.utc).isoformat()


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


# ---- the command ---------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    """What `itemeval import` did per condition, with every sample matching no item."""

    logs: list[str]
    conditions: list[dict[str, Any]]
    unmatched: list[dict[str, Any]]
    rows_written: int
    unchanged: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "logs": self.logs,
            "conditions": self.conditions,
            "unmatched": self.unmatched,
            "rows_written": self.rows_written,
            "unchanged": self.unchanged,
        }


def run_import(
    study: Any, locations: list[str], *, id_field: str | None = None
) -> ImportResult:
    """Upsert inspect logs' samples as imported conditions' solutions; no model call."""
    from .pricing import load_prices
    from .run import locked, store_items
    from .store import upsert

    if study.paths.remote is not None:
        raise ConfigError(
            "import: a study on object storage cannot import logs yet; import into a "
            "local copy of the study"
        )
    files = log_files(locations)
    prices = load_prices(study.pricing_path)
    items = {item.id: item for item in study.items}
    run_id = "import-" + datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    found = [
        read_log(f, items, id_field=id_field, price=prices.lookup, run_id=run_id)
        for f in files
    ]
    conditions = {f.condition.id: f.condition for f in found}
    with locked(study, "import"):
        store_items(study)
        stored = _stored(study.paths, list(conditions))
        rows, unchanged = newest_rows([r for f in found for r in f.rows], stored)
        if rows:
            upsert(study.paths, "solutions", rows)
        logs: dict[str, set[str]] = {}
        for f in found:
            logs.setdefault(f.condition.id, set()).add(f.path)
        record_imports(study.paths, conditions.values(), logs)
    return ImportResult(
        logs=files,
        conditions=_summary(found, rows),
        unmatched=[
            {"log": f.path, "sample_ids": f.unmatched} for f in found if f.unmatched
        ],
        rows_written=len(rows),
        unchanged=unchanged,
    )


def _stored(
    paths: StudyPaths, ids: list[str]
) -> dict[tuple[str, str, int], dict[str, Any]]:
    from .store import read_store

    columns = ["condition_id", "item_id", "epoch", "sample_uuid", "created_at", "error"]
    table = read_store(paths, "solutions", columns, where={"condition_id": ids})
    return {
        (row["condition_id"], row["item_id"], int(row["epoch"])): row
        for row in table.to_pylist()
    }


def _summary(
    found: list[LogImport], written: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    per: dict[str, dict[str, Any]] = {}
    for f in found:
        entry = per.setdefault(
            f.condition.id,
            {
                "condition_id": f.condition.id,
                "slug": f.condition.slug,
                "model": f.condition.model,
                "kind": KIND,
                "samples": 0,
                "rows_written": 0,
            },
        )
        entry["samples"] += len(f.rows)
    for row in written:
        per[row["condition_id"]]["rows_written"] += 1
    return list(per.values())
