"""Which inspect `eval()` settings make `itemeval generate` faster or leaner without
losing sample transcripts.

Run: `.venv/bin/python benchmarks/bench_settings.py [--rounds N] [--items 1000]` (about
12 minutes for 2 rounds; not part of `make bench`). It copies the `itemeval` package
into a temp dir and wraps the copy's `inspect_run._eval_options` so the keyword
arguments of its `eval()` call can be overridden from the environment
(`ITEMEVAL_BENCH_EVAL_KWARGS`, JSON); the checkout is never touched. Each round runs the
unchanged settings and then every candidate on a fresh 2,000-cell study (1 condition ×
1,000 items × 2 replications), so each candidate is compared with a baseline measured
minutes apart. Every run's `.eval` log is checked to hold all the sample transcripts.
Every run's sample is checked to keep its messages and output (what inspect view
opens). Reported per candidate: median wall and CPU seconds, both relative to the
baseline, CPU milliseconds per cell (process start-up included), peak RSS, and whether
the model call's raw request is still in the log.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from common import (
    REPO,
    assert_transcripts,
    bench_env,
    itemeval,
    median,
    say,
    stage_rows,
    study_dir,
    temp_dir,
    write_study,
)

CANDIDATES: dict[str, dict] = {
    "current (realtime off, log_buffer<=500)": {},
    "inspect defaults (realtime on, log_buffer=10)": {
        "log_realtime": True,
        "log_buffer": 10,
    },
    "realtime off, log_buffer=2000": {"log_buffer": 2000},
    # the raw request/response of successful calls leaves inspect view's API tab
    # (a failed call's stays)
    "log_model_api=False": {"log_model_api": False},
    # no control socket (inspect ctl) for the eval process
    "ctl_server=False": {"ctl_server": False},
    # logger records kept out of the transcripts below warning
    "log_level_transcript=warning": {"log_level_transcript": "warning"},
    # the scores shown on the task display (itemeval runs with --display none here)
    "score_display=False": {"score_display": False},
    "max_connections=100": {"max_connections": 100},
}
"""eval() settings measured against itemeval's; log_images (off), log_shared (off),
trace (off) and log_refusals (warnings only) are inspect's defaults already."""
_OPTIONS = "def _eval_options("
_PATCH = """

# bench_settings: ITEMEVAL_BENCH_EVAL_KWARGS (JSON) overrides inspect's eval() options
_bench_eval_options = _eval_options


def _eval_options(*args, **kwargs):
    import json
    import os

    override = json.loads(os.environ.get("ITEMEVAL_BENCH_EVAL_KWARGS", "{}"))
    return {**_bench_eval_options(*args, **kwargs), **override}
"""


def sample_contents(logs: Path) -> dict[str, bool]:
    """What inspect view shows of one sample of the first log: its messages (the
    prompt and the reply), its output, its model call's raw request."""
    import zipfile

    import inspect_ai.log  # noqa: F401 - teaches zipfile the logs' zstd compression

    log = sorted(logs.glob("*.eval"))[0]
    with zipfile.ZipFile(log) as archive:
        name = next(n for n in archive.namelist() if n.startswith("samples/"))
        sample = json.loads(archive.read(name))
    roles = [m.get("role") for m in sample.get("messages", [])]
    events = [e for e in sample.get("events", []) if e.get("event") == "model"]
    return {
        "messages": "user" in roles and "assistant" in roles,
        "output": bool((sample.get("output") or {}).get("choices")),
        "model event": bool(events),
        "api call": any(e.get("call") for e in events),
    }


def patched_copy(dest: Path) -> Path:
    """A copy of the itemeval package whose eval() kwargs come from
    ITEMEVAL_BENCH_EVAL_KWARGS; returns its parent."""
    shutil.copytree(
        REPO / "itemeval",
        dest / "itemeval",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    module = dest / "itemeval" / "engine" / "eval.py"
    source = module.read_text(encoding="utf-8")
    if _OPTIONS not in source:
        raise SystemExit(
            f"cannot patch {module}: run_tasks no longer takes inspect's eval() "
            "options from _eval_options; update bench_settings._PATCH"
        )
    module.write_text(source + _PATCH, encoding="utf-8")
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--items", type=int, default=1_000, help="items (x 2 replications = cells)"
    )
    parser.add_argument(
        "--only", action="append", help="candidate names to run (default: all)"
    )
    args = parser.parse_args(argv)
    chosen = {
        name: kwargs
        for name, kwargs in CANDIDATES.items()
        if not args.only or name in args.only or not kwargs
    }
    cells = args.items * 2
    runs: dict[str, list] = {name: [] for name in chosen}
    contents: dict[str, dict[str, bool]] = {}
    with temp_dir("settings") as root:
        package = patched_copy(root / "package")
        config = write_study(
            root, items=args.items, models=["itemeval/arith-good"], replications=2
        )
        for round_number in range(args.rounds):
            for name, kwargs in chosen.items():
                shutil.rmtree(study_dir(root), ignore_errors=True)
                env = bench_env(
                    root,
                    PYTHONPATH=str(package),
                    ITEMEVAL_BENCH_EVAL_KWARGS=json.dumps(kwargs),
                )
                run = itemeval(
                    "generate", config, "--json", root=root, env=env, memory=True
                )
                assert stage_rows(run.stdout) == cells
                logs = study_dir(root) / "logs" / "generate"
                assert_transcripts(logs, cells, name)
                kept = sample_contents(logs)
                assert kept["messages"] and kept["output"], (name, kept)
                contents[name] = kept
                runs[name].append(run)
                say(
                    f"round {round_number + 1} {name:45} {run.wall_s:6.1f} s "
                    f"wall {run.cpu_s:6.1f} s cpu "
                    f"{run.peak_rss_mb:5.0f} MB"
                )
    base = next(iter(chosen))
    base_wall = median([r.wall_s for r in runs[base]])
    base_cpu = median([r.cpu_s for r in runs[base]])
    print(f"\n{cells:,} cells of itemeval/arith-good, median of {args.rounds} rounds")
    print(
        f"{'setting':45} {'wall s':>8} {'vs now':>7} {'cpu s':>8} "
        f"{'vs now':>7} {'cpu ms/cell':>11} {'peak MB':>8}  api call kept"
    )
    for name, measured in runs.items():
        wall, cpu = (
            median([r.wall_s for r in measured]),
            median([r.cpu_s for r in measured]),
        )
        peak = max(r.peak_rss_mb for r in measured)
        print(
            f"{name:45} {wall:8.1f} {wall / base_wall - 1:+7.0%} {cpu:8.1f} "
            f"{cpu / base_cpu - 1:+7.0%} {1000 * cpu / cells:11.2f} {peak:8.0f}  "
            f"{'yes' if contents[name]['api call'] else 'no'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
