"""One locked run of a stage: recover a dead run's rows, pin inputs, gate spend,
execute, record the manifest."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from . import batch, cache_origins, credentials, dataset_locks, plan
from .budget import PricedGate, SpendCap, check_cap, check_gate, with_reply_ceiling
from .cost import Estimate, EstimateLine
from .errors import ConfigError, StudyLocked, is_write_failure, write_failure_message
from .items_store import store_items
from .manifest import (
    Manifest,
    close_abandoned,
    command_line,
    new_run_id,
    start_manifest,
)
from .outcomes import ConditionRun, StageResult
from .paths import StudyPaths
from .pricing import PriceTable, load_prices, total_usd
from .records import GenerateCondition, GradeCondition, Item, TaskSpec
from .recovery import locked, set_aside_notes
from .runner import RowSink, Runner, cells_in_flight, cells_per_eval, logprob_tokens
from .spend import arm_cap, overrun_note, priced_gate, share_connections
from .store import backend, upsert
from .store.journal import JournalWriter, live_writers
from .store.lock import shard_lock
from .study import Study

if TYPE_CHECKING:
    import pyarrow as pa

    from .progress import RunProgress

Ask = Callable[[str], bool]
Tell = Callable[[str], None]


FINISH_NOTE = "run the same command to finish the {} remaining cells"
"""The note of an interrupted run (a launch keeps its own, not its shards')."""
OWN_DISPLAY = "itemeval"
"""The --display value of itemeval's own whole-run progress (the default on a
terminal); others are inspect's."""


@dataclass(frozen=True)
class StageOptions:
    """The options generate and grade share (README "A short tour")."""

    conditions: tuple[str, ...] = ()
    limit: int | None = None
    ids: tuple[str, ...] = ()
    """Only the items with these ids (`--items`)."""
    sample: int | None = None
    """A reproducible random subset of this many items (`--sample`), drawn with
    `seed`, stratified by `stratify`."""
    seed: int = 0
    stratify: str | None = None
    force: bool = False
    fresh: bool = False
    """Re-run the selected cells with new draws: the response cache is not read (new
    cost)."""
    pilot: int | None = None
    """Run this many random items first; the rest is projected from their replies
    (`--pilot`)."""
    shard: plan.Shard | None = None
    """Only this shard's cells, without the study lock, into journal parts that
    `itemeval commit` merges."""
    yes: bool = False
    max_usd: float | None = None
    """A cap for this run; None keeps the study's `budget.max_usd`."""
    display: str = "none"

    def items(self, study: Study) -> list[Item]:
        return plan.choose_items(
            study.items,
            limit=self.limit,
            sample=self.sample,
            seed=self.seed,
            stratify=self.stratify,
            ids=self.ids,
        )

    def cache_scope(self, condition_id: str, run_id: str) -> str:
        """A fresh run caches under its own scope, so nothing an earlier run cached
        is read back."""
        return f"{condition_id}@fresh-{run_id}" if self.fresh else condition_id


class Run:
    """The state of one run that the stage and its runner share."""

    def __init__(
        self, study: Study, stage: str, result: StageResult, options: StageOptions
    ) -> None:
        self.study = study
        self.stage = stage
        self.result = result
        self.options = options
        self.run_id = (
            new_run_id(stage)
            if options.shard is None
            else f"{options.shard.tag}-{new_run_id(stage)}"
        )
        self.max_usd = (
            options.max_usd
            if options.max_usd is not None
            else study.config.budget.max_usd
        )
        self.prices: PriceTable = load_prices(study.pricing_path)
        self.manifest: Manifest | None = None
        self.cap: SpendCap | None = None
        self.failure_reason: str | None = None
        self.overrun_usd = 0.0
        self.remaining: int | None = None
        """Cells still to run, counted from the stores (a launch, after its commit);
        None: planned less rows written."""
        self.cells_per_eval = (
            cells_per_eval()
        )  # all three checked before anything is written
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
        check_gate(
            estimate,
            confirm_above=self.study.config.budget.confirm_above_usd,
            yes=self.options.yes,
            ask=ask,
            projected=self.options.pilot is not None,
        )
        self.cap = arm_cap(self.max_usd, self.run_id)

    def begin(
        self, generate: list[GenerateCondition], grade: list[GradeCondition]
    ) -> None:
        """Pin datasets, store items and write the manifest of a run that is about to
        spend or write.

        A shard writes none of these (it holds no lock): `itemeval commit` or the
        launcher does.
        """
        paths = self.study.paths
        self.result.run_id = self.run_id
        if self.options.shard is not None:
            return
        dataset_locks.pin(
            paths.dataset_locks,
            dataset_locks.read_locks(paths.dataset_locks),
            {d.key: (d.adapter, d.revision) for d in self.study.datasets},
        )
        store_items(self.study)
        self.manifest = start_manifest(
            self.study,
            stage=self.stage,
            run_id=self.run_id,
            options=asdict(self.options),
            generate=generate,
            grade=grade,
            estimate=self.result.estimate,
        )
        self.result.run_id, self.result.manifest = self.run_id, str(self.manifest.path)
        self.manifest.hold_reserve()

    def execute(self, specs: Sequence[TaskSpec], sink: RowSink) -> None:
        """Run the specs on inspect; a condition whose task fails does not stop the
        others."""
        if self.cap is not None:
            specs = [with_reply_ceiling(spec) for spec in specs]
        if self.options.shard is not None:
            specs = [
                share_connections(spec, self.options.shard.count) for spec in specs
            ]
        # Durable batch mode runs apart from inspect (README "Batch mode").
        batched, specs = batch.split(specs)
        held = batch.hold_open(self)  # earlier runs' open batches: billed all the same
        paths = self.study.paths
        runner = Runner(
            paths=paths,
            run_id=self.run_id,
            replay=self.options.shard is None,
            log_dir=paths.logs_generate
            if self.stage == "generate"
            else paths.logs_grade,
            display="none"
            if self.options.display == OWN_DISPLAY
            else self.options.display,
            cells_per_eval=self.cells_per_eval,
            cells_in_flight=self.cells_in_flight,
            gate_for=self._gate,
            stopped=lambda: self.cap is not None and self.cap.stopped,
            logprob_tokens=self.logprob_tokens,
        )
        summaries = {c.condition_id: c for c in self.result.conditions}
        with self.progress() as progress:

            def journaled(
                row: dict[str, Any],
            ) -> None:  # counted once it is safe, not when it was made
                summaries[row.get("grade_condition_id") or row["condition_id"]].add(row)
                if progress is not None:
                    progress.journaled(row)

            started_ns = time.time_ns()
            try:
                execution = runner.execute(specs, sink, journaled)
            finally:  # the entries its calls left in the shared cache are its own
                origin = cache_origins.where(self.study.config.study, paths)
                cache_origins.record(origin, specs, started_ns)
        if batched or batch.open_submissions(paths, stage=self.stage):
            batch.execute(self, batched, sink, lambda r: _count(summaries, r), held)
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
        if self.cap is not None and self.cap.spent > self.cap.cap:
            self.overrun_usd = self.cap.spent - self.cap.cap
            self.result.notes.append(overrun_note(self.cap))

    @contextlib.contextmanager
    def row_writer(self, store: str) -> Iterator[Callable[[pa.Table], None]]:
        """Where rows made in this process (not by a model call) go: the store, or a
        shard's own journal part, which `itemeval commit` merges (a shard holds no
        lock, so it never writes a store)."""
        if self.options.shard is None:
            yield lambda table: upsert(self.study.paths, store, table)
            return
        with JournalWriter(self.study.paths, self.run_id) as journal:
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
            {c.condition_id: c.planned for c in self.result.conditions},
            {c.condition_id: c.slug for c in self.result.conditions},
            console=stderr,
            expected_usd=expected,
            cap_usd=self.max_usd,
            done={c.condition_id: c.rows for c in self.result.conditions},
        )

    def _gate(self, spec: TaskSpec) -> PricedGate | None:
        return None if self.cap is None else priced_gate(self.cap, self.prices, spec)

    def finish(self) -> None:
        if self.cap is not None and self.cap.lease is not None:
            self.cap.lease.settle(self.cap.spent)
        remaining = self.remaining
        if remaining is None:
            remaining = sum(c.planned for c in self.result.conditions) - sum(
                c.rows for c in self.result.conditions
            )
        if self.result.outcome == "interrupted" and remaining > 0:
            self.result.notes.append(FINISH_NOTE.format(remaining))
        if self.manifest is None:
            return
        conditions = self.result.conditions
        counts = {
            c.condition_id: {
                "planned": c.planned,
                "rows": c.rows,
                "errors": c.errors,
                "cache_hits": c.cache_hits,
                "usd": c.usd,
                "failure": c.failure,
            }
            for c in conditions
        }
        # Per condition, the distinct sampling configs inspect actually sent in this
        # run.
        effective = {
            c.condition_id: sorted(c.effective_configs)
            for c in conditions
            if c.effective_configs
        }
        reason = {"reason": self.failure_reason} if self.failure_reason else {}
        if self.overrun_usd:
            reason["overrun_usd"] = self.overrun_usd
        try:
            self.manifest.finish(
                self.result.outcome,
                per_condition=counts,
                spend_usd=total_usd(c.usd for c in conditions),
                effective_params=effective,
                **reason,
            )
        except OSError as exc:
            if not is_write_failure(exc):
                raise
            self.write_failed(
                exc, self.manifest.path
            )  # it stays `running` on disk; the next command closes it

    def write_failed(self, error: OSError, path: object = None) -> None:
        """A write that failed ends the run as `failed`, with one message naming the
        path and what to do."""
        message = write_failure_message(
            path or error.filename or self.study.paths.root, error
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


def _refuse_a_second_writer(paths: StudyPaths, shard: plan.Shard) -> None:
    """A shard takes no lock, so it checks that the same shard is not running on this
    host already (both would pay for the same cells)."""
    pids = live_writers(paths, f"{shard.tag}-")
    if pids:
        raise StudyLocked(
            f"shard {shard.index}/{shard.count} of {paths.root} is already "
            "running here (pid "
            f"{', '.join(map(str, pids))}); wait for it to end, or stop it, "
            "then run this again"
        )


def check_providers(models: list[str]) -> None:
    """Refuse, before the run writes anything, a model whose provider inspect does
    not know or whose credentials are not set."""
    if models:
        from . import (
            inspect_tasks,  # inspect-ai loads only for commands that will call a model
        )

        inspect_tasks.check_providers(models)
        gaps = credentials.missing(models, os.environ)
        if gaps:
            raise ConfigError(credentials.advice(gaps))


@contextlib.contextmanager
def open_run(
    study: Study, stage: str, result: StageResult, options: StageOptions
) -> Iterator[Run]:
    """Hold the study lock for the whole run and first recover what a killed run left
    behind.

    A shard (`options.shard`) takes no lock and recovers nothing: it only adds its own
    journal parts.
    """
    run = Run(study, stage, result, options)
    uploader = None
    if options.shard is not None:
        _refuse_a_second_writer(study.paths, options.shard)
        uploader = backend.shard_uploader(study.paths, f"{options.shard.tag}-")
    with (
        _as_shard(study.paths)
        if options.shard is not None
        else locked(study.paths, " ".join(command_line())) as recovered
    ):
        result.recovered = recovered
        if options.shard is None:
            close_abandoned(study.paths.manifests)
            result.notes.extend(set_aside_notes(study.paths))
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
            if uploader is not None:
                uploader.close()  # where a committer on any machine finds them


@contextlib.contextmanager
def _as_shard(paths: StudyPaths) -> Iterator[dict[str, int]]:
    """A shard recovers nothing; it runs beside other shards, never another writer."""
    with shard_lock(paths):
        yield {}
