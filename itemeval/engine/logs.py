"""Reading inspect's own logs (.eval/.json): the samples `itemeval import` brings in."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from inspect_ai.log import list_eval_logs, read_eval_log

from ..errors import ConfigError
from ..outcomes import SampleResult
from ..records import GenerateCondition, Item
from ..study.imported import condition_of, log_payload
from .samples import read_sample


def log_files(locations: Iterable[str]) -> list[str]:
    """Every .eval/.json log named, a folder standing for the logs inside it."""
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


@dataclass(frozen=True)
class LoggedAnswer:
    """One sample of a log, matched to its item."""

    item: Item
    epoch: int
    result: SampleResult
    created_at: str
    """When inspect finished the sample (which of two answers is newer)."""


@dataclass
class LogImport:
    """What one log holds: its condition, its answers, the samples matching no item."""

    path: str
    model: str
    condition: GenerateCondition
    answers: list[LoggedAnswer] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def read_log(path: str, items: dict[str, Item], *, id_field: str | None) -> LogImport:
    """One log's samples, matched to the study's items by id (or a metadata field)."""
    try:
        log = read_eval_log(path)
    # a foreign or broken file, named for the user
    except Exception as exc:  # noqa: BLE001 - the reason above
        raise ConfigError(
            f"import: {path} is not a readable inspect log ({exc})"
        ) from None
    found = LogImport(
        path=path, model=log.eval.model, condition=condition_of(log_payload(log))
    )
    for sample in log.samples or []:
        item_id = _item_id(sample, id_field)
        item = items.get(item_id)
        if item is None:
            found.unmatched.append(item_id)
            continue
        result = read_sample(sample, path)
        if result.skipped:
            continue  # a cancelled sample: there is no answer to import
        when = _when(sample.completed_at or log.eval.created)
        found.answers.append(LoggedAnswer(item, sample.epoch, result, when))
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
