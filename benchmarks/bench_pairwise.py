"""Pairwise judging against pointwise judging of the same answers, both from the CLI.

Run: `.venv/bin/python benchmarks/bench_pairwise.py [--repeats N]`. Exit status 1 when
the target is missed. Two conditions' answers to 10,000 items are written straight into
the store (`common.write_solutions`); then, from the same snapshot each time, one
`grade --grader judge` judges the 20,000 answers pointwise and one `grade --grader pw`
asks the 10,000 pairs in both orders (20,000 verdicts), both with the offline
`itemeval/judge`.

Target (issue 29): pairwise wall <= 1.3x pointwise wall (median of the pairs).
"""

from __future__ import annotations

import argparse
import sys

from common import (
    Result,
    itemeval,
    median,
    report,
    restore,
    say,
    snapshot,
    stage_rows,
    study_dir,
    temp_dir,
    write_solutions,
    write_study,
)

ITEMS = 10_000
MAX_RATIO = 1.3
PAIRWISE_GRADER = "  pw: {model: itemeval/judge, max_tokens: 256, kind: pairwise}\n"


def pairwise_vs_pointwise(repeats: int) -> list[Result]:
    with temp_dir("pairwise") as root:
        config = write_study(
            root,
            items=ITEMS,
            models=["itemeval/arith-good", "itemeval/arith-weak"],
            scorer=None,
            grader=True,
        )
        text = config.read_text(encoding="utf-8")
        config.write_text(
            text.replace("graders:\n", "graders:\n" + PAIRWISE_GRADER), encoding="utf-8"
        )
        answers = write_solutions(config, root)
        study = study_dir(root)
        snapshot(study, root / "snapshot")
        ratios, walls = [], {"judge": [], "pw": []}
        for rep in range(repeats):
            runs = {}
            for grader in ("judge", "pw") if rep % 2 == 0 else ("pw", "judge"):
                restore(root / "snapshot", study)
                run = itemeval("grade", config, "--grader", grader, "--json", root=root)
                assert stage_rows(run.stdout) == answers, run.stdout[-2000:]
                runs[grader] = run
                walls[grader].append(run.wall_s)
            ratios.append(runs["pw"].wall_s / runs["judge"].wall_s)
            say(
                f"  pair {rep + 1}: pointwise {runs['judge'].wall_s:.1f} s "
                f"({runs['judge'].cpu_s:.1f} s cpu, {answers:,} answers), pairwise "
                f"{runs['pw'].wall_s:.1f} s ({runs['pw'].cpu_s:.1f} s cpu, "
                f"{ITEMS:,} pairs x 2 orders)"
            )
        return [
            Result(
                f"pairwise {ITEMS:,} pairs x 2 / pointwise {answers:,} answers",
                median(ratios),
                "x",
                MAX_RATIO,
                samples=ratios,
                detail=f"pointwise {median(walls['judge']):.1f} s, "
                f"pairwise {median(walls['pw']):.1f} s",
            )
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="pairs of runs (median)")
    args = parser.parse_args(argv)
    return report(pairwise_vs_pointwise(args.repeats))


if __name__ == "__main__":
    sys.exit(main())
