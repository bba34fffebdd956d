"""Generation from the CLI: overhead over plain inspect, peak memory of a 24,000-cell
run, and a no-op re-run.

Run: `.venv/bin/python benchmarks/bench_generate.py [--repeats N] [--only
overhead|memory]` (about 6-9 minutes on 2 cores, most of it the 24,000-cell run). Exit
status 1 when a target is missed.

Both sides of the overhead ratio are timed as whole processes: `itemeval generate`
including interpreter start-up, planning and the store upsert;
`benchmarks/plain_inspect.py` including `import inspect_ai`. Pairs run back to back in
alternating order and the median of the per-pair ratios is reported, which cancels most
of the drift in load on a shared machine.

Targets (issues 4 and 5):
- `generate` of 2,000 cells (1 condition × 1,000 items × 2 replications) of
  `itemeval/arith-good` vs a plain inspect `eval()` of the same 2,000 prompts with the
  same model, sample logging on: wall ratio <= 1.10.
- peak RSS (the whole process tree) of a 24,000-cell generate (8 conditions × 1,000
  items × 3 replications) <= 400 MB.
- a second `generate` on the complete 24,000-cell study: no model call, <= 2 s wall.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from common import (
    BENCH_DIR,
    Result,
    assert_transcripts,
    itemeval,
    median,
    overhead_results,
    python_script,
    report,
    say,
    stage_rows,
    study_dir,
    temp_dir,
    write_grid_study,
    write_study,
)

MAX_RATIO, MAX_PEAK_MB, MAX_NOOP_S = 1.10, 400.0, 2.0


def plain_spec(config: Path, root: Path) -> dict:
    """The plain-inspect spec of exactly the prompts and generate config itemeval
    sends for the study."""
    from itemeval.plan.generate_tasks import render_prompt
    from itemeval.study.load import load_study

    study = load_study(config, root)
    condition = study.generate[0]
    solvers = study.config.solvers
    runtime = {
        "max_retries": solvers.max_retries,
        "timeout": solvers.timeout,
        "attempt_timeout": solvers.attempt_timeout,
    }
    return {
        "model": condition.model,
        "config": {**condition.params, **runtime},
        "epochs": study.replications,
        "prompts": [
            {"id": item.id, "prompt": render_prompt(condition, item)}
            for item in study.items
        ],
    }


def overhead(repeats: int) -> list[Result]:
    """`itemeval generate` of 2,000 cells vs `plain_inspect.py` on the same prompts,
    `repeats` pairs."""
    with temp_dir("gen-overhead") as root:
        config = write_study(
            root, items=1_000, models=["itemeval/arith-good"], replications=2
        )
        cells = 2_000
        spec = root / "spec.json"
        spec.write_text(json.dumps(plain_spec(config, root)), encoding="utf-8")
        pairs = []
        for rep in range(repeats):
            runs = {}
            plain_logs = root / f"plain-logs-{rep}"
            for side in (
                ("itemeval", "plain") if rep % 2 == 0 else ("plain", "itemeval")
            ):
                if side == "itemeval":
                    shutil.rmtree(
                        study_dir(root), ignore_errors=True
                    )  # every run starts an empty study
                    runs[side] = itemeval("generate", config, "--json", root=root)
                    assert stage_rows(runs[side].stdout) == cells
                else:
                    runs[side] = python_script(
                        BENCH_DIR / "plain_inspect.py",
                        str(spec),
                        str(plain_logs),
                        root=root,
                    )
            assert_transcripts(study_dir(root) / "logs" / "generate", cells, "itemeval")
            assert_transcripts(plain_logs, cells, "plain inspect")
            pairs.append(runs)
            say(
                f"  generate pair {rep + 1}: itemeval "
                f"{runs['itemeval'].wall_s:.1f} s "
                f"({runs['itemeval'].cpu_s:.1f} s cpu), "
                f"plain {runs['plain'].wall_s:.1f} s ({runs['plain'].cpu_s:.1f} s cpu)"
            )
        return overhead_results("generate", pairs, cells, MAX_RATIO)


def memory(repeats: int) -> list[Result]:
    """Peak RSS of a 24,000-cell generate, then `repeats` no-op re-runs of the
    complete study."""
    with temp_dir("gen-24k") as root:
        config = write_grid_study(root)
        cells = 24_000
        say(f"memory: generating {cells:,} cells (8 conditions)")
        first = itemeval("generate", config, "--json", root=root, memory=True)
        assert stage_rows(first.stdout) == cells
        say(
            f"  {first.wall_s:.1f} s wall, {first.cpu_s:.1f} s cpu, peak "
            f"{first.peak_rss_mb:.0f} MB "
            f"(largest process {first.maxrss_mb:.0f} MB)"
        )
        logs = sorted(study_dir(root).rglob("*.eval"))
        noops = []
        for _ in range(repeats):
            run = itemeval("generate", config, "--json", root=root)
            assert stage_rows(run.stdout) == 0, "a no-op generate wrote rows"
            noops.append(run.wall_s)
        assert sorted(study_dir(root).rglob("*.eval")) == logs, (
            "a no-op generate ran inspect"
        )
        return [
            Result(
                f"generate {cells:,} cells: peak RSS",
                first.peak_rss_mb,
                "MB",
                MAX_PEAK_MB,
                detail=f"largest process {first.maxrss_mb:.0f} MB; "
                f"{cells / first.wall_s:.0f} cells/s, "
                f"{first.wall_s:.0f} s",
            ),
            Result(
                f"no-op generate, {cells:,} complete cells",
                median(noops),
                "s",
                MAX_NOOP_S,
                samples=noops,
            ),
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="runs per timed figure (the median is reported)",
    )
    parser.add_argument("--only", choices=["overhead", "memory"], action="append")
    args = parser.parse_args(argv)
    results = []
    for name in args.only or ["overhead", "memory"]:
        results += {"overhead": overhead, "memory": memory}[name](args.repeats)
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
