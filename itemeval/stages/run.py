"""One locked run of a stage: recover a dead run's rows, pin inputs, gate spend,
execute, record the manifest."""

from __future__ import annotations

import contextlib
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ..engine import batch, cache_origins
from ..engine.batch import BatchContext, BatchOutcome
from ..engine.runner import (
    Execution,
    RowSink,
    Runner,
    cells_in_flight,
    cells_per_eval,
    logprob_tokens,
)
from ..errors import is_write_failure, write_failure_message
from ..outcomes import ConditionRun, StageResult, doubted_usage_note
from ..plan.budget import (
    PricedGate,
    SpendCap,
    approved_ceiling,
    check_cap,
    check_gate,
    with_reply_ceiling,
)
from ..plan.estimates import Estimate, EstimateLine
from ..plan.options import Ask, StageOptions, Tell
from ..plan.pricing import PriceTable, load_prices
from ..plan.spend import arm_cap, overrun_note, priced_gate, share_connections
from ..records import GenerateCondition, GradeCondition, TaskSpec
from ..store import dataset_locks, upsert
from ..store.items import write_items
from ..store.journal import JournalWriter
from ..store.recovery import as_shard, locked, set_aside_notes
from .manifest import (
    Manifest,
    Started,
    begin_manifest,
    close_abandoned,
    command_line,
    ended_record,
    new_run_id,
)
from .run_setting import RunSetting

if TYPE_CHECKING:
    import pyarrow as pa

    from .progress import RunProgress

FINISH_NOTE = "run the same command to finish the {} remaining cells"
"""The note of an interrupted run (a launch keeps its own, not its shards')."""
OWN_DISPLAY = "itemeval"
"""The --display value of itemeval's own whole-run progress (the default on a
terminal); others are inspect's."""


class Run:
    """The state of one run that the stage and its runner share."""

    def __init__(
        self,
        setting: RunSetting,
        stage: str,
        result: StageResult,
        options: StageOptions,
    ) -> None:
        self.setting = setting
        self.stage = stage
        self.result = result
        self.options = options
        self.run_id = (
            new_run_id(stage)
            if options.shard is None
            else f"{options.shard.tag}-{new_run_id(stage)}"
        )
        self.max_usd = (
            options.max_usd if options.max_usd is not None else setting.max_usd
        )
        self.prices: PriceTable = load_prices(setting.pricing_path)
        self.manifest: Manifest | None = None
        self.cap: SpendCap | None = None
        self.approved_usd = 0.0
        """The ceiling of the estimate the run was approved on (budget.check_gate)."""
        self.failure_reason: str | None = None
        self.overrun_usd = 0.0
        self.remaining: int | None = None
        """Cells still to run, counted from the stores (a launch, after its commit);
        None: planned less rows written."""
        # all three checked before anything is written
        self.cells_per_eval = cells_per_eval()
        self.cells_in_flight = cells_in_flight()
        self.logprob_tokens = logprob_tokens()

    def approve(
        self, lines: list[EstimateLine], ask: Ask | None, tell: Tell | None = None
    ) -> None:
        """Show the estimate of exactly these cells, apply the spend gate, and arm
        the hard cap."""
        estimate = Estimate(lines=lines)
        self.result.estimate = estimate.as_dict()
        if tell is not None:
            tell(estimate.summary())
        notes = check_cap(estimate, self.max_usd)
        self.result.notes.extend(notes)
        for note in notes if tell is not None else []:
            tell(note)
            self.result.told.add(note)
        check_gate(
            estimate,
            confirm_above=self.setting.confirm_above_usd,
            yes=self.options.yes,
            ask=ask,
            projected=self.options.pilot is not None,
        )
        self.approved_usd = approved_ceiling(estimate)
        self.cap = arm_cap(self.max_usd, self.run_id)

    def begin(
        self, generate: list[GenerateCondition], grade: list[GradeCondition]
    ) -> None:
        """Pin datasets, store items and write the manifest of a run that is about to
        spend or write.

        A shard writes none of these (it holds no lock): `itemeval commit` or the
        launcher does.
        """
        setting, paths = self.setting, self.setting.paths
        self.result.run_id = self.run_id
        if self.options.shard is not None:
            return
        locks = dataset_locks.read_locks(paths.dataset_locks)
        dataset_locks.pin(paths.dataset_locks, locks, setting.pins)
        write_items(paths, setting.items)
        self.manifest = begin_manifest(
            setting.record,
            paths.manifests,
            Started(
                stage=self.stage,
                run_id=self.run_id,
                generate=generate,
                grade=grade,
                options=asdict(self.options),
                estimate=self.result.estimate,
            ),
        )
        self.result.run_id, self.result.manifest = self.run_id, str(self.manifest.path)
        self.manifest.hold_reserve()

    def execute(self, specs: Sequence[TaskSpec], sink: RowSink) -> None:
        """Run the specs on inspect; a condition whose task fails does not stop the
        others."""
        if self.cap is not None:
            specs = [with_reply_ceiling(spec) for spec in specs]
        if self.options.shard is not None and self.options.shard.by == "cell":
            # every shard calls every model: each gets its share of the connections
            # (by model, a model's cells are all on one shard, which keeps them all)
            count = self.options.shard.count
            specs = [share_connections(spec, count) for spec in specs]
        # Durable batch mode runs apart from inspect (README "Batch mode").
        batched, specs = batch.split(specs)
        context = self.batch_context()
        # earlier runs' open batches: billed all the same
        held, notes = batch.hold_open(context)
        self.result.notes.extend(notes)
        summaries = {c.condition_id: c for c in self.result.conditions}
        execution = self._on_inspect(specs, sink, summaries)
        if batched or batch.open_submissions(self.setting.paths, stage=self.stage):
            started_ns = time.time_ns()
            try:
                outcome = batch.execute(
                    context, batched, sink, lambda r: _count(summaries, r), held
                )
            finally:  # the replies it cached are this study's, as live ones are
                if batched:
                    origin = cache_origins.where(self.setting.name, self.setting.paths)
                    cache_origins.record(origin, batched, started_ns)
            self._took(outcome)
        self._settle(execution)

    def batch_context(self) -> BatchContext:
        """The run as its provider batches see it."""
        return BatchContext(
            paths=self.setting.paths,
            study=self.setting.name,
            stage=self.stage,
            run_id=self.run_id,
            shard=self.options.shard,
            display=self.options.display,
            prices=self.prices,
            cap=self.cap,
            approved_usd=self.approved_usd,
            confirm_above_usd=self.setting.confirm_above_usd,
            yes=self.options.yes,
            size=BatchContext.batch_size(self.setting.batch),
            logprob_tokens=self.logprob_tokens,
        )

    def _took(self, outcome: BatchOutcome) -> None:
        """What the run's batches did: their notes, failed conditions, cells still
        open at the provider, and the manifest's record of them."""
        result = self.result
        result.notes.extend(outcome.notes)
        for condition in result.conditions:
            reason = outcome.failures.get(condition.condition_id)
            if reason is not None and condition.failure is None:
                condition.failure = reason
        result.held_open = outcome.held_open
        if outcome.failure_reason is not None:
            result.outcome = "failed"
            self.failure_reason = self.failure_reason or outcome.failure_reason
        if outcome.interrupted and result.outcome == "completed":
            result.outcome = "interrupted"
        if self.manifest is not None and outcome.record is not None:
            self.manifest.data["batch"] = outcome.record

    def _on_inspect(
        self,
        specs: Sequence[TaskSpec],
        sink: RowSink,
        summaries: dict[str, ConditionRun],
    ) -> Execution:
        """The specs run by the runner, each stored row counted in its condition's
        summary (and the display) once it is safe, not when it was made."""
        runner = self._runner()
        with self.progress() as progress:

            def journaled(row: dict[str, Any]) -> None:
                summaries[row.get("grade_condition_id") or row["condition_id"]].add(row)
                if progress is not None:
                    progress.journaled(row)

            started_ns = time.time_ns()
            try:
                return runner.execute(specs, sink, journaled)
            finally:  # the entries its calls left in the shared cache are its own
                origin = cache_origins.where(self.setting.name, self.setting.paths)
                cache_origins.record(origin, specs, started_ns)

    def _runner(self) -> Runner:
        paths, display = self.setting.paths, self.options.display
        return Runner(
            paths=paths,
            run_id=self.run_id,
            replay=self.options.shard is None,
            log_dir=paths.logs_generate
            if self.stage == "generate"
            else paths.logs_grade,
            display="none" if display == OWN_DISPLAY else display,
            cells_per_eval=self.cells_per_eval,
            cells_in_flight=self.cells_in_flight,
            gate_for=self._gate,
            stopped=lambda: self.cap is not None and self.cap.stopped,
            logprob_tokens=self.logprob_tokens,
        )

    def _settle(self, execution: Execution) -> None:
        """The conditions' failures and the run's outcome from how running went."""
        for condition in self.result.conditions:
            condition.failure = execution.failures.get(
                condition.condition_id, condition.failure
            )
        if execution.write_failure:
            self.result.outcome = "failed"
            self.result.notes.append(execution.write_failure)
            self.failure_reason = execution.write_failure
        elif execution.interrupted:
            self.result.outcome = "interrupted"
        elif self.cap is not None and self.cap.stopped:
            self.result.outcome = "budget_stopped"
        elif any(c.failure for c in self.result.conditions):
            # a condition whose whole task failed makes the run exit 1: its outcome
            # (the summary, --json, the manifest) says so
            self.result.outcome = "failed"
        self.result.notes.extend(doubted_usage_note(self.result.conditions))
        if self.cap is not None and self.cap.spent > self.cap.cap:
            self.overrun_usd = self.cap.spent - self.cap.cap
            self.result.notes.append(overrun_note(self.cap))

    @contextlib.contextmanager
    def row_writer(self, store: str) -> Iterator[Callable[[pa.Table], None]]:
        """Where rows made in this process (not by a model call) go: the store, or a
        shard's own journal part, which `itemeval commit` merges (a shard holds no
        lock, so it never writes a store)."""
        if self.options.shard is None:
            yield lambda table: upsert(self.setting.paths, store, table)
            return
        with JournalWriter(self.setting.paths, self.run_id) as journal:
            yield lambda table: [
                journal.append(store, row) for row in table.to_pylist()
            ]

    def progress(self) -> contextlib.AbstractContextManager[RunProgress | None]:
        """itemeval's own display of the whole run, on a terminal when no inspect
        display was asked for."""
        from .progress import RunProgress, terminal_stderr

        stderr = terminal_stderr()
        if self.options.display != OWN_DISPLAY or stderr is None:
            return contextlib.nullcontext()
        expected = (self.result.estimate or {}).get("total", {}).get("usd_expected")
        return RunProgress(
            self.stage,
            self.result.conditions,
            console=stderr,
            expected_usd=expected,
            cap_usd=self.max_usd,
        )

    def _gate(self, spec: TaskSpec) -> PricedGate | None:
        return None if self.cap is None else priced_gate(self.cap, self.prices, spec)

    def finish(self) -> None:
        """Settle the lease, say what an interrupted run left, close the manifest."""
        if self.cap is not None and self.cap.lease is not None:
            self.cap.lease.settle(self.cap.spent)
        conditions = self.result.conditions
        remaining = self.remaining
        if remaining is None:
            remaining = sum(c.planned for c in conditions) - sum(
                c.rows for c in conditions
            )
        if self.result.outcome == "interrupted" and remaining > 0:
            self.result.notes.append(FINISH_NOTE.format(remaining))
        if self.manifest is None:
            return
        reason = {"reason": self.failure_reason} if self.failure_reason else {}
        if self.overrun_usd:
            reason["overrun_usd"] = self.overrun_usd
        try:
            self.manifest.finish(
                self.result.outcome, **ended_record(conditions), **reason
            )
        except OSError as exc:
            if not is_write_failure(exc):
                raise
            # it stays `running` on disk; the next command closes it
            self.write_failed(exc, self.manifest.path)

    def write_failed(self, error: OSError, path: object = None) -> None:
        """A write that failed ends the run as `failed`, with one message naming the
        path and what to do."""
        message = write_failure_message(
            path or error.filename or self.setting.paths.root, error
        )
        self.result.outcome = "failed"
        self.failure_reason = self.failure_reason or message
        if message not in self.result.notes:
            self.result.notes.append(message)


def _count(summaries: dict[str, ConditionRun], row: dict[str, Any]) -> None:
    """A stored row in its condition's summary (a batch of an earlier run may hold
    a condition this run did not select)."""
    summary = summaries.get(row.get("grade_condition_id") or row["condition_id"])
    if summary is not None:
        summary.add(row)


@contextlib.contextmanager
def open_run(
    setting: RunSetting, stage: str, result: StageResult, options: StageOptions
) -> Iterator[Run]:
    """Hold the study lock for the whole run and first recover what a killed run left
    behind.

    A shard (`options.shard`) takes no lock and recovers nothing: it only adds its own
    journal parts.
    """
    run = Run(setting, stage, result, options)
    paths = setting.paths
    with (
        as_shard(paths, options.shard)
        if options.shard is not None
        else locked(paths, " ".join(command_line()), run.run_id) as recovered
    ):
        result.recovered = recovered
        if options.shard is None:
            close_abandoned(paths.manifests)
            result.notes.extend(set_aside_notes(paths))
        try:
            yield run
        except KeyboardInterrupt:
            result.outcome = "interrupted"
        # a write outside the runner (items, manifest, verifiable grades) failed
        except OSError as exc:
            if not is_write_failure(exc):
                raise
            run.write_failed(exc)
        finally:
            run.finish()
