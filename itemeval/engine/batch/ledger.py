"""The study's record of its provider batches: `<study>/batches/<submission>.json`,
one file per submitted batch, written to the disk before the run waits.

A submission is recorded twice: once its input file is uploaded (the file id and every
request's custom id, before the batch is created) and again with the batch id the
provider gave it. A process killed between the two leaves a record without a batch id;
the next run finds the batch by its input file (`client.find_by_file`). A record is
`open` until the batch's results are in the store (or it ended without them); then it
stays on disk as `closed`, for the evidence.

For a study on object storage every record is also uploaded beside the study's tables
as it is written (before the run waits), and read back from there before the ledger is
read, so a re-run on another machine, or from an emptied working dir, finds the same
open batches (`shared.py`).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...paths import StudyPaths
from ...store.files import fsync_path, write_json_atomic
from . import shared
from .shared import FOLDER as FOLDER  # where the records live, named once
from .shared import folder

if TYPE_CHECKING:
    from ...records import Shard


@dataclass(frozen=True)
class Request:
    """One cell in a batch: enough to turn its answer into the row a live run
    writes."""

    spec: str
    metadata: dict[str, Any]
    worst_usd: float | None = None
    sent_bytes: int = 0
    """The UTF-8 bytes of its chat, which its reported usage is checked against (0 in
    a ledger written before it was recorded)."""


@dataclass(frozen=True)
class Submission:
    """One provider batch as the study recorded it."""

    id: str
    stage: str
    model: str
    run_id: str
    config: dict[str, Any]
    """The generate config its requests were sent with (each row's effective one)."""
    requests: dict[str, Request]
    """By custom id."""
    file_id: str | None = None
    batch_id: str | None = None
    created_at: float = field(default_factory=time.time)
    state: str = "open"
    status: str = "submitting"
    """The provider's last reported status (validating, in_progress, completed...)."""
    price_factor: float = 1.0
    """The share of the live price this batch is billed at (0.5: half price)."""
    shard: str | None = None
    """The shard that submitted it (`K/N by cell`), which alone collects it; None:
    a run of the whole study, which collects every open batch."""
    note: str | None = None

    @property
    def is_open(self) -> bool:
        return self.state == "open"


def new_id() -> str:
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"


def save(paths: StudyPaths, submission: Submission) -> Submission:
    """Write the record to the disk (flushed, then renamed into place) and, for a
    study on object storage, to the study's URI: a failed upload raises, so nothing
    is submitted or waited on that another machine could not find."""
    where = folder(paths)
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{submission.id}.json"
    write_json_atomic(path, asdict(submission))
    fsync_path(where)  # the new entry itself survives a power cut
    shared.upload(paths, path)
    return submission


def update(paths: StudyPaths, submission: Submission, **changes: Any) -> Submission:
    return save(paths, replace(submission, **changes))


def load(path: Path) -> Submission:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["requests"] = {k: Request(**v) for k, v in data["requests"].items()}
    return Submission(**data)


def submissions(paths: StudyPaths, *, stage: str | None = None) -> list[Submission]:
    """Every recorded submission (oldest first), of one stage when given; a study on
    object storage first takes in the records other machines wrote."""
    shared.fetch(paths)
    where = folder(paths)
    found = [load(p) for p in sorted(where.glob("*.json"))] if where.is_dir() else []
    return [s for s in found if stage is None or s.stage == stage]


def open_submissions(
    paths: StudyPaths, *, stage: str | None = None
) -> list[Submission]:
    return [s for s in submissions(paths, stage=stage) if s.is_open]


def shard_key(shard: Shard | None) -> str | None:
    """How a submission names the shard that made it: the same K, N and split (cells
    or models) make the same cells."""
    return None if shard is None else f"{shard.index}/{shard.count} by {shard.by}"


def owned(found: list[Submission], shard: Shard | None) -> list[Submission]:
    """The submissions a run collects: a shard its own (two shards never look at one
    batch, so its rows are in one shard's journal only), a whole run every one."""
    if shard is None:
        return found
    return [s for s in found if s.shard == shard_key(shard)]


def held_keys(paths: StudyPaths, stage: str) -> frozenset[str]:
    """The custom ids an open batch of the stage holds: cells not to submit again."""
    return frozenset(
        key for s in open_submissions(paths, stage=stage) for key in s.requests
    )
