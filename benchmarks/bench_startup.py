"""The fixed cost of the commands that call no model: wall seconds, median of several
runs, each a whole process (interpreter start-up included), plus how many modules
each loads (`python -X importtime`, which does not depend on the machine's load).

Run: `.venv/bin/python benchmarks/bench_startup.py [--repeats N]`. Target (issue 27):
every command <= 1.0 s median on a quiet machine. The study is small and complete
(500 items, two offline models, a numeric scorer and an offline judge: 1,000
solutions, 2,000 grades), so generate and grade have nothing to do; `estimate` also
runs on a copy of it with nothing stored and the response cache on, as a user's first
estimate is.

Each command runs once untimed first, with bytecode written to a cache in the temp dir:
an installed itemeval has its modules compiled (pip does it at install), while a
checkout run under PYTHONDONTWRITEBYTECODE compiles all of them from source on every
start, 0.1-0.2 s more. The CPU seconds are given beside the wall: on a shared machine
they move far less with the load.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common import (
    ITEMEVAL,
    PYTHON,
    Result,
    installed_env,
    itemeval,
    median,
    report,
    run,
    say,
    temp_dir,
    write_study,
)

MAX_S = 1.0
ITEMS = 500


def commands(config: Path, fresh: Path) -> dict[str, list[str]]:
    study = str(config)
    return {
        "--version": ["--version"],
        "--help": ["--help"],
        "generate (nothing to do)": ["generate", study, "--display", "none", "--yes"],
        "grade (nothing to do)": ["grade", study, "--display", "none", "--yes"],
        "status": ["status", study],
        "estimate (nothing to do)": ["estimate", study],
        # what a user runs first: nothing stored, the response cache on (the default)
        "estimate (new study, cache on)": ["estimate", str(fresh)],
        "export": ["export", study],
        "results": ["results", study],
    }


def modules_loaded(args: list[str], root: Path) -> int:
    """How many modules `itemeval ARGS` imports, from `-X importtime`."""
    done = run(
        [PYTHON, "-X", "importtime", "-m", "itemeval", *args],
        env=installed_env(root),
        cwd=root,
    ).check("itemeval " + " ".join(args[:1]))
    return sum(line.startswith("import time:") for line in done.stderr.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    results = []
    with temp_dir("startup") as root:
        config = write_study(
            root,
            items=ITEMS,
            models=["itemeval/arith-good", "itemeval/arith-weak"],
            grader=True,
        )
        itemeval("generate", config, root=root)
        itemeval("grade", config, root=root)
        fresh = write_study(
            root / "new",
            items=ITEMS,
            models=["itemeval/arith-good", "itemeval/arith-weak"],
            grader=True,
            cache=True,
        )
        env = installed_env(root)
        for label, command in commands(config, fresh).items():
            run([ITEMEVAL, *command], env=env, cwd=root).check(label)  # compiles
            runs = [
                run([ITEMEVAL, *command], env=env, cwd=root).check(label)
                for _ in range(max(1, args.repeats))
            ]
            walls = [r.wall_s for r in runs]
            cpu = median([r.cpu_s for r in runs])
            count = modules_loaded(command, root) - 1  # the header line
            say(
                f"{label}: median {median(walls):.2f} s wall, {cpu:.2f} s CPU, "
                f"{count} modules"
            )
            results.append(
                Result(
                    f"startup: {label}",
                    median(walls),
                    "s",
                    MAX_S,
                    detail=f"{cpu:.2f} s CPU, {count} modules",
                    samples=walls,
                )
            )
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
