"""One inspect eval over a stream of tasks: fed a task as each ends, its finished
samples routed to a sink, its failures and logs read back afterwards."""

from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from inspect_ai import Task, TaskSource, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.event import ErrorEvent
from inspect_ai.log import EvalLog

from .. import heap, signals
from ..errors import is_write_failure
from ..redact import redact, redacted_logs
from ..version import inspect_version, release
from .hooks import Route, SampleSink, routed
from .samples import recording_refusals
from .tasks import quiet_banner

LOG_BUFFER = 500  # finished samples an `.eval` log takes in one write, at most


@dataclass(frozen=True)
class EvalSettings:
    """How one inspect eval runs and logs."""

    log_dir: Path
    log_prefix: Path
    """Prepended to each log file's name in the rows (the log dir within the
    study)."""
    display: str
    in_flight: int
    """Tasks running at once."""
    log_buffer: int = LOG_BUFFER
    logprob_tokens: int = 8
    """Generated tokens whose logprobs each row keeps."""


def run_tasks(
    tasks: Iterable[Task],
    sink: SampleSink,
    settings: EvalSettings,
    keep_feeding: Callable[[], bool] = lambda: True,
) -> dict[str, str] | None:
    """Run the tasks in one eval, `in_flight` at a time, each starting as soon as an
    earlier one ends.

    Returns {task name: failure} for tasks that failed as a whole; once a task of some
    name failed, the later tasks of that name are skipped, as are all tasks once
    `keep_feeding()` is false. None when the user interrupted the eval (inspect then
    returns no logs).

    Each sample that made its calls is read into a SampleResult and passed to `sink`
    (see hooks.routed).
    """
    quiet_banner()
    feed = _Feed(iter(tasks), keep_feeding)
    if not feed.start(settings.in_flight):
        return {}
    route = Route(sink, settings.log_prefix, settings.logprob_tokens)
    with _around_eval(route) as route:
        logs = eval(
            feed,
            log_dir=str(settings.log_dir),
            **_eval_options(settings.display, settings.in_flight, settings.log_buffer),
        )
    _scrub_logs(_errored_logs(route, settings.log_dir))
    return _failures(logs) if logs else None


@contextlib.contextmanager
def _around_eval(route: Route) -> Iterator[Route]:
    """What holds while the eval runs: samples routed to the sink, logs redacted,
    refusals recorded, the heap frozen, our Ctrl-C handler kept."""
    # inspect prints its hooks banner on stdout, which belongs to `--json`; send it to
    # stderr.
    with (
        contextlib.redirect_stdout(sys.stderr),
        heap.frozen(collect_first=True),
        signals.sigint_handler_kept(),
        redacted_logs(),
        recording_refusals(),
        routed(route) as routing,
    ):
        yield routing


CONTROL_CHANNEL = release(inspect_version() or "") >= (0, 3, 264)
"""Whether the eval keeps inspect's control channel (`inspect ctl`). Before 0.3.264
its server took SIGINT with uvicorn's signal capture and shut down at uvicorn's pace
before the eval saw the signal, so calls went on starting after a Ctrl-C or a stop
(a failed write): there it is off."""


def _eval_options(display: str, in_flight: int, log_buffer: int) -> dict[str, Any]:
    """How `run_tasks` asks inspect to run and log its eval."""
    return dict(
        display=display,
        fail_on_error=False,
        # a TaskSource is fed live only with more than one task at a time
        max_tasks=max(2, in_flight),
        # The journal, not the .eval log, is the durable copy of each row, so
        # inspect may write the log in big batches and skip its realtime event
        # buffer (live view of running samples): together about 30% less CPU per
        # sample; finished samples keep their full transcripts.
        log_realtime=False,
        # each task holds its finished samples until this many are written: a
        # bound on the samples held, as the feed's window bounds those running
        log_buffer=log_buffer,
        # the rows are journaled already: do not read every sample back
        log_header_only=True,
        # a grade task's scorer writes each verdict into its log (log_scores.py);
        # a generate task has none, so nothing is scored there
        score=True,
        **({} if CONTROL_CHANNEL else {"ctl_server": False}),
    )


def _errored_logs(route: Route, log_dir: Path) -> list[Path]:
    """The `.eval` logs of the evals with a failed sample."""
    return [
        log_dir / route.log_files[eval_id]
        for eval_id in route.errored
        if eval_id in route.log_files
    ]


class _Feed(TaskSource):
    """Hands inspect the next task each time a running one ends, so no task waits for
    another's slowest call."""

    def __init__(self, tasks: Iterator[Task], keep_feeding: Callable[[], bool]) -> None:
        self.tasks = tasks
        self.keep_feeding = keep_feeding
        self.first: list[Task] = []
        self.failed: set[str] = set()
        self.running: dict[str, Task] = {}
        """Tasks handed out and not yet ended, by their first sample's id."""

    def start(self, count: int) -> list[Task]:
        """Take the first `count` tasks (fewer when the tasks run out): those the
        eval starts with."""
        self.first = [
            task
            for task in (self.next_task() for _ in range(count))
            if task is not None
        ]
        return self.first

    def initial_tasks(self) -> list[Task]:
        return self.first

    async def task_complete(self, log: EvalLog) -> list[Task] | None:
        if log.status == "error":
            self.failed.add(log.eval.task)
        ids = log.eval.dataset.sample_ids or []
        ended = self.running.pop(str(ids[0]), None) if ids else None
        if ended is not None and isinstance(ended.dataset, MemoryDataset):
            # inspect keeps every task of a running eval, samples included, until the
            # eval ends: its prompts would otherwise stay too (about 3 KB a cell,
            # measured at 9,000 cells).
            ended.dataset.samples.clear()
        task = self.next_task()
        return [task] if task is not None else None

    def next_task(self) -> Task | None:
        if signals.stop_requested() or not self.keep_feeding():
            return None
        task = next((task for task in self.tasks if task.name not in self.failed), None)
        if task is not None and len(task.dataset):
            self.running[str(task.dataset[0].id)] = task
        return task


def _scrub_logs(paths: list[Path]) -> None:
    """Rewrite these `.eval` logs without credentials: a provider's error text can echo
    the request's key.

    Only logs with a failed sample are read, so a run without errors pays nothing for
    this.
    """
    from inspect_ai.log import read_eval_log, write_eval_log

    for path in paths:
        if not path.is_file():
            continue
        log = read_eval_log(str(path))
        for sample in log.samples or []:
            for error in [sample.error] + [
                e.error for e in sample.events if isinstance(e, ErrorEvent)
            ]:
                if (
                    error is not None
                    # rich may wrap a key across styled lines; the plain traceback keeps
                    # it whole
                ):
                    error.traceback_ansi = error.traceback
        text = log.model_dump_json()
        clean = redact(text)
        if clean != text:
            write_eval_log(EvalLog.model_validate_json(clean), str(path))


_OS_ERROR = re.compile(r"\b(?:OSError|IOError|PermissionError)\((\d+), '([^']*)'")


def write_error(failure: str) -> OSError | None:
    """The OSError behind a task failure that inspect reported as text, when it was a
    write the disk refused (inspect's own `.eval` log on a full disk)."""
    match = _OS_ERROR.search(failure)
    if match is None:
        return None
    error = OSError(int(match.group(1)), match.group(2))
    return error if is_write_failure(error) else None


def _failures(logs: list[EvalLog]) -> dict[str, str]:
    """The last line of each failed task's error, by task name."""
    failures = {}
    for log in logs:
        if log.status == "error":
            message = log.error.message if log.error else "the task failed"
            failures[log.eval.task] = (
                redact(message.strip().splitlines()[-1][:500]) or "the task failed"
            )
    return failures
