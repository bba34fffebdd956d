"""The batch ledger of a study on object storage, beside its tables at
`<output_dir>/<study>/batches/<submission>.json` (README "Batch mode").

A machine works in its own dir (`paths.root`); the URI is where machines meet. Each
record is uploaded whole (one PUT: readers see all of it or none) every time it is
written, and read back before the ledger is read. Two copies of one record are settled
by how far each has come (`progress`): a batch id, once given, and `closed`,
once written, are never taken back, so the further copy wins and the other is never
written over it. A local study's ledger is already where every run reads it: these
do nothing there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...paths import StudyPaths
from ...store.backend import shared_folder
from ...store.files import write_json_atomic

if TYPE_CHECKING:
    from ...store.mirror import SharedFolder

FOLDER = "batches"


def folder(paths: StudyPaths) -> Path:
    """This machine's copy of the ledger."""
    return paths.root / FOLDER


def progress(record: dict[str, Any]) -> tuple[bool, bool]:
    """How far a record has come: created (it has a batch id), then closed. Neither
    ever goes back, so of two copies of one record the further one is the truth."""
    return (record.get("state") == "closed", record.get("batch_id") is not None)


def upload(paths: StudyPaths, path: Path) -> None:
    """Copy one written record to the study's URI."""
    shared = shared_folder(paths, FOLDER)
    if shared is not None:
        shared.put(path)


def fetch(paths: StudyPaths) -> None:
    """Bring this machine's copy of the ledger up to the shared one: records it lacks,
    and those another machine took further. A record further along here than there
    (its upload failed) is uploaded again."""
    shared = shared_folder(paths, FOLDER)
    if shared is None:
        return
    here = folder(paths)
    for name in shared.names():
        if name.endswith(".json"):
            _settle(shared, name, here / name)


def _settle(shared: SharedFolder, name: str, local: Path) -> None:
    theirs = json.loads(shared.read(name))
    mine = json.loads(local.read_text("utf-8")) if local.exists() else None
    if mine is None or progress(theirs) > progress(mine):
        local.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(local, theirs)
    elif progress(mine) > progress(theirs):
        shared.put(local, name)
