"""Run task specs as a sequence of inspect evals, journaling every finished sample as
a store row."""

from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .. import heap, signals
from ..errors import ConfigError, write_failure_message
from ..outcomes import SampleResult
from ..paths import StudyPaths
from ..plan.budget import CallGate
from ..plan.eval_windows import EvalWindow, eval_windows
from ..records import TaskSpec
from ..redact import redact
from ..store.held_rows import HeldRows
from ..store.journal import JournalWriter, replay_journals

CELLS_PER_EVAL = 2000
"""Cells per inspect eval() call; `ITEMEVAL_CELLS_PER_EVAL` overrides it. inspect
keeps bookkeeping for every task and sample of a running eval until it ends (each
finished sample's summary, about 3 KB, waits for the log's end), and each eval ends by
waiting for its slowest call, so a big run is cut into evals of this size; the store is
brought up to date between two evals. Measured on the offline models (24,000 cells, 8
conditions, whole-process peak, sampled every 0.5 s): evals of 3,000 cells 397-430 MB,
of 2,000 cells 376-383 MB, of 1,500 cells 369 MB, at the same wall time. Against a
long-tailed provider each eval's end idles the connections for about its slowest
call's latency, so smaller evals cost more there: 2,000 keeps that to one wait per
2,000 cells."""

CELLS_IN_FLIGHT = 300
"""Cells held at once inside one eval, shared by its running tasks (a task per
condition, fed a new cell as each ends; its log written every window of finished
cells); `ITEMEVAL_CELLS_IN_FLIGHT` overrides it. Measured on the offline models
(24,000 cells, 8 conditions, whole-process peak, a loaded machine): 600 cells 422 MB,
400 cells 388 MB three evals in and still rising, so 300. A window of 300 / 8 = 37
cells a task still keeps more calls ready than a provider's connections take."""

RowSink = Callable[[SampleResult], "tuple[str, dict[str, Any]]"]
"""Turns one finished sample into (store name, row) for the journal."""
Journaled = Callable[[dict[str, Any]], None]
"""Told of each row once the journal holds it."""
GateFor = Callable[[TaskSpec], "CallGate | None"]
"""The spend-cap gate of one task's calls, or None when the run is uncapped."""


LOGPROB_TOKENS = 8
"""Generated tokens whose logprobs a solution row keeps; `ITEMEVAL_LOGPROB_TOKENS`
overrides it."""


def cells_per_eval() -> int:
    """The eval size: ITEMEVAL_CELLS_PER_EVAL when set (a positive whole number),
    else CELLS_PER_EVAL."""
    return _positive_setting("ITEMEVAL_CELLS_PER_EVAL", CELLS_PER_EVAL)


def cells_in_flight() -> int:
    """The cells running at once: ITEMEVAL_CELLS_IN_FLIGHT when set (a positive whole
    number), else CELLS_IN_FLIGHT."""
    return _positive_setting("ITEMEVAL_CELLS_IN_FLIGHT", CELLS_IN_FLIGHT)


def logprob_tokens() -> int:
    """How many generated tokens' logprobs to keep: ITEMEVAL_LOGPROB_TOKENS when set,
    else LOGPROB_TOKENS."""
    return _positive_setting("ITEMEVAL_LOGPROB_TOKENS", LOGPROB_TOKENS)


def _positive_setting(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ConfigError(
            f"{name}={value!r} is not a positive whole number; "
            f"unset it for the default ({default}) or give e.g. {default}"
        )
    return number


@dataclass
class Execution:
    """How running the specs went: whether the user interrupted it, and the
    conditions whose task failed."""

    interrupted: bool = False
    failures: dict[str, str] = field(default_factory=dict)
    write_failure: str | None = None
    """The first failed write (journal or store): the run stopped starting calls
    there."""


@dataclass(frozen=True)
class Runner:
    """Where and how one run executes its specs."""

    paths: StudyPaths
    run_id: str
    log_dir: Path
    display: str
    cells_per_eval: int
    cells_in_flight: int
    gate_for: GateFor
    stopped: Callable[[], bool]
    """True once the spend cap has stopped the run: no further task or eval starts."""
    logprob_tokens: int = LOGPROB_TOKENS
    replay: bool = True
    """Bring the journal into the stores after each eval; a shard leaves that to
    `itemeval commit`."""

    def execute(
        self,
        specs: Sequence[TaskSpec],
        sink: RowSink,
        journaled: Journaled = lambda row: None,
    ) -> Execution:
        """Run the specs eval by eval; each eval's rows reach the store as it ends.

        `journaled` sees each row once it is safe in the journal.
        """
        execution = Execution()
        try:
            with signals.interrupts_as_flag():
                self._run_evals(specs, sink, journaled, execution)
        # a second Ctrl-C between two evals or during a replay
        except KeyboardInterrupt:
            execution.interrupted = True
        # finish a replay that a Ctrl-C cut short, so every finished row is in the store
        finally:
            self._replay(execution)
        return execution

    def _run_evals(
        self,
        specs: Sequence[TaskSpec],
        sink: RowSink,
        journaled: Journaled,
        execution: Execution,
    ) -> None:
        windows = eval_windows(specs, self.cells_per_eval, self.cells_in_flight)
        for index, window in enumerate(windows):
            # a Ctrl-C between two evals: no further eval starts
            if signals.stop_requested():
                execution.interrupted = True
                return
            # the first eval loads inspect-ai and the provider's SDK
            start = heap.starting() if index == 0 else contextlib.nullcontext()
            with signals.default_interrupts(), start:
                self._run_eval(window, sink, journaled, execution)
            self._replay(execution)
            _return_free_memory()
            # A signal between evals, or one inspect absorbed while finishing its logs,
            # stops the run here.
            execution.interrupted = execution.interrupted or signals.stop_requested()
            if execution.interrupted or execution.write_failure or self.stopped():
                return

    def _replay(self, execution: Execution) -> None:
        """Bring the journal into the stores; a failed store write stops the run (the
        journal keeps the rows)."""
        if not self.replay:
            return
        try:
            replay_journals(self.paths)
        except OSError as exc:
            execution.write_failure = execution.write_failure or write_failure_message(
                getattr(exc, "filename", None) or self.paths.root, exc
            )

    def _run_eval(
        self,
        window: EvalWindow,
        sink: RowSink,
        journaled: Journaled,
        execution: Execution,
    ) -> None:
        """One inspect eval over a window of tasks, journaling every finished sample
        as a store row."""
        try:
            self._run_journaled(window, sink, journaled, execution)
        except (
            OSError
        ) as exc:  # the journal could not be created or flushed at its close
            execution.write_failure = execution.write_failure or write_failure_message(
                exc.filename or self.paths.journal, exc
            )

    def _run_journaled(
        self,
        window: EvalWindow,
        sink: RowSink,
        journaled: Journaled,
        execution: Execution,
    ) -> None:
        from . import eval as inspect_run

        held = HeldRows()  # rows the journal could not take (a full disk)
        try:
            with JournalWriter(self.paths, self.run_id) as journal:
                failures = self._run_into(
                    window, sink, journaled, execution, journal, held
                )
        finally:
            self._save_held(held, execution)
        if failures is None:
            execution.interrupted = True
            return
        known = {spec.name for spec in window.tasks}
        execution.failures.update(
            (name, message) for name, message in failures.items() if name in known
        )
        for message in failures.values():
            error = inspect_run.write_error(message)
            if error is not None and execution.write_failure is None:
                execution.write_failure = write_failure_message(self.log_dir, error)

    def _run_into(
        self,
        window: EvalWindow,
        sink: RowSink,
        journaled: Journaled,
        execution: Execution,
        journal: JournalWriter,
        held: HeldRows,
    ) -> dict[str, str] | None:
        from . import eval as inspect_run

        def on_sample(result: SampleResult) -> None:
            _journal_sample(result, sink, journaled, execution, journal, held)

        settings = inspect_run.EvalSettings(
            log_dir=self.log_dir,
            log_prefix=self.log_dir.relative_to(self.paths.root),
            display=self.display,
            in_flight=window.in_flight,
            log_buffer=min(inspect_run.LOG_BUFFER, window.window),
            logprob_tokens=self.logprob_tokens,
        )
        return inspect_run.run_tasks(
            self._build(window, execution),
            on_sample,
            settings,
            keep_feeding=lambda: execution.write_failure is None and not self.stopped(),
        )

    def _save_held(self, held: HeldRows, execution: Execution) -> None:
        """Rows the journal could not take, written where they fit; the failure's
        message says where."""
        note = held.save(self.paths, self.run_id)
        if note is not None:
            execution.write_failure = f"{execution.write_failure or ''}; {note}".lstrip(
                "; "
            )

    def _build(self, window: EvalWindow, execution: Execution) -> Iterator[Any]:
        """Each spec's inspect task, built as the eval reaches it; a condition whose
        model cannot be set up (or whose earlier task failed) is skipped."""
        from . import tasks as inspect_tasks

        for spec in window.tasks:
            if spec.name in execution.failures:
                continue
            try:
                yield inspect_tasks.build_task(spec, self.gate_for(spec), window.window)
            except (
                inspect_tasks.TASK_BUILD_ERRORS
            ) as exc:  # one condition's model cannot be set up
                message = plain_text(f"{type(exc).__name__}: {exc}")
                execution.failures[spec.name] = redact(message) or type(exc).__name__


def _journal_sample(
    result: SampleResult,
    sink: RowSink,
    journaled: Journaled,
    execution: Execution,
    journal: JournalWriter,
    held: HeldRows,
) -> None:
    """One finished sample's row into the journal, or held in memory on a full disk.

    inspect swallows a hook's exception, so one here would silently lose a paid row:
    it is recorded as the condition's failure (exit 1) instead.
    """
    store = row = None
    try:
        store, row = sink(result)
        journal.append(store, row)
        journaled(row)
    except OSError as exc:  # a full disk: the row waits in memory
        if row is not None:
            held.hold(store, row)
        if execution.write_failure is None:
            execution.write_failure = write_failure_message(
                getattr(exc, "filename", None) or journal.path, exc
            )
            # No call starts now, the Ctrl-C way; the calls out return into the
            # drain and their paid replies are held too.
            signals.request_stop()
    except Exception as exc:  # noqa: BLE001 - any failure to store a finished sample
        condition = result.metadata.get("grade_condition_id") or result.metadata.get(
            "condition_id"
        )
        execution.failures.setdefault(
            str(condition),
            f"a finished sample could not be stored: {type(exc).__name__}: {exc}",
        )


def plain_text(message: str) -> str:
    """inspect words some errors in rich markup (`[bold]OPENAI_API_KEY[/bold]`): as
    text."""
    from rich.errors import MarkupError
    from rich.text import Text

    try:
        return Text.from_markup(message).plain
    except MarkupError:  # brackets that are not markup: keep the message as it is
        return message


def _return_free_memory() -> None:
    """Hand memory freed by the last eval back to the OS, so a long run's peak does not
    creep up.

    Arrow's allocator and glibc both keep freed blocks for reuse; between evals that
    only fragments the heap. Measured on 24,000 cells: the peak fell from 397 to 387 MB.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    # glibc only; elsewhere nothing to trim
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
