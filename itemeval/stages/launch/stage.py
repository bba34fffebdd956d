"""`itemeval launch generate|grade`: one estimate, one spend gate and one lock for N
shard processes, then one commit.

The shards are `itemeval generate|grade --shard K/N` processes, on a local process pool
(`--engine local`) or as Ray tasks (`--engine ray`, stages/launch/ray.py). Locally
each gets its share of `max_usd` (by its share of the estimate's ceiling, so the shares
add up to the cap); on Ray they lease the cap from one budget actor in chunks. Every
shard gets its share of each model's connections. The launcher holds the study lock for
the whole run, which makes it the run's lease: a second launcher (or any writing
command) exits 5 naming it; on S3 the lock comes with the store's lease
(store/lease.py), which other machines see too. Shards need no lock; they run under
the launch's lease by its id.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ...engine.providers import check_providers
from ...errors import EXIT_BUDGET, ConfigError, StudyLocked
from ...outcomes import StageResult
from ...paths import StudyPaths
from ...plan.options import Ask, GenerateOptions, GradeOptions, StageOptions, Tell
from ...plan.pricing import PriceTable
from ...plan.stage_plan import StagePlan
from ...records import Shard
from ...signals import drain_seconds
from ...store.journal import live_writers
from ...store.recovery import commit_parts
from ...study.load import Study
from .. import generate
from ..grade import stage as grade
from ..run import FINISH_NOTE, Run, open_run
from ..run_setting import run_setting
from .pool import run_pool
from .progress import ShardWatch
from .shards import (
    SIGNALLED,
)

if TYPE_CHECKING:
    from ..progress import RunProgress

StageInputs = generate.GenerateInputs | grade.GradeInputs
"""What the launched stage reads of its study."""
ENGINES = ("local", "ray")
STAGES = ("generate", "grade")
ORPHAN_GRACE_S = 30.0
"""Beyond the drain, how long a launcher waits for an earlier launch's shards to stop
before it refuses (they exit at most signals.HARD_STOP_S after their eval is
cancelled)."""


@dataclass(frozen=True)
class LaunchOptions:
    shards: int
    config: Path
    base_dir: Path | None = None
    stage: str = "generate"
    engine: str = "local"
    address: str | None = None
    """`--engine ray`: the cluster to join (`auto`, `ray://host:port`); None starts
    Ray on this machine."""
    gpus_per_shard: float = 0.0
    shard_by: str = "cell"
    generate: GenerateOptions = GenerateOptions()
    grade: GradeOptions = GradeOptions()

    @property
    def stage_options(self) -> StageOptions:
        return self.generate if self.stage == "generate" else self.grade


def run_launch(
    study: Study,
    options: LaunchOptions,
    *,
    ask: Ask | None = None,
    tell: Tell | None = None,
) -> StageResult:
    """Estimate and gate the whole plan once, run the shards, merge their journal
    parts, write one manifest."""
    _check(options)
    result = StageResult(stage=options.stage, study=study.config.study)
    setting = run_setting(study)
    with open_run(setting, options.stage, result, options.stage_options) as run:
        given = _inputs(study, options)  # in the lock, like a stage's own plan
        work = _plan(given, options, run.prices)
        result.conditions = work.condition_runs()
        result.notes.extend(work.notes)
        if work.empty:
            return result
        shard_of = {
            k: Shard(k, options.shards, options.shard_by) for k in range(options.shards)
        }
        _check_batches(setting.paths, options, list(shard_of.values()))
        run.approve(list(work.lines), ask, tell)
        run.begin(list(work.generate), list(work.grade))
        _wait_for_orphans(setting.paths, tell)
        caps = _caps(run.max_usd, work, shard_of)
        outcomes, interrupted = _run_all(run, options, caps, tell)
        commit_parts(setting.paths, _counter(result, options.stage))  # holds the lock
        _combine(result, outcomes)
        if interrupted and result.outcome == "completed":
            result.outcome = "interrupted"
        if result.outcome == "interrupted":
            # each shard counted only its own share; the stores hold the whole truth
            run.remaining = len(_stage_plan(given, options, run.prices).keys)
    return result


def _run_all(
    run: Run,
    options: LaunchOptions,
    caps: dict[int, float | None],
    tell: Tell | None,
) -> tuple[dict[int, dict[str, Any]], bool]:
    """Every shard run on the engine, the launcher's display fed their rows;
    (outcomes, whether the launcher was interrupted)."""
    paths = run.setting.paths
    with run.progress() as progress, _watch(paths, options, progress):
        if options.engine == "ray":
            from .ray import run_shards

            return run_shards(
                options.shards,
                shard_args(options),
                run.max_usd,
                address=options.address,
                gpus_per_shard=options.gpus_per_shard,
            )
        logs = paths.root / "logs" / "launch" / run.run_id
        return run_pool(shard_args(options), options.shards, caps, logs, tell)


def _counter(result: StageResult, stage: str) -> Callable[[str, dict[str, Any]], None]:
    """What counts every row the shards journaled (retries included) in its
    condition's summary."""
    summaries = {c.condition_id: c for c in result.conditions}

    def count(store: str, row: dict[str, Any]) -> None:
        summary = summaries.get(
            row.get("grade_condition_id") or row.get("condition_id")
        )
        if summary is not None and store in _stores(stage):
            summary.add(row)

    return count


def _stores(stage: str) -> tuple[str, ...]:
    """The stores whose rows are a stage's cells."""
    return ("grades", "pairwise") if stage == "grade" else ("solutions",)


def _watch(
    paths: StudyPaths, options: LaunchOptions, progress: RunProgress | None
) -> contextlib.AbstractContextManager[Any]:
    """The shards' rows fed to the launcher's display, when it draws one."""
    if progress is None:
        return contextlib.nullcontext()
    return ShardWatch(paths.journal, _stores(options.stage), progress.journaled)


def _wait_for_orphans(paths: StudyPaths, tell: Tell | None) -> None:
    """Wait for the shards of a launcher that died to stop (they get SIGTERM with it
    and drain), so no cell is run by two shards at once and their rows are in this
    launch's commit; refuse if they do not stop."""
    deadline = time.monotonic() + drain_seconds() + ORPHAN_GRACE_S
    pids = live_writers(paths, "shard-")
    if pids and tell is not None:
        tell(
            "waiting for the shards of an earlier launch to stop (pid "
            f"{', '.join(map(str, pids))})"
        )
    while pids and time.monotonic() < deadline:
        time.sleep(0.2)
        pids = live_writers(paths, "shard-")
    if pids:
        raise StudyLocked(
            "shards of an earlier launch are still running here (pid "
            f"{', '.join(map(str, pids))}); "
            "stop them (kill -TERM), then launch again"
        )


def _check_batches(
    paths: StudyPaths, options: LaunchOptions, shards: list[Shard]
) -> None:
    """Each shard collects only the batches it made (README "Batch mode"): open
    batches of another run would wait for no one, so they are collected first."""
    from ...engine.batch.listing import not_of

    others = not_of(paths, options.stage, shards)
    if others:
        raise ConfigError(
            f"{len(others)} batch(es) that an earlier {options.stage} submitted "
            f"(not a launch of {options.shards} shards by {options.shard_by}) are "
            f"still open: collect them first with `itemeval {options.stage} CONFIG` "
            "(it waits for them), or launch the same shards again (nothing was run)"
        )


def _check(options: LaunchOptions) -> None:
    if options.stage not in STAGES:
        raise ConfigError(f"launch {options.stage}: the stage is generate or grade")
    if options.engine not in ENGINES:
        raise ConfigError(
            f"--engine {options.engine!r}: use local (a process pool on this "
            "machine) or ray "
            "(install itemeval[ray]); for SLURM or Kubernetes, run `--shard "
            "K/N` as an array and then "
            "`itemeval commit`"
        )
    if options.shards < 1:
        raise ConfigError(f"--shards {options.shards}: give at least 1")
    if options.engine == "local" and (
        options.address is not None or options.gpus_per_shard
    ):
        raise ConfigError("--address and --gpus-per-shard need --engine ray")
    if options.engine == "ray":
        from ...plan.lease import require_ray

        require_ray()  # before the lock, the gate or any manifest


def _inputs(study: Study, options: LaunchOptions) -> StageInputs:
    """The study as the launched stage reads it."""
    if options.stage == "generate":
        return generate.inputs(study)
    return grade.inputs(study, options.grade)


def _plan(given: StageInputs, options: LaunchOptions, prices: PriceTable) -> StagePlan:
    """The whole run's plan (the shards run their parts of it): every selected cell
    not stored yet, whatever `--force` or `--fresh` say."""
    work = _stage_plan(given, options, prices)
    check_providers(list(work.providers))
    return work


def _stage_plan(
    given: StageInputs, options: LaunchOptions, prices: PriceTable
) -> StagePlan:
    opts = replace(options.stage_options, force=False, fresh=False)
    items = opts.chosen(given.setting.items)
    if isinstance(given, generate.GenerateInputs):
        return generate.plan(given, opts, prices=prices, items=items)
    return grade.plan(given, opts, prices=prices, items=items)


def _caps(
    max_usd: float | None, work: StagePlan, shards: dict[int, Shard]
) -> dict[int, float | None]:
    """Each shard's part of the cap, in proportion to its cells' ceiling: the parts
    add up to max_usd."""
    if max_usd is None:
        return dict.fromkeys(shards)
    ceiling: dict[str, float] = {}
    for line in work.lines:  # a model-graded panel has a line per model
        ceiling[line.condition_id] = ceiling.get(line.condition_id, 0.0) + (
            line.usd_ceiling or 0.0
        )
    keys = work.keys
    counts = keys[work.column].value_counts().to_dict()
    per_cell = {
        cid: usd / counts[cid] for cid, usd in ceiling.items() if counts.get(cid)
    }
    weight = keys[work.column].map(per_cell).fillna(0.0)
    shares = {
        k: float(weight[work.in_shard(shard)].sum()) for k, shard in shards.items()
    }
    total = sum(shares.values()) or 1.0
    return {k: max_usd * share / total for k, share in shares.items()}


def shard_args(options: LaunchOptions) -> list[str]:
    """The arguments every shard shares, after `itemeval`; each adds `--shard K/N`
    and its cap."""
    opts = options.stage_options
    args = [
        options.stage,
        str(Path(options.config).resolve()),
        "--shard-by",
        options.shard_by,
        "--yes",
        "--json",
        "--display",
        "none",
    ]
    args += (
        ["-C", str(Path(options.base_dir).resolve())]
        if options.base_dir is not None
        else []
    )
    for condition in opts.conditions:
        args += ["--condition", condition]
    args += ["--limit", str(opts.limit)] if opts.limit is not None else []
    args += [arg for item_id in opts.ids for arg in ("--items", item_id)]
    if opts.sample is not None:
        args += ["--sample", str(opts.sample), "--seed", str(opts.seed)]
        args += ["--stratify", opts.stratify] if opts.stratify else []
    if options.stage == "grade":
        for flag, values in (
            ("--grader", options.grade.graders),
            ("--rubric", options.grade.rubrics),
            ("--only", options.grade.only),
        ):
            for value in values:
                args += [flag, value]
    return args


def _combine(result: StageResult, outcomes: dict[int, dict[str, Any]]) -> None:
    """The shards' notes, and the run's outcome: failed, interrupted or stopped by
    the cap (the counts come from the rows committed, which include a retried shard's
    first attempt)."""
    finish = FINISH_NOTE.split("{}")[0]
    for outcome in outcomes.values():
        # a shard's "run the same command" counts its share only: the launch says
        # its own, for the whole plan
        notes = outcome["data"].get("notes", [])
        result.notes.extend(note for note in notes if not note.startswith(finish))
    result.notes.extend(
        f"shard {k}'s attempt {n} ended ({reason}); it was run again from its journal"
        for k in sorted(outcomes)
        for n, reason in enumerate(outcomes[k].get("earlier", []), start=1)
    )
    codes = {k: o["code"] for k, o in outcomes.items()}
    if any(o["retry"] for o in outcomes.values()):
        result.outcome = "failed"
        result.notes.extend(
            f"shard {k} failed: {outcomes[k]['message']}"
            for k in sorted(outcomes)
            if outcomes[k]["retry"]
        )
    elif any(code in SIGNALLED for code in codes.values()):
        result.outcome = "interrupted"
    elif any(code == EXIT_BUDGET for code in codes.values()):
        result.outcome = "budget_stopped"
