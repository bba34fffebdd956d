"""One live display for a whole generate or grade run: cells done across every batch,
rate, ETA, spend, errors.

inspect's own display restarts with every batch of ~600 cells and shows its internals;
this one spans the run and is fed by the journal (a row counts once it is safe). It
draws on stderr, only on a terminal.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Callable, Iterable, Sequence

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from ..outcomes import ConditionRun
from ..plan.pricing import format_usd

NAME_WIDTH = 24
"""The least room for a condition's slug on its row (indented by two under the
total's); a wider terminal, or smaller counts, give it more."""
OTHER_COLUMNS = 14 + 8 + 3 + 7 + 5
"""What a row holds beside its name and done/total: the bar, the rate, "eta", the time
and the gaps between columns."""
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
        conditions: Sequence[ConditionRun],
        *,
        console: Console,
        expected_usd: float | None = None,
        cap_usd: float | None = None,
    ) -> None:
        """A line per condition: its planned cells, and the rows already written when
        the display starts (a grade's verifiable scorers run first, without a
        call)."""
        planned = {c.condition_id: c.planned for c in conditions}
        slugs = {c.condition_id: c.slug for c in conditions}
        done = {c.condition_id: c.rows for c in conditions}
        self.expected_usd, self.cap_usd = expected_usd, cap_usd
        self.errors = self.parse_failures = 0
        self.usd: float | None = 0.0
        self._stage = stage
        self._summary = f"{stage}: {self._note()}"
        self._progress = self._display(console)
        name_width = _name_width(console.width, planned, slugs)
        self._total = self._progress.add_task(
            _short(f"{stage} cells", name_width + 2),
            total=sum(planned.values()),
            completed=sum(done.values()),
        )
        self._lines: dict[str, TaskID] = {}
        if len(planned) <= MAX_CONDITION_LINES:
            for condition_id, count in planned.items():
                if count:
                    slug = slugs.get(condition_id, condition_id)
                    self._lines[condition_id] = self._progress.add_task(
                        f"  {_short(slug, name_width)}",
                        total=count,
                        completed=done.get(condition_id, 0),
                    )

    def _display(self, console: Console) -> _NotedProgress:
        # Designed for 80 columns: a name of at least 26, a 14-wide bar, done/total,
        # rate and ETA on each row (at most 77 with 5-digit counts; the name takes what
        # is left, _name_width), and the spend and errors on a line of their own above
        # them, so nothing is cut at 80.
        return _NotedProgress(
            lambda: self._summary,
            TextColumn("{task.description}", table_column=_fixed()),
            BarColumn(bar_width=14, table_column=_fixed()),
            MofNCompleteColumn(table_column=_fixed()),
            _RateColumn(table_column=_fixed()),
            TextColumn("eta", table_column=_fixed()),
            TimeRemainingColumn(table_column=_fixed()),
            console=console,
            refresh_per_second=4,
            transient=False,
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
        self._summary = f"{self._stage}: {self._note()}"
        self._progress.update(self._total, advance=1)
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


class _NotedProgress(Progress):
    """rich's Progress with one line of text (spend, errors) above its rows."""

    def __init__(self, summary: Callable[[], str], *columns: Any, **options: Any):
        self._summary_of = summary
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterable[RenderableType]:
        yield Text(self._summary_of())  # wraps rather than cut, when long
        yield self.make_tasks_table(self.tasks)


class _RateColumn(ProgressColumn):
    """Cells a second, or a minute when slower than one a second (judge calls often
    are); blank until rich has two points to measure between."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("   --/s")
        if speed >= 1:
            return Text(f"{speed:5.1f}/s")
        return Text(f"{speed * 60:3.0f}/min")


def _fixed() -> Column:
    """A column that keeps its content whole (rich otherwise cuts the widest with
    an ellipsis when the row is too long)."""
    return Column(no_wrap=True, overflow="ignore")


def _name_width(width: int, planned: dict[str, int], slugs: dict[str, str]) -> int:
    """Room for the slugs: what the terminal leaves beside the other columns (the
    done/total as wide as the total's), at least NAME_WIDTH, at most the longest."""
    digits = len(str(sum(planned.values())))
    room = width - 1 - 2 - OTHER_COLUMNS - (2 * digits + 1)
    longest = max((len(slugs.get(c, c)) for c in planned), default=0)
    return max(NAME_WIDTH, min(room, longest))


def _short(slug: str, width: int) -> str:
    """A slug cut from the middle, so its model and its config both stay readable."""
    if len(slug) <= width:
        return slug.ljust(width)
    keep = width - 1
    return f"{slug[: keep - keep // 2]}…{slug[-(keep // 2) :]}"
