"""`itemeval results` on 1,000,000 grades: 100 grid cells (20 generate × 5 grade
conditions) × 2,000 items × 5 replications, bootstrap CIs included.

Run: `.venv/bin/python benchmarks/bench_results.py [--repeats N]`. Exit status 1 when a
target is missed. Solutions and grades are written straight into the stores (random 0/1
scores), so only the command is timed, as a whole process with interpreter start-up.

Targets (issue 27, tightened from issue 14's 10 s / 1.5 GB / 30 s): `results` <= 6 s
wall and `report` on the same <= 10 s, each <= 1 GB peak RSS, on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from common import (
    ITEMEVAL,
    Result,
    installed_env,
    median,
    report,
    run,
    say,
    temp_dir,
    write_solutions,
    write_study,
)

MAX_S, MAX_PEAK_MB, MAX_REPORT_S = 6.0, 1000.0, 10.0
SCORERS = (
    "[numeric, exact_match, includes, match, {name: numeric, params: {rel_tol: 0.01}}]"
)


def write_grades(config: Path, root: Path) -> int:
    """One grade row per (grade condition × stored solution), scored 0/1 at random."""
    import numpy as np
    import pyarrow as pa

    from itemeval.store import read_store, upsert
    from itemeval.store.schemas import GRADES
    from itemeval.study.load import load_study

    study = load_study(config, root)
    solutions = read_store(
        study.paths, "solutions", ["condition_id", "item_id", "epoch", "solution_hash"]
    )
    rng = np.random.default_rng(0)
    count, written = solutions.num_rows, 0
    # the answer each grade read: the target when scored 1, else a near miss, so the
    # global metrics (issue 28) have labels and numbers to compare
    targets = {item.id: int(item.target) for item in study.items}
    target = np.array([targets[i] for i in solutions.column("item_id").to_pylist()])
    created = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for condition in study.grade:
        columns = {
            "grade_condition_id": [condition.id] * count,
            "grade_condition_slug": [condition.slug] * count,
            "gen_condition_id": solutions.column("condition_id"),
            "item_id": solutions.column("item_id"),
            "epoch": solutions.column("epoch"),
            "grade_kind": [condition.kind] * count,
            "scorer": [condition.scorer] * count,
            "solution_hash": solutions.column("solution_hash"),
            "score": (score := rng.integers(0, 2, count).astype(float)),
            "answer": np.where(
                score == 1, target, target + rng.integers(1, 4, count)
            ).astype(str),
            "parse_ok": [True] * count,
            "usd": [0.0] * count,
            "cache_hit": [False] * count,
            "run_id": ["bench"] * count,
            "created_at": [created] * count,
        }
        table = pa.table(
            {
                field.name: pa.array(columns[field.name], field.type)
                if field.name in columns
                else pa.nulls(count, field.type)
                for field in GRADES
            },
            schema=GRADES,
        )
        written += upsert(study.paths, "grades", table)
    return written


def results_bench(repeats: int) -> list[Result]:
    with temp_dir("results1m") as root:
        models = [f"itemeval/arith-{n}" for n in range(50, 100, 5)]
        config = write_study(
            root,
            items=2_000,
            models=models,
            prompts=["builtin:minimal", "builtin:standard"],
            replications=5,
            scorer=SCORERS,
        )
        solutions = write_solutions(config, root)
        grades = write_grades(config, root)
        _warm(root / "warm", models)
        say(
            f"results: {solutions:,} solutions, {grades:,} grades stored; "
            f"timing {repeats}x"
        )
        walls, peak = [], 0.0
        for _ in range(repeats):
            timed = run(
                [
                    ITEMEVAL,
                    "results",
                    str(config),
                    "--json",
                    "--ci",
                    "bootstrap",
                    "--by",
                    "model",
                ],
                env=installed_env(root),
                cwd=root,
                memory=True,
            ).check("itemeval results")
            cells = json.loads(timed.stdout)["cells"]
            if len(cells) != 100 or sum(c["grades"] for c in cells) != grades:
                raise RuntimeError(
                    f"results saw {sum(c['grades'] for c in cells)} grades in "
                    f"{len(cells)} cells"
                )
            walls.append(timed.wall_s)
            peak = max(peak, timed.peak_rss_mb)
            say(
                f"  results {timed.wall_s:.2f} s wall, {timed.cpu_s:.2f} s "
                f"cpu, peak {timed.peak_rss_mb:.0f} MB"
            )
        with_metrics = _metrics_runs(config, root, repeats)
        reports, report_peak = [], 0.0
        for _ in range(max(1, repeats // 2)):
            timed = run(
                [ITEMEVAL, "report", str(config), "--json"],
                env=installed_env(root),
                cwd=root,
                memory=True,
            ).check("itemeval report")
            if not Path(json.loads(timed.stdout)["path"]).is_file():
                raise RuntimeError("report wrote no file")
            reports.append(timed.wall_s)
            report_peak = max(report_peak, timed.peak_rss_mb)
            say(f"  report {timed.wall_s:.2f} s wall, peak {timed.peak_rss_mb:.0f} MB")
        return [
            Result(
                f"results, {grades:,} grades, bootstrap CIs",
                median(walls),
                "s",
                MAX_S,
                samples=walls,
            ),
            Result("results peak RSS", peak, "MB", MAX_PEAK_MB),
            Result(
                "results with 3 global metrics / without (issue 28: <= 2)",
                median([w for w, _ in with_metrics]) / median(walls),
                "x",
                2.0,
                samples=[w for w, _ in with_metrics],
            ),
            Result(
                "results with 3 global metrics, peak RSS",
                max(p for _, p in with_metrics),
                "MB",
                MAX_PEAK_MB,
            ),
            Result(
                f"report, {grades:,} grades",
                median(reports),
                "s",
                MAX_REPORT_S,
                samples=reports,
            ),
            Result("report peak RSS", report_peak, "MB", MAX_PEAK_MB),
        ]


def _warm(root: Path, models: list[str]) -> None:
    """`results` and `report` once on a small study, untimed: every module they load
    is compiled into the bytecode cache first, as pip compiles an installed package,
    so no timed run pays for compiling pandas or matplotlib from source."""
    config = write_study(root, items=20, models=models[:2], scorer=SCORERS)
    write_solutions(config, root)
    write_grades(config, root)
    for command in (["results", str(config), "--json"], ["report", str(config)]):
        run([ITEMEVAL, *command], env=installed_env(root.parent), cwd=root).check(
            f"itemeval {command[0]} (warm-up)"
        )


METRICS = "metrics: [f1_macro, balanced_accuracy, {name: pearson, scorer: numeric}]\n"


def _metrics_runs(config: Path, root: Path, repeats: int) -> list[tuple[float, float]]:
    """The same results command once the study declares three global metrics, each
    with its 2,000-resample item bootstrap (over 60, 60 and 40 cells: inspect's match
    and includes keep no class to compare)."""
    plain = config.read_text()
    config.write_text(plain + METRICS)
    runs = []
    try:
        for _ in range(repeats):
            timed = run(
                [ITEMEVAL, "results", str(config), "--json", "--ci", "bootstrap"]
                + ["--by", "model"],
                env=installed_env(root),
                cwd=root,
                memory=True,
            ).check("itemeval results (metrics)")
            metrics = json.loads(timed.stdout)["metrics"]
            if len([m for m in metrics if m.get("facet") is None]) != 160:
                raise RuntimeError(f"results gave {len(metrics)} metric rows")
            runs.append((timed.wall_s, timed.peak_rss_mb))
            say(
                f"  results + 3 metrics {timed.wall_s:.2f} s wall, "
                f"peak {timed.peak_rss_mb:.0f} MB"
            )
    finally:
        config.write_text(plain)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="runs per figure (the median is reported)",
    )
    return report(results_bench(parser.parse_args(argv).repeats))


if __name__ == "__main__":
    sys.exit(main())
