"""dataset_locks.json: the revision of every dataset, pinned the first time a study
runs."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import ConfigError, StoreError
from .files import write_json_atomic


class DatasetLock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    adapter: str
    revision: str
    pinned_at: str


class DatasetLocks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datasets: dict[str, DatasetLock] = {}


def read_locks(path: Path) -> DatasetLocks:
    if not path.exists():
        return DatasetLocks()
    try:
        return DatasetLocks.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as exc:
        raise StoreError(
            f"{path}: not a valid dataset lock file "
            f"({exc.__class__.__name__}); move it aside to re-pin"
        ) from None


def check_revision(path: Path, locks: DatasetLocks, key: str, revision: str) -> None:
    """A local dataset whose content changed since it was pinned is an error, so
    results never mix silently."""
    pinned = locks.datasets.get(key)
    if pinned is None or pinned.revision == revision:
        return
    raise ConfigError(
        f"dataset {key} changed since it was pinned in {path} (pinned "
        f"{pinned.revision}, now {revision}). "
        f"If the change is intended, re-pin it: remove the {key!r} entry from "
        f"{path} (or delete the file) and run again. Rows already stored keep their "
        "old dataset_revision; the next generate runs again every cell whose item "
        "now renders to another input than its answer was written for, and leaves "
        "unchanged items' answers alone (solvers.on_input_change: keep keeps them "
        "all, flagged)."
    )


def pin(
    path: Path, locks: DatasetLocks, revisions: dict[str, tuple[str, str]]
) -> DatasetLocks:
    """Record every not-yet-pinned dataset (key -> (adapter, revision)); write
    atomically when anything is new."""
    new = {key: value for key, value in revisions.items() if key not in locks.datasets}
    if not new:
        return locks
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    datasets = dict(locks.datasets)
    for key, (adapter, revision) in new.items():
        datasets[key] = DatasetLock(adapter=adapter, revision=revision, pinned_at=now)
    updated = DatasetLocks(datasets=datasets)
    write_json_atomic(path, updated.model_dump())
    return updated
