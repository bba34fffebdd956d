"""`itemeval launch generate`: one estimate, one spend gate and one lock for N shard processes, then one commit.

The shards are `itemeval generate --shard K/N` processes (SPEC §19) on a local process pool; each gets
its share of `max_usd` (by its share of the estimate's ceiling, so the shares add up to the cap) and of
every model's connections. The launcher holds the study lock for the whole run, which makes it the
run's lease: a second launcher (or any writing command) exits 5 naming it. Shards need no lock.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import plan
from .cost import EstimateLine, lines_for_specs
from .errors import EXIT_BUDGET, ConfigError
from .generate import GenerateOptions, condition_runs, plan_cells, task_specs
from .grid import select
from .outcomes import StageResult
from .run import Ask, Tell, check_providers, open_run
from .state import observed_lengths, superseded_notes
from .store.journal import replay_journals
from .study import Study

ENGINES = ("local",)
_SIGNALLED = {128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP}
"""Exit codes of a shard stopped by a signal: it is not retried."""
RETRIES = 1
"""A shard that fails (not stopped by the cap or a signal) runs once more; it resumes from its journal parts."""


@dataclass(frozen=True)
class LaunchOptions:
    shards: int
    config: Path
    base_dir: Path | None = None
    engine: str = "local"
    shard_by: str = "cell"
    generate: GenerateOptions = GenerateOptions()


def run_launch(study: Study, options: LaunchOptions, *, ask: Ask | None = None, tell: Tell | None = None) -> StageResult:
    """Estimate and gate the whole plan once, run the shards, merge their journal parts, write one manifest."""
    if options.engine not in ENGINES:
        raise ConfigError(f"--engine {options.engine!r}: this build runs shards on the local process pool only "
                          "(`--engine local`); for a cluster, run `generate --shard K/N` as a SLURM array or an "
                          "Indexed Job and then `itemeval commit`")
    if options.shards < 1:
        raise ConfigError(f"--shards {options.shards}: give at least 1")
    gen = options.generate
    conditions = select(study.generate, list(gen.conditions))
    result = StageResult(stage="generate", study=study.config.study)
    check_providers([c.model for c in conditions])
    with open_run(study, "generate", result, gen) as run:
        cells = plan_cells(study, conditions, gen.items(study), force=False)
        result.conditions = condition_runs(conditions, cells)
        result.notes.extend(superseded_notes(study, conditions))
        if cells.empty:
            return result
        lines = lines_for_specs("generate", task_specs(study, conditions, cells), {c.id: c.slug for c in conditions},
                                observed=observed_lengths(study, "generate"), prices=run.prices)
        run.approve(lines, ask, tell)
        run.begin(conditions, [])
        shard_of = {k: plan.Shard(k, options.shards, options.shard_by) for k in range(options.shards)}
        caps = _caps(run.max_usd, cells, lines, shard_of, {c.id: c.model for c in conditions})
        outcomes, interrupted = _run_shards(options, caps, tell)
        replay_journals(study.paths)  # the commit: this process holds the lock
        _combine(result, outcomes)
        if interrupted and result.outcome == "completed":
            result.outcome = "interrupted"
    return result


def _caps(max_usd: float | None, cells: pd.DataFrame, lines: list[EstimateLine], shards: dict[int, plan.Shard],
          models: dict[str, str]) -> dict[int, float | None]:
    """Each shard's part of the cap, in proportion to its cells' ceiling: the parts add up to max_usd."""
    if max_usd is None:
        return dict.fromkeys(shards)
    per_cell = {line.condition_id: (line.usd_ceiling or 0.0) / line.calls for line in lines if line.calls}
    weight = cells["condition_id"].map(per_cell).fillna(0.0)
    shares = {k: float(weight[plan.in_shard(cells, shard, "condition_id", models)].sum()) for k, shard in shards.items()}
    total = sum(shares.values()) or 1.0
    return {k: max_usd * share / total for k, share in shares.items()}


def _command(options: LaunchOptions, index: int, cap: float | None) -> list[str]:
    gen = options.generate
    argv = [sys.executable, "-m", "itemeval", "generate", str(options.config), "--shard", f"{index}/{options.shards}",
            "--shard-by", options.shard_by, "--yes", "--json", "--display", "none"]
    argv += ["-C", str(options.base_dir)] if options.base_dir is not None else []
    for condition in gen.conditions:
        argv += ["--condition", condition]
    argv += ["--limit", str(gen.limit)] if gen.limit is not None else []
    if gen.sample is not None:
        argv += ["--sample", str(gen.sample), "--seed", str(gen.seed)]
        argv += ["--stratify", gen.stratify] if gen.stratify else []
    # Rounded down, so the parts never add up to more than the cap.
    argv += ["--max-usd", f"{math.floor(cap * 1e8) / 1e8:.8f}"] if cap is not None else []
    return argv


def _run_shards(options: LaunchOptions, caps: dict[int, float | None],
                tell: Tell | None) -> tuple[dict[int, dict[str, Any]], bool]:
    """Start every shard, wait for all, retry a failed one; (outcomes, whether the launcher was interrupted).

    Shards run in sessions of their own, so a terminal's Ctrl-C reaches only the launcher, which passes
    one SIGINT on: each shard then stops the way a single generate does (no new call, calls in flight kept).
    """
    def start(k: int) -> subprocess.Popen:
        return subprocess.Popen(_command(options, k, caps[k]), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)

    procs = {k: start(k) for k in caps}
    outcomes: dict[int, dict[str, Any]] = {}
    tries = dict.fromkeys(caps, 0)
    try:
        while procs:
            k, proc = next(iter(procs.items()))
            out, err = proc.communicate()
            del procs[k]
            outcome = _outcome(proc.returncode, out, err)
            if outcome["retry"] and tries[k] < RETRIES:
                tries[k] += 1
                if tell is not None:
                    tell(f"shard {k}/{options.shards} failed ({outcome['message']}); running it again")
                procs[k] = start(k)
                continue
            outcomes[k] = outcome
    except KeyboardInterrupt:
        for proc in procs.values():
            proc.send_signal(signal.SIGINT)
        for k, proc in procs.items():
            out, err = proc.communicate()
            outcomes[k] = _outcome(proc.returncode, out, err)
        return outcomes, True
    return outcomes, False


def _outcome(code: int, out: bytes, err: bytes) -> dict[str, Any]:
    try:
        data = json.loads(out)
    except ValueError:
        data = {}
    message = (err.decode(errors="replace").strip().splitlines() or [f"exit {code}"])[-1][:300]
    stopped = code == EXIT_BUDGET or code in _SIGNALLED
    return {"code": code, "data": data, "message": message, "retry": code != 0 and not stopped}


def _combine(result: StageResult, outcomes: dict[int, dict[str, Any]]) -> None:
    """The shards' counts per condition, and the run's outcome: failed, interrupted or stopped by the cap."""
    summaries = {c.condition_id: c for c in result.conditions}
    for outcome in outcomes.values():
        for part in outcome["data"].get("conditions", []):
            summary = summaries.get(part["condition_id"])
            if summary is None:
                continue
            summary.rows += part["rows"]
            summary.errors += part["errors"]
            summary.cache_hits += part["cache_hits"]
            summary.usd = None if summary.usd is None or part["usd"] is None else summary.usd + part["usd"]
        result.notes.extend(outcome["data"].get("notes", []))
    codes = {k: o["code"] for k, o in outcomes.items()}
    if any(o["retry"] for o in outcomes.values()):
        result.outcome = "failed"
        result.notes.extend(f"shard {k} failed: {outcomes[k]['message']}" for k in sorted(outcomes)
                            if outcomes[k]["retry"])
    elif any(code in _SIGNALLED for code in codes.values()):
        result.outcome = "interrupted"
    elif any(code == EXIT_BUDGET for code in codes.values()):
        result.outcome = "budget_stopped"
