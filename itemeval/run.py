"""One locked run of a stage: recover the journal, pin inputs, gate spend, run inspect, persist, record the manifest."""

from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from . import dataset_locks
from .errors import EXIT_BUDGET, ConfigError, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNTIME, StoreError
from .hashing import canonical_json
from .journal import JournalWriter, replay_journals
from .lock import study_lock
from .manifest import Manifest, close_abandoned, command_line, new_run_id, start_manifest
from .plan import eval_batches
from .pricing import PriceTable, load_prices
from .store import read_store, upsert
from .study import Study


@dataclass(frozen=True)
class StageOptions:
    """The options generate and grade share (SPEC §8)."""

    conditions: tuple[str, ...] = ()
    limit: int | None = None
    force: bool = False
    yes: bool = False
    max_usd: float | None = None
    display: str = "none"
    interactive: bool = False


@dataclass
class ConditionRun:
    """What one condition did in this run."""

    condition_id: str
    slug: str
    planned: int = 0
    rows: int = 0
    errors: int = 0
    cache_hits: int = 0
    usd: float | None = 0.0
    failure: str | None = None
    effective_configs: set[str] = field(default_factory=set)  # distinct configs inspect actually sent

    def add(self, row: dict[str, Any]) -> None:
        self.rows += 1
        if row.get("effective_config"):
            self.effective_configs.add(row["effective_config"])
        self.errors += row.get("error") is not None
        self.cache_hits += bool(row["cache_hit"])
        if row["usd"] is None:
            self.usd = None
        elif self.usd is not None:
            self.usd += row["usd"]


@dataclass
class StageResult:
    """The outcome of a generate or grade run, rendered by the CLI as text or JSON."""

    stage: str
    study: str
    outcome: str = "completed"
    run_id: str | None = None
    recovered: dict[str, int] = field(default_factory=dict)
    conditions: list[ConditionRun] = field(default_factory=list)
    estimate: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    manifest: str | None = None

    @property
    def exit_code(self) -> int:
        if self.outcome == "interrupted":
            return EXIT_INTERRUPTED
        if self.outcome == "budget_stopped":
            return EXIT_BUDGET
        if self.outcome == "failed" or any(c.failure for c in self.conditions):
            return EXIT_RUNTIME
        return EXIT_OK


CELLS_PER_EVAL = 600
"""Cells per inspect eval() call; `ITEMEVAL_CELLS_PER_EVAL` overrides it. inspect keeps a running
eval's finished samples in memory and gets slower per sample as an eval grows, so a big run is cut
into batches. Measured on the offline models (24,000 cells, 8 conditions, whole-process peak):
1,000 cells per eval 400 MB, 800 391 MB, 600 358 MB at 5-10% less throughput than 1,000.
Larger batches waste less time waiting for a batch's slowest call on a slow provider."""


def cells_per_eval() -> int:
    """The batch size: ITEMEVAL_CELLS_PER_EVAL when set (a positive whole number), else CELLS_PER_EVAL."""
    value = os.environ.get("ITEMEVAL_CELLS_PER_EVAL", "")
    if not value:
        return CELLS_PER_EVAL
    try:
        cells = int(value)
    except ValueError:
        cells = 0
    if cells < 1:
        raise ConfigError(f"ITEMEVAL_CELLS_PER_EVAL={value!r} is not a positive whole number; "
                          f"unset it for the default ({CELLS_PER_EVAL}) or give e.g. {CELLS_PER_EVAL}")
    return cells


RowSink = Callable[["RunContext", Any, Any, "str | None"], "tuple[str, dict[str, Any]]"]


class RunContext:
    """The state of one run that the stage's sample sink and the executor share."""

    def __init__(self, study: Study, stage: str, result: Any, options: Any) -> None:
        self.study = study
        self.stage = stage
        self.result = result
        self.options = options
        self.run_id = new_run_id(stage)
        self.manifest: Manifest | None = None
        self.cap: Any = None
        self._prices: PriceTable | None = None
        self.cells_per_eval = cells_per_eval()  # checked before anything is written

    @property
    def prices(self) -> PriceTable:
        if self._prices is None:
            override = self.study.config.budget.pricing_path
            self._prices = load_prices(self.study.loaded.input_path(override) if override else None)
        return self._prices

    def cost(self, model: str, outcome: Any) -> float | None:
        """USD of one finished call: 0 for a local cache hit or an error without usage, None if unpriced."""
        if outcome.cache_hit:
            return 0.0
        price = self.prices.lookup(model)
        if price is None:
            return None
        usage = outcome.usage
        return price.cost(usage["input_tokens"] or 0, usage["output_tokens"] or 0,
                          usage["cache_read_tokens"] or 0, usage["cache_write_tokens"] or 0)

    @property
    def log_dir(self) -> Path:
        paths = self.study.paths
        return paths.logs_generate if self.stage == "generate" else paths.logs_grade

    def begin(self, generate: list[Any], grade: list[Any]) -> None:
        """Pin datasets, store items and write the manifest of a run that is about to spend or write."""
        paths = self.study.paths
        dataset_locks.pin(paths.dataset_locks, dataset_locks.read_locks(paths.dataset_locks),
                          {d.key: (d.adapter, d.revision) for d in self.study.datasets})
        _store_items(self.study)
        self.manifest = start_manifest(
            self.study, stage=self.stage, run_id=self.run_id, options=_jsonable_options(self.options),
            generate=generate, grade=grade, estimate=self.result.estimate,
        )
        self.result.run_id, self.result.manifest = self.run_id, str(self.manifest.path)

    def approve(self, lines: list[Any], ask: Callable[[str], bool] | None,
                tell: Callable[[str], None] | None = None) -> None:
        """Show the estimate of exactly these cells, apply the spend gate, and arm the hard cap."""
        from .budget import SpendCap, check_cap, check_gate
        from .cost import Estimate

        estimate = Estimate(lines=lines)
        self.result.estimate = estimate.as_dict()
        max_usd = self.options.max_usd if self.options.max_usd is not None else self.study.config.budget.max_usd
        if tell is not None:
            tell(estimate.summary())
        notes = check_cap(estimate, max_usd)
        self.result.notes.extend(notes)
        for note in notes if tell is not None else []:
            tell(note)
        check_gate(estimate, confirm_above=self.study.config.budget.confirm_above_usd, yes=self.options.yes, ask=ask)
        self.cap = SpendCap(cap=max_usd) if max_usd is not None else None

    def _gate(self, spec: Any) -> Any:
        if self.cap is None:
            return None
        from .budget import PricedGate
        from .cost import DEFAULT_MAX_TOKENS

        # The cap's worst case assumes a reply of at most max_tokens, so a capped call must send one.
        spec.config.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        return PricedGate(cap=self.cap, price=self.prices.lookup(spec.model), max_tokens=spec.config.get("max_tokens"))

    def execute(self, specs: list[Any], *, sink: RowSink) -> None:
        """Run the task specs in batches of inspect evals; each batch's rows reach the store as it ends."""
        relative_logs = self.log_dir.relative_to(self.study.paths.root)
        try:
            for batch in eval_batches(specs, self.cells_per_eval):
                go_on = self._run_batch(batch, sink, relative_logs)
                replay_journals(self.study.paths)
                _return_free_memory()
                if not go_on:
                    break
        except KeyboardInterrupt:  # between two evals or during a replay (inspect handles it inside an eval)
            self.result.outcome = "interrupted"
        finally:  # finish a replay that a Ctrl-C cut short, so every finished row is in the store
            replay_journals(self.study.paths)
        if self.result.outcome != "interrupted" and self.cap is not None and self.cap.stopped:
            self.result.outcome = "budget_stopped"

    def _run_batch(self, specs: list[Any], sink: RowSink, relative_logs: Path) -> bool:
        """One inspect eval over a batch, journaling every finished sample as a store row.

        Returns False when the run must stop (interrupted or out of budget).
        """
        from . import inspect_tasks

        failed = {s.condition_id for s in self.result.conditions if s.failure}
        tasks = self._build([spec for spec in specs if spec.name not in failed])
        if not tasks:
            return True
        with JournalWriter(self.study.paths, self.run_id) as journal:

            def on_sample(sample: Any, log_name: str | None) -> None:
                outcome = inspect_tasks.read_sample(sample)
                if outcome.skipped:
                    return  # never started: the cap stopped it, so the cell stays missing
                log_file = str(relative_logs / log_name) if log_name else None
                store, row = sink(self, sample, outcome, log_file)
                journal.append(store, row)

            with inspect_tasks.sample_sink(on_sample):
                logs = inspect_tasks.run_tasks(tasks, log_dir=self.log_dir, display=self.options.display,
                                               max_tasks=max(1, min(len(tasks), 32)))
        self._record_failures(logs or [])
        if logs is None:
            self.result.outcome = "interrupted"
            return False
        return not (self.cap is not None and self.cap.stopped)

    def _build(self, specs: list[Any]) -> list[Any]:
        from . import inspect_tasks

        tasks = []
        summaries = {s.condition_id: s for s in self.result.conditions}
        for spec in specs:
            try:
                tasks.append(inspect_tasks.build_task(spec, self._gate(spec)))
            except inspect_tasks.TASK_BUILD_ERRORS as exc:  # one condition's model cannot be set up
                summaries[spec.name].failure = f"{type(exc).__name__}: {exc}"
        return tasks

    def _record_failures(self, logs: list[Any]) -> None:
        summaries = {s.condition_id: s for s in self.result.conditions}
        for log in logs:
            if log.status == "error" and log.eval.task in summaries:
                message = log.error.message if log.error else "the task failed"
                summaries[log.eval.task].failure = message.strip().splitlines()[-1][:500]

    def finish(self) -> None:
        if self.manifest is None:
            return
        counts = {
            s.condition_id: {"planned": s.planned, "rows": s.rows, "errors": s.errors, "cache_hits": s.cache_hits,
                             "usd": s.usd, "failure": s.failure}
            for s in self.result.conditions
        }
        self.manifest.finish(self.result.outcome, per_condition=counts, spend_usd=_total(self.result.conditions),
                             effective_params=self._effective_params())

    def _effective_params(self) -> dict[str, Any]:
        """Per condition, the distinct sampling configs inspect actually sent in this run."""
        return {s.condition_id: sorted(s.effective_configs) for s in self.result.conditions if s.effective_configs}


def _return_free_memory() -> None:
    """Hand memory freed by the last batch back to the OS, so a long run's peak does not creep up.

    Arrow's allocator and glibc both keep freed blocks for reuse; between batches that only
    fragments the heap. Measured on 24,000 cells: the peak fell from 397 to 387 MB.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):  # glibc only; elsewhere nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _total(conditions: list[Any]) -> float | None:
    values = [c.usd for c in conditions]
    return None if any(v is None for v in values) else float(sum(values))


def _jsonable_options(options: Any) -> dict[str, Any]:
    return {key: value for key, value in vars(options).items() if key not in ("interactive",)}


@contextlib.contextmanager
def open_run(study: Study, stage: str, result: Any, options: Any) -> Iterator[RunContext]:
    """Hold the study lock for the whole run and first recover what a killed run left behind."""
    run = RunContext(study, stage, result, options)
    command = " ".join(command_line())
    paths = study.paths
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the study dir {paths.root}: {exc.strerror}; check output_dir") from None
    with study_lock(paths, command):
        result.recovered = {k: v for k, v in replay_journals(paths).items() if v}
        close_abandoned(paths.manifests)
        try:
            yield run
        except KeyboardInterrupt:
            result.outcome = "interrupted"
        finally:
            run.finish()


def item_row(item: Any) -> dict[str, Any]:
    return {"item_id": item.id, "dataset_id": item.dataset_id, "dataset_revision": item.dataset_revision,
            "row_index": item.row, "input": item.input, "target": item.target,
            "grading_scheme": item.grading_scheme, "metadata": canonical_json(item.metadata)}


def _store_items(study: Study) -> None:
    """Upsert the items when any is new or changed, so a re-run of a complete study writes nothing."""
    stored = read_store(study.paths, "items", ["item_id", "dataset_revision", "input", "target"]).to_pandas()
    known = set(zip(stored["item_id"], stored["dataset_revision"], stored["input"], stored["target"]))
    changed = [item_row(i) for i in study.items if (i.id, i.dataset_revision, i.input, i.target) not in known]
    if changed:
        upsert(study.paths, "items", changed)


def recover_if_idle(study: Study) -> tuple[dict[str, int], int]:
    """For read-only commands: replay a dead run's journal when nobody holds the lock.

    Returns (rows recovered per store, rows still pending in a running command's journal).
    """
    from .errors import StudyLocked
    from .journal import pending_journal_rows

    pending = sum(pending_journal_rows(study.paths).values())
    if not pending:
        return {}, 0
    try:
        with study_lock(study.paths, "itemeval (recovering the journal)"):
            return {k: v for k, v in replay_journals(study.paths).items() if v}, 0
    except StudyLocked:
        return {}, pending
