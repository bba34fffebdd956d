"""Writing human labels: each the moment it is given, into the grades store or, while
another command holds the study lock, into a journal part the next command merges."""

from __future__ import annotations

import secrets
import threading
from datetime import datetime, timezone
from typing import Any

from ..errors import StudyLocked
from ..store import upsert
from ..store.journal import JournalWriter, seal
from ..store.recovery import locked
from ..study.load import Study


class LabelWriter:
    """Writes each label the moment it is given: a keyed upsert into the grades store
    under the study lock (taking it only for the write, so a generate can run beside
    the view), or, while another command holds the lock, a fsynced journal record
    that the next command to take the lock merges."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.run_id = (
            "view-"
            + datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
            + "-"
            + secrets.token_hex(3)
        )
        self._lock = threading.Lock()

    def write(self, row: dict[str, Any]) -> str:
        """Make `row` durable; returns where it went ("store" or "journal")."""
        with self._lock:
            try:
                with locked(self.study.paths, "itemeval view --label"):
                    upsert(self.study.paths, "grades", [row])
                return "store"
            except StudyLocked:
                with JournalWriter(self.study.paths, self.run_id) as journal:
                    journal.append("grades", row)  # closing fsyncs it
                seal(journal.path)  # whole: the next command's to merge
                return "journal"
