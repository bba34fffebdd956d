"""`make bench`: run every benchmark one after another and print each figure with its
target and verdict.

Run: `.venv/bin/python benchmarks/run.py [--repeats N] [--only store|generate|grade
...]`. Exit status 1 when any target is missed or a benchmark crashes. The benchmarks
run sequentially, never side by side, because each one times real processes on the same
cores. On a shared 2-core machine expect about 20 minutes; the 24,000-cell generates
(one process, then two shards) are the long poles.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BENCH_DIR, PYTHON, Result

BENCHMARKS = {
    "store": "bench_store.py",
    "generate": "bench_generate.py",
    "grade": "bench_grade.py",
    "results": "bench_results.py",
    "shards": "bench_shards.py",
    "delta": "bench_delta.py",
    "longtail": "bench_longtail.py",
    "view": "bench_view.py",
    "pairwise": "bench_pairwise.py",
    "startup": "bench_startup.py",
    "journal": "bench_journal.py",
    "signals": "bench_signals.py",
}
# bench_store.py prints its verdict on one line; its two targets are read back from it.
_STORE_LINE = re.compile(
    r"worst upsert ratio (?P<ratio>[\d.]+)x \(target <= (?P<max_ratio>[\d.]+)x\); "
    r"planner read at (?P<rows>[\d,]+) rows (?P<read>[\d.]+) s \(target <= "
    r"(?P<max_read>[\d.]+) s\)"
)


def store_results(output: str) -> list[Result]:
    match = _STORE_LINE.search(output)
    if match is None:
        return []
    return [
        Result(
            "store: upsert at 1M rows / at 10k rows (worst)",
            float(match["ratio"]),
            "x",
            float(match["max_ratio"]),
        ),
        Result(
            f"store: planner read of {match['rows']} rows",
            float(match["read"]),
            "s",
            float(match["max_read"]),
        ),
    ]


def run_benchmark(name: str, repeats: int | None) -> tuple[int, list[Result], float]:
    """Run one benchmark script, echoing its output; returns (exit code, its results,
    wall seconds)."""
    script = BENCH_DIR / BENCHMARKS[name]
    args = [PYTHON, str(script)] + (
        ["--repeats", str(repeats)] if repeats and name != "store" else []
    )
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as handle:
        results_path = Path(handle.name)
    env = {**os.environ, "ITEMEVAL_BENCH_RESULTS": str(results_path)}
    print(f"\n=== {script.name} ===", flush=True)
    started = time.perf_counter()
    proc = subprocess.run(
        args, env=env, cwd=BENCH_DIR.parent, stdout=subprocess.PIPE, text=True
    )
    wall = time.perf_counter() - started
    print(proc.stdout, end="", flush=True)
    lines = results_path.read_text(encoding="utf-8").splitlines()
    results_path.unlink(missing_ok=True)
    results = [_result(json.loads(line)) for line in lines if line.strip()]
    if name == "store":
        results = store_results(proc.stdout)
    return proc.returncode, results, wall


def _result(data: dict) -> Result:
    data.pop("passed", None)
    return Result(**data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="runs per timed figure (default: each script's own)",
    )
    parser.add_argument(
        "--only",
        choices=list(BENCHMARKS),
        action="append",
        help="run only these benchmarks",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    summary: list[Result] = []
    failures: list[str] = []
    for name in args.only or list(BENCHMARKS):
        code, results, wall = run_benchmark(name, args.repeats)
        summary += results
        if code != 0 and not any(r.passed is False for r in results):
            failures.append(
                f"{BENCHMARKS[name]} exited {code} without a missed target (crashed?)"
            )
        print(f"({BENCHMARKS[name]} took {wall:.0f} s)", flush=True)
    total = time.perf_counter() - started
    print(f"\n=== summary ({total / 60:.1f} min) ===")
    print(f"{'figure':52} {'median':>10} {'unit':8} {'target':16} verdict")
    for result in summary:
        print(result.line().split("  runs:")[0].split("  [")[0])
    missed = [r for r in summary if r.passed is False]
    for failure in failures:
        print(f"ERROR: {failure}")
    verdict = (
        "all targets met"
        if not missed and not failures
        else f"{len(missed)} target(s) missed"
    )
    print(verdict)
    return 1 if missed or failures else 0


if __name__ == "__main__":
    sys.exit(main())
