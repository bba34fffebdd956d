"""One live display for a whole `launch`: the shards' rows, summed, as they reach
their journal parts.

A shard is a separate process run with `--display none`; what it has finished is
what it has appended to its journal part (`journal/shard-K-of-N-….jsonl`). The
launcher reads the new whole lines of those parts a few times a second and counts each
row in itemeval's own display (progress.RunProgress), exactly as a single generate
counts the rows its journal takes.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Callable

POLL_S = 0.25
"""How often the parts are read: about the display's own refresh."""


class ShardWatch:
    """Tails the shards' journal parts created after it started, passing each new row
    of `stores` to `journaled`."""

    def __init__(
        self,
        journal: Path,
        stores: tuple[str, ...],
        journaled: Callable[[dict[str, Any]], None],
    ) -> None:
        self._journal, self._stores, self._journaled = journal, stores, journaled
        # parts already there belong to earlier launches, whose rows are not this one's
        self._earlier = set(self._parts())
        self._read: dict[Path, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="itemeval-shard-watch", daemon=True
        )

    def __enter__(self) -> ShardWatch:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.poll()  # the last rows the shards wrote before they stopped

    def _loop(self) -> None:
        while not self._stop.wait(POLL_S):
            self.poll()

    def _parts(self) -> list[Path]:
        if not self._journal.is_dir():
            return []
        return sorted(self._journal.glob("shard-*.jsonl"))

    def poll(self) -> None:
        """Count the rows appended since the last poll (whole lines only: a line still
        being written is read next time)."""
        for path in self._parts():
            if path in self._earlier:
                continue
            for row in self._new_rows(path):
                self._journaled(row)

    def _new_rows(self, path: Path) -> list[dict[str, Any]]:
        try:
            with open(path, "rb") as handle:
                handle.seek(self._read.get(path, 0))
                data = handle.read()
        except FileNotFoundError:  # committed and removed meanwhile
            return []
        whole = data[: data.rfind(b"\n") + 1]
        self._read[path] = self._read.get(path, 0) + len(whole)
        rows = []
        for line in whole.splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # replay sets such a line aside; nothing to count
                continue
            if isinstance(record, dict) and record.get("store") in self._stores:
                rows.append(record["row"])
        return rows
