"""`itemeval view` on a 100,000-item study: how fast the items page answers.

Run: `.venv/bin/python benchmarks/bench_view.py [--repeats N]`. Exit status 1 when a
target is missed. 2 generate conditions x 100,000 items, each answer scored by two
verifiable grade conditions (random 0/1 scores written straight into the stores: 200,000
solutions, 400,000 grades). The view runs as its own process; each figure is one HTTP
request's wall time, measured from this process.

Target (issue 30): a page of the items table in <= 1 s once the view has read the stores
(it builds the table once per store version); the first request, which reads them, is
reported beside it."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench_results import write_grades
from common import Result, bench_env, median, report, say, temp_dir, write_solutions
from common import write_study as write_bench_study

REPO = Path(__file__).resolve().parent.parent
MAX_PAGE_S = 1.0
QUERIES = [
    "",
    "disagree=1",
    "sort=-score&page=3",
    "score_max=0&meta_key=difficulty&meta_value=hard",
    "parse_failure=1",
]


def fetch(url: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        body = response.read()
    return time.perf_counter() - started, body


def start_view(config: Path, root: Path) -> tuple[subprocess.Popen, str]:
    env = bench_env(root, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [sys.executable, "-m", "itemeval", "view", str(config)],
        env=env,
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    if not line.startswith("itemeval view: "):
        process.kill()
        raise RuntimeError(f"itemeval view printed {line!r}")
    return process, line.split(": ", 1)[1].strip()


def view_bench(repeats: int) -> list[Result]:
    with temp_dir("view100k") as root:
        config = write_bench_study(
            root,
            items=100_000,
            models=["itemeval/arith-good", "itemeval/arith-weak"],
            scorer="[numeric, exact_match]",
        )
        solutions = write_solutions(config, root)
        grades = write_grades(config, root)
        say(f"view: {solutions:,} solutions, {grades:,} grades stored")
        process, url = start_view(config, root)
        try:
            base, token = url.split("/?token=")
            cold, _ = fetch(f"{base}/items?token={token}")
            say(f"  first items page (reads the stores) {cold:.2f} s")
            walls = []
            for _ in range(repeats):
                for query in QUERIES:
                    wall, body = fetch(f"{base}/items?token={token}&{query}")
                    if b'id="items"' not in body:
                        raise RuntimeError(f"no items table for {query!r}")
                    walls.append(wall)
                    say(f"  /items?{query or '(no filter)'} {wall:.3f} s")
        finally:
            process.terminate()
            process.wait(timeout=60)
    return [
        Result(
            "view: items page, 100,000 items (read)",
            median(walls),
            "s",
            MAX_PAGE_S,
            detail=f"worst {max(walls):.2f} s",
            samples=walls,
        ),
        Result("view: first items page (reads the stores)", cold, "s"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each query")
    os.environ.setdefault("PYTHONPATH", str(REPO))
    return report(view_bench(parser.parse_args(argv).repeats))


if __name__ == "__main__":
    sys.exit(main())
