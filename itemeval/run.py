"""One locked run of a stage: recover a dead run's rows, pin inputs, gate spend,
execute, record the manifest."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from . import credentials, dataset_locks, plan
from .budget import (
    DEFAULT_CONNECTIONS,
    Lease,
    PricedGate,
    SpendCap,
    check_cap,
    check_gate,
    with_reply_ceiling,
)
from .cost import Estimate, EstimateLine
from .errors import (
    ConfigError,
    StoreError,
    StudyLocked,
    is_write_failure,
    write_failure_message,
)
from .hashing import canonical_json
from .manifest import (
    Manifest,
    close_abandoned,
    command_line,
    new_run_id,
    start_manifest,
)
from .outcomes import StageResult
from .paths import StudyPaths
from .pricing import Price, PriceTable, format_usd, load_prices, panel_price, total_usd
from .ray_lease import LEASE_ENV
from .records import GenerateCondition, GradeCondition, Item, TaskSpec
from .runner import RowSink, Runner, cells_in_flight, cells_per_eval, logprob_tokens
from .store import read_store, upsert
from .store.journal import (
    SET_ASIDE,
    JournalWriter,
    live_writers,
    pending_journal_rows,
    replay_journals,
    set_aside_lines,
)
from .store.lock import shard_lock, study_lock
from .store.remote import storage_options_for
from .study import Study

if TYPE_CHECKING:
    import pyarrow as pa

    from .progress import RunProgress
    from .store.mirror import PartUploader

Ask = Callable[[str], bool]
Tell = Callable[[str], None]


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
        if self.max_usd is not None:
            lease = shared_lease(self.run_id)
            self.cap = SpendCap(
                cap=0.0 if lease is not None else self.max_usd, lease=lease
            )

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
        with self._progress() as progress:

            def journaled(
                row: dict[str, Any],
            ) -> None:  # counted once it is safe, not when it was made
                summaries[row.get("grade_condition_id") or row["condition_id"]].add(row)
                if progress is not None:
                    progress.journaled(row)

            execution = runner.execute(specs, sink, journaled)
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
            self.result.notes.append(
                f"spend {format_usd(self.cap.spent)} went over max_usd "
                f"{format_usd(self.cap.cap)} by "
                f"{format_usd(self.overrun_usd)}: the provider returned more "
                "tokens than max_tokens allows, so calls "
                "already in flight cost more than their worst case; no call "
                "started once the spend reached the cap"
            )

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

    def _progress(self) -> contextlib.AbstractContextManager[RunProgress | None]:
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
        )

    def _gate(self, spec: TaskSpec) -> PricedGate | None:
        if self.cap is None:
            return None
        return PricedGate(
            cap=self.cap,
            price=self._price(spec),
            max_tokens=spec.config.get("max_tokens"),
            model=spec.model,
            connections=spec.config.get("max_connections") or DEFAULT_CONNECTIONS,
        )

    def _price(self, spec: TaskSpec) -> Price | None:
        """The task's model's price; a model-graded panel's models all grade each
        sample, so their rates add up (a conservative bound that the cap holds to:
        actual usage is priced at the summed rates too)."""
        if spec.scorer is None:
            return self.prices.lookup(spec.model)
        model = spec.scorer["params"]["model"]
        return panel_price(
            [
                self.prices.lookup(m)
                for m in ([model] if isinstance(model, str) else model)
            ]
        )

    def finish(self) -> None:
        if self.cap is not None and self.cap.lease is not None:
            self.cap.lease.settle(self.cap.spent)
        remaining = sum(c.planned for c in self.result.conditions) - sum(
            c.rows for c in self.result.conditions
        )
        if self.result.outcome == "interrupted" and remaining > 0:
            self.result.notes.append(
                f"run the same command to finish the {remaining} remaining cells"
            )
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


def shared_lease(holder: str) -> Lease | None:
    """The budget lease a launcher handed this shard in its environment (`launch
    --engine ray`), if any."""
    if not os.environ.get(LEASE_ENV):
        return None
    from .ray_lease import (
        lease_from_env,  # ray loads only in the shards of a Ray launch
    )

    return lease_from_env(holder)


def share_connections(spec: TaskSpec, shards: int) -> TaskSpec:
    """One of `shards` shards gets its share of the model's connections, so N shards
    do not send N times as many."""
    connections = spec.config.get("max_connections") or DEFAULT_CONNECTIONS
    return replace(
        spec,
        config={**spec.config, "max_connections": max(1, -(-connections // shards))},
    )


@contextlib.contextmanager
def locked(study: Study, command: str) -> Iterator[dict[str, int]]:
    """Hold the study lock, first bringing a dead run's journal into the stores;
    yields rows recovered per store."""
    paths = study.paths
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the study dir {paths.root}: {exc.strerror}; check "
            "output_dir"
        ) from None
    with study_lock(paths, command):
        started = time.time()
        if paths.remote is not None:
            from .store import mirror

            mirror.fetch_file(paths, paths.dataset_locks)
        try:
            recovered = commit_parts(paths)
        except OSError as exc:
            if not is_write_failure(exc):
                raise
            raise StoreError(
                write_failure_message(exc.filename or paths.root, exc)
            ) from None
        yield recovered
        if paths.remote is not None:
            _publish_remote(paths, since=started)


def commit_parts(
    paths: StudyPaths, seen: Callable[[str, dict[str, Any]], None] | None = None
) -> dict[str, int]:
    """Merge every finished journal part into the stores (the caller holds the lock);
    rows merged per store.

    For a study on object storage, the parts shards uploaded are fetched first and
    deleted once merged. `seen` is shown each record before it is merged (a launcher
    counts its shards' rows with it).
    """
    uploaded: list[str] = []
    if paths.remote is not None:
        from .store import mirror

        uploaded = mirror.remote_parts(paths)
        mirror.fetch_parts(paths, uploaded)
    recovered = {
        store: rows for store, rows in replay_journals(paths, seen=seen).items() if rows
    }
    if uploaded:
        mirror.drop_parts(
            paths, [name for name in uploaded if not (paths.journal / name).exists()]
        )
    return recovered


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


def _shard_on_remote(paths: StudyPaths, shard: plan.Shard) -> PartUploader | None:
    """A shard of a study on object storage: fetch the dataset locks and whatever an
    earlier attempt of this shard uploaded (it resumes from there, on any node), then
    keep uploading its parts while it runs."""
    if paths.remote is None:
        return None
    from .store import mirror

    mirror.fetch_file(paths, paths.dataset_locks)
    mirror.fetch_own_parts(paths, f"{shard.tag}-")
    return mirror.PartUploader(paths, f"{shard.tag}-")


def _publish_remote(paths: StudyPaths, *, since: float) -> None:
    """After a write: publish the stores' snapshot, and upload the dataset locks and
    this run's manifests."""
    from .store import mirror
    from .store.snapshot import publish_snapshot

    publish_snapshot(paths.remote, storage_options=storage_options_for(paths.remote))
    manifests = (
        [p for p in paths.manifests.glob("*.json") if p.stat().st_mtime >= since]
        if paths.manifests.is_dir()
        else []
    )
    mirror.upload(paths, [paths.dataset_locks, *manifests])


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
        uploader = _shard_on_remote(study.paths, options.shard)
    with (
        _as_shard(study.paths)
        if options.shard is not None
        else locked(study, " ".join(command_line())) as recovered
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


def set_aside_notes(paths: StudyPaths) -> list[str]:
    """What replay could not read, kept under journal/set-aside/ for a person to look
    at."""
    lines = set_aside_lines(paths)
    if not lines:
        return []
    shown = "; ".join(lines[:5]) + (
        f"; … {len(lines) - 5} more" if len(lines) > 5 else ""
    )
    return [
        f"{len(lines)} journal line(s) could not be read and were set aside in "
        f"{paths.journal / SET_ASIDE} (every other row was kept): {shown}"
    ]


def commit(study: Study) -> dict[str, int]:
    """Merge every finished shard's journal parts into the stores (idempotent), and
    pin and store the items."""
    paths = study.paths
    with locked(study, " ".join(command_line())) as recovered:
        dataset_locks.pin(
            paths.dataset_locks,
            dataset_locks.read_locks(paths.dataset_locks),
            {d.key: (d.adapter, d.revision) for d in study.datasets},
        )
        store_items(study)
    return recovered


def recover_if_idle(study: Study) -> tuple[dict[str, int], int]:
    """For read-only commands: replay a dead run's journal when nobody holds the lock.

    Returns (rows recovered per store, rows still pending in a running command's
    journal).
    """
    pending = sum(pending_journal_rows(study.paths).values())
    if not pending:
        return {}, 0
    try:
        with locked(study, "itemeval (recovering the journal)") as recovered:
            return recovered, 0
    except StudyLocked:
        return {}, pending


def item_row(item: Item) -> dict[str, Any]:
    """One items.parquet row."""
    return {
        "item_id": item.id,
        "dataset_id": item.dataset_id,
        "dataset_revision": item.dataset_revision,
        "row_index": item.row,
        "input": item.input,
        "target": item.target,
        "targets": list(item.targets),
        "choices": list(item.choices) or None,
        "grading_scheme": item.grading_scheme,
        "metadata": canonical_json(item.metadata),
    }


def store_items(study: Study) -> None:
    """Upsert the items when any is new or changed, so a re-run of a complete study
    writes nothing."""
    columns = ["item_id", "dataset_revision", "input", "target", "targets", "choices"]
    stored = read_store(study.paths, "items", columns).to_pylist()
    known = {
        _item_key(
            row["item_id"],
            row["dataset_revision"],
            row["input"],
            row["target"],
            row["targets"],
            row["choices"],
        )
        for row in stored
    }
    changed = [
        item_row(i)
        for i in study.items
        if _item_key(
            i.id, i.dataset_revision, i.input, i.target, i.targets, i.choices or None
        )
        not in known
    ]
    if changed:
        upsert(study.paths, "items", changed)


def _item_key(*values: Any) -> tuple[Any, ...]:
    # Rows stored before targets and choices were columns read them as null, so they are
    # rewritten once.
    return tuple(tuple(v) if isinstance(v, list | tuple) else v for v in values)
