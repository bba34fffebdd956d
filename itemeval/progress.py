"""One live display for a whole generate or grade run: cells done across every batch,
rate, ETA, spend, errors.

inspect's own display restarts with every batch of ~600 cells and shows its internals;
this one spans the run and is fed by the journal (a row counts once it is safe). It
draws on stderr, only on a terminal.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .pricing import format_usd

MAX_CONDITION_LINES = 12
"""Above this many conditions only the overall line is drawn (the summary at the end
has them all)."""


def terminal_stderr() -> Console | None:
    """stderr as a rich console when it is a terminal (a live display there); None
    for pipes, logs and CI."""
    console = Console(stderr=True)
    return console if console.is_terminal else None


class RunProgress:
    """Counts rows as the journal takes them and redraws a few times a second."""

    def __init__(
        self,
        stage: str,
        planned: dict[str, int],
        slugs: dict[str, str],
        *,
        console: Console,
        expected_usd: float | None = None,
        cap_usd: float | None = None,
    ) -> None:
        self.expected_usd, self.cap_usd = expected_usd, cap_usd
        self.errors = self.parse_failures = 0
        self.usd: float | None = 0.0
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
            refresh_per_second=4,
            transient=False,
        )
        self._total = self._progress.add_task(
            f"{stage} cells", total=sum(planned.values()), note=self._note()
        )
        self._lines: dict[str, TaskID] = {}
        if len(planned) <= MAX_CONDITION_LINES:
            for condition_id, count in planned.items():
                if count:
                    self._lines[condition_id] = self._progress.add_task(
                        f"  {_short(slugs.get(condition_id, condition_id))}",
                        total=count,
                        note="",
                    )

    def __enter__(self) -> RunProgress:
        self._progress.start()  # something is on screen before the first call returns
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def journaled(self, row: dict[str, Any]) -> None:
        """One row is safe in the journal: count it, its error or parse failure, and
        its cost."""
        self.errors += row.get("error") is not None
        self.parse_failures += row.get("parse_ok") is False
        if row.get("usd") is None:
            self.usd = None
        elif self.usd is not None:
            self.usd += row["usd"]
        self._progress.update(self._total, advance=1, note=self._note())
        line = self._lines.get(
            row.get("grade_condition_id") or row.get("condition_id") or ""
        )
        if line is not None:
            self._progress.update(line, advance=1)

    def _note(self) -> str:
        spend = "spend unknown" if self.usd is None else f"spend {format_usd(self.usd)}"
        if self.expected_usd is not None:
            spend += f" of ~{format_usd(self.expected_usd)}"
        if self.cap_usd is not None:
            spend += f" (cap {format_usd(self.cap_usd)})"
        failures = (
            f" · {self.parse_failures} parse failures" if self.parse_failures else ""
        )
        return f"{spend} · {self.errors} errors{failures}"


def _short(slug: str, width: int = 28) -> str:
    """A slug cut from the middle, so its model and its config both stay readable."""
    if len(slug) <= width:
        return slug.ljust(width)
    keep = width - 1
    return f"{slug[: keep - keep // 2]}…{slug[-(keep // 2) :]}"
