"""`itemeval launch generate --shards 2` against one `itemeval generate` process on the
same offline study.

Run: `.venv/bin/python benchmarks/bench_shards.py [--cells N]`. Exit status 1 when a
target is missed. One itemeval process is bound by inspect's per-sample CPU on one core,
so on a 2-core machine two shards are the way to the machine's full speed.

Targets (issue 17): on a 24,000-cell offline study, launch with 2 shards >= 1.6x the
cells/s of one process (its wall time <= 0.625x), and no single process over 400 MB peak
RSS.
"""

from __future__ import annotations

import argparse
import sys

from common import (
    ITEMEVAL,
    Result,
    bench_env,
    report,
    run,
    say,
    stage_rows,
    temp_dir,
    write_study,
)

MAX_WALL_RATIO, MAX_SHARD_MB = 1 / 1.6, 400.0
MODELS = ["itemeval/arith-good", "itemeval/arith-weak"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=24_000)
    parser.add_argument(
        "--repeats", type=int, default=1, help="accepted for run.py; one run each"
    )
    args = parser.parse_args(argv)
    items = args.cells // len(MODELS)
    walls = {}
    for label, command in [
        ("one process", ["generate"]),
        ("launch --shards 2", ["launch", "generate"]),
    ]:
        with temp_dir("bench-shards-") as root:
            config = write_study(root, items=items, models=MODELS)
            extra = (
                ["--shards", "2"] if command[0] == "launch" else ["--display", "none"]
            )
            say(f"{label}: {items * len(MODELS):,} cells")
            done = run(
                [ITEMEVAL, *command, str(config), "--yes", "--json", *extra],
                env=bench_env(root),
                cwd=root,
                memory=True,
            ).check(label)
            walls[label] = done
            say(
                f"{label}: {done.wall_s:.1f} s, "
                f"{stage_rows(done.stdout) / done.wall_s:.1f} cells/s, "
                f"largest process {done.maxrss_mb:.0f} MB, tree peak "
                f"{done.peak_rss_mb:.0f} MB"
            )
    one, two = walls["one process"], walls["launch --shards 2"]
    return report(
        [
            Result(
                "shards: launch --shards 2 wall / one process wall",
                two.wall_s / one.wall_s,
                "x",
                MAX_WALL_RATIO,
                detail=f"{one.wall_s / two.wall_s:.2f}x the cells/s",
            ),
            Result(
                "shards: largest single process (peak RSS)",
                two.maxrss_mb,
                "MB",
                MAX_SHARD_MB,
            ),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
