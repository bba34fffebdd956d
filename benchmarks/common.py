"""Shared pieces of the CLI benchmarks: temp studies, timed subprocess runs with peak
memory, and results.

Every benchmark builds its own study in a temp dir, points inspect's data, cache and log
dirs into it, runs the real CLI (`.venv/bin/itemeval ... --display none`) as a
subprocess and removes the dir.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

import psutil

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / ".venv" / "bin"
ITEMEVAL = str(BIN / "itemeval")
PYTHON = str(BIN / "python")
BENCH_DIR = Path(__file__).resolve().parent


# ---- results
# --------------------------------------------------------------------------------------


@dataclass
class Result:
    """One measured figure and the target it is held to."""

    name: str
    value: float
    unit: str
    limit: float | None = None  # the figure must be <= limit; None = reported only
    detail: str = ""
    samples: list[float] = field(default_factory=list)

    @property
    def passed(self) -> bool | None:
        return None if self.limit is None else self.value <= self.limit

    def line(self) -> str:
        target = (
            f"<= {self.limit:g} {self.unit}" if self.limit is not None else "(info)"
        )
        verdict = {True: "PASS", False: "FAIL", None: ""}[self.passed]
        runs = (
            f"  runs: {', '.join(f'{s:.3g}' for s in self.samples)}"
            if len(self.samples) > 1
            else ""
        )
        extra = f"  [{self.detail}]" if self.detail else ""
        return (
            f"{self.name:52} {self.value:10.3f} {self.unit:8} {target:16} "
            f"{verdict:4}{runs}{extra}"
        )


def report(results: list[Result]) -> int:
    """Print every figure with its target; 1 when any target is missed. Writes JSON
    for run.py if asked."""
    for result in results:
        print(result.line(), flush=True)
    out = os.environ.get("ITEMEVAL_BENCH_RESULTS")
    if out:
        with open(out, "a", encoding="utf-8") as handle:
            for result in results:
                handle.write(
                    json.dumps({**asdict(result), "passed": result.passed}) + "\n"
                )
    return 1 if any(r.passed is False for r in results) else 0


def median(values: list[float]) -> float:
    return statistics.median(values)


def overhead_results(
    what: str, pairs: list[dict[str, Run]], cells: int, limit: float
) -> list[Result]:
    """itemeval's wall time over plain inspect's (median of the paired ratios), with
    throughputs and CPU for context."""
    ours = [p["itemeval"].wall_s for p in pairs]
    plain = [p["plain"].wall_s for p in pairs]
    ratios = [p["itemeval"].wall_s / p["plain"].wall_s for p in pairs]
    cpu = median([p["itemeval"].cpu_s for p in pairs]) / median(
        [p["plain"].cpu_s for p in pairs]
    )
    return [
        Result(
            f"{what} overhead: itemeval / plain inspect wall",
            median(ratios),
            "x",
            limit,
            samples=ratios,
            detail=f"cpu-time ratio {cpu:.2f}",
        ),
        Result(
            f"{what}: itemeval throughput ({cells:,} cells)",
            cells / median(ours),
            "cells/s",
            samples=ours,
            detail=f"median {median(ours):.1f} s wall",
        ),
        Result(
            f"{what}: plain inspect throughput ({cells:,} cells)",
            cells / median(plain),
            "cells/s",
            samples=plain,
            detail=f"median {median(plain):.1f} s wall",
        ),
    ]


def stage_rows(stdout: str) -> int:
    """Rows a `generate --json` / `grade --json` run wrote, summed over its
    conditions."""
    return sum(condition["rows"] for condition in json.loads(stdout)["conditions"])


# ---- a temp study
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix=f"itemeval-bench-{prefix}-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run: inspect's data, cache and log dirs inside
    `root`, no keys, no display."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not (
            k.endswith("_API_KEY")
            or k.startswith("INSPECT_")
            or k.startswith("ITEMEVAL_")
        )
    }
    env.update(
        XDG_DATA_HOME=str(root / "xdg-data"),
        XDG_CACHE_HOME=str(root / "xdg-cache"),
        INSPECT_CACHE_DIR=str(root / "inspect-cache"),
        INSPECT_LOG_DIR=str(root / "inspect-logs"),
        INSPECT_DISPLAY="none",
    )
    env.update(extra)
    return env


def installed_env(root: Path) -> dict[str, str]:
    """`bench_env` with bytecode cached under `root`, as an installed itemeval has
    its modules compiled (pip does it at install): a checkout run under
    PYTHONDONTWRITEBYTECODE compiles every module from source on each start, 0.1-0.3 s
    more."""
    env = bench_env(root, PYTHONPYCACHEPREFIX=str(root / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def arith_items(count: int) -> list[dict[str, str]]:
    """`count` distinct arithmetic questions with exact integer answers, the offline
    solvers' diet."""
    rows = []
    for i in range(count):
        a, b, c = 11 + (i * 37) % 900, 3 + (i * 53) % 97, 2 + i % 9
        kind = i % 4
        if kind == 0:
            question, answer = f"What is {a} + {b}?", a + b
        elif kind == 1:
            question, answer = f"What is {a} - {b}?", a - b
        elif kind == 2:
            question, answer = f"What is {b} * {c}?", b * c
        else:
            question, answer = f"What is {a} + {b} * {c}?", a + b * c
        rows.append(
            {
                "qid": f"q{i:05d}",
                "question": question,
                "answer": str(answer),
                "difficulty": ("easy", "medium", "hard")[i % 3],
            }
        )
    return rows


def write_items(path: Path, count: int) -> list[dict[str, str]]:
    rows = arith_items(count)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return rows


def write_study(
    root: Path,
    *,
    items: int,
    models: list[str],
    prompts: list[str] | None = None,
    model_configs: list[dict[str, Any]] | None = None,
    replications: int = 1,
    scorer: str | None = "numeric",
    grader: bool = False,
    cache: bool = False,
    study: str = "bench",
) -> Path:
    """A study config in `root` over a fresh dataset of `items` arithmetic questions;
    returns its path."""
    write_items(root / "data" / "arith.jsonl", items)
    configs = model_configs or [{"name": "default"}]
    lines = [
        f"study: {study}",
        "output_dir: studies",
        f"cache: {'true' if cache else 'false'}",
        "benchmark:",
        "  adapter: local",
        "  datasets:",
        "    - id: data/arith.jsonl",
        "  mapping: {input: question, target: answer, id: qid, metadata: [difficulty]}",
        "solvers:",
        f"  models: {json.dumps(models)}",
        "  temperature: 0.7",
        "  max_tokens: 256",
        "facets:",
        f"  prompt: {json.dumps(prompts or ['builtin:minimal'])}",
        f"  model_config: {json.dumps(configs)}",
        f"  replications: {replications}",
    ]
    if scorer:
        lines.append(f"  scorer: {scorer}")
    if grader:
        lines += [
            "  grader: [judge]",
            "  rubric: ['builtin:standard']",
            "graders:",
            "  judge: {model: itemeval/judge, max_tokens: 256}",
        ]
    lines += ["budget:", "  confirm_above_usd: null"]
    config = root / "study.yaml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def write_grid_study(root: Path, **options: Any) -> Path:
    """The 24,000-cell study: 2 models × 2 prompts × 2 model configs × 1,000 items ×
    3 replications."""
    return write_study(
        root,
        items=1_000,
        models=["itemeval/arith-good", "itemeval/arith-weak"],
        prompts=["builtin:minimal", "builtin:standard"],
        model_configs=[{"name": "default"}, {"name": "cold", "temperature": 0.0}],
        replications=3,
        **options,
    )


def study_dir(root: Path, study: str = "bench") -> Path:
    return root / "studies" / study


# ---- running a command
# ---------------------------------------------------------------------------------


@dataclass
class Run:
    """A finished subprocess: wall seconds, peak memory and what it printed."""

    returncode: int
    wall_s: float
    peak_rss_mb: float  # largest sum of RSS over the process tree, sampled every 50 ms
    maxrss_mb: (
        float  # the kernel's max RSS of the process (wait4), the largest single process
    )
    cpu_s: (
        float  # user + system CPU seconds of the process and the children it waited for
    )
    stdout: str
    stderr: str

    def check(self, what: str) -> Run:
        if self.returncode != 0:
            raise RuntimeError(
                f"{what} exited {self.returncode}\n--- stdout\n{self.stdout[-3000:]}\n"
                f"--- stderr\n{self.stderr[-3000:]}"
            )
        return self


SETTLED_S = 0.2


def _settled(process: psutil.Process, first_seen: dict[tuple, float]) -> bool:
    """A child counts once this poller has seen it for 0.2 s. inspect spawns helpers
    such as `git rev-parse` by fork or vfork, and until its exec such a child shares
    the parent's pages and reports the parent's whole RSS: once a phantom 320 MB on a
    single-process generate's peak. Shards and Ray workers live for seconds. The age
    is timed here, not read from the process's start time, which psutil dates from a
    boot time in whole seconds (a child born now can look a second old)."""
    now = time.monotonic()
    key = (process.pid, process.create_time())  # a pid used again is a new child
    return now - first_seen.setdefault(key, now) >= SETTLED_S


def _poll_tree(pid: int, peak: list[float], done: threading.Event) -> None:
    try:
        proc = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    first_seen: dict[tuple, float] = {}
    while not done.is_set():
        total = 0
        try:
            for p in [proc, *proc.children(recursive=True)]:
                with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                    if p is proc or _settled(p, first_seen):
                        total += p.memory_info().rss
        except psutil.NoSuchProcess:
            return
        peak[0] = max(peak[0], total)
        done.wait(0.05)


def run(
    args: list[str], *, env: dict[str, str], cwd: Path, memory: bool = False
) -> Run:
    """Run `args`, timing the whole command (interpreter start-up included)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        peak = [0.0]
        done = threading.Event()
        start = time.perf_counter()
        proc = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL
        )
        poller = (
            threading.Thread(
                target=_poll_tree, args=(proc.pid, peak, done), daemon=True
            )
            if memory
            else None
        )
        if poller:
            poller.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        if poller:
            poller.join()
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return Run(
            proc.returncode,
            wall,
            peak[0] / 2**20,
            usage.ru_maxrss / 1024,
            cpu,
            out.read(),
            err.read(),
        )


def itemeval(
    command: str,
    config: Path,
    *extra: str,
    root: Path,
    memory: bool = False,
    env: dict[str, str] | None = None,
) -> Run:
    """`itemeval COMMAND CONFIG --display none ...` in `root`, with `--yes` so the
    spend gate never asks."""
    args = [ITEMEVAL, command, str(config), "--display", "none", "--yes", *extra]
    return run(args, env=env or bench_env(root), cwd=root, memory=memory).check(
        f"itemeval {command}"
    )


def python_script(
    script: Path,
    *args: str,
    root: Path,
    env: dict[str, str] | None = None,
    memory: bool = False,
) -> Run:
    return run(
        [PYTHON, str(script), *args],
        env=env or bench_env(root),
        cwd=root,
        memory=memory,
    ).check(script.name)


def log_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.eval"))


def eval_sample_count(path: Path) -> int:
    """How many sample transcripts one .eval log holds (its `samples/*.json`
    members)."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return sum(1 for name in archive.namelist() if name.startswith("samples/"))


def assert_transcripts(logs: Path, expected: int, what: str) -> None:
    """The .eval logs in `logs` together hold `expected` sample transcripts (itemeval
    writes one log per batch)."""
    logged = sum(eval_sample_count(log) for log in logs.glob("*.eval"))
    assert logged == expected, (
        f"{what}: the .eval logs in {logs} hold {logged} of {expected} sample "
        "transcripts"
    )


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- stored solutions written straight into a study's store
# --------------------------------------------

_OPENERS = (
    "Let me work through this.",
    "I'll solve it step by step.",
    "Breaking the problem down:",
    "Let's compute carefully.",
)


def solution_text(question: str, target: str, key: int) -> str:
    """A realistic solver reply: a few reasoning lines and a final `ANSWER:` line,
    right ~80% of the time."""
    value = int(target) if key % 5 else int(target) + (1 if key % 2 else -10)
    expression = question.removeprefix("What is ").rstrip("?")
    lines = [
        _OPENERS[key % len(_OPENERS)],
        f"The question asks for {expression}, so I evaluate it from left to "
        "right, multiplication first.",
        f"Step 1: {expression} = {value}",
    ]
    if key % 3 == 0:
        lines.append(f"Checking the last step again gives {value}.")
    return "\n".join([*lines, f"ANSWER: {value}"])


def write_solutions(config: Path, root: Path) -> int:
    """Fill the study's items and solutions stores for every cell of its generate grid;
    returns the rows written.

    The rows look like what `itemeval generate` writes (ids from `load_study`, one row
    per condition × item × replication), built as arrow tables so 100,000 rows take
    seconds rather than minutes.
    """
    from datetime import datetime, timezone

    import pyarrow as pa

    from itemeval.hashing import text_hash
    from itemeval.store import upsert
    from itemeval.store.items import item_row
    from itemeval.store.schemas import SOLUTIONS
    from itemeval.study.load import load_study

    study = load_study(config, root)
    upsert(study.paths, "items", [item_row(item) for item in study.items])
    created = datetime(2026, 1, 1, tzinfo=timezone.utc)
    written = 0
    for number, condition in enumerate(study.generate):
        cells = [
            (item, epoch)
            for item in study.items
            for epoch in range(1, study.replications + 1)
        ]
        texts = [
            solution_text(item.input, item.target, number * 7919 + i)
            for i, (item, _) in enumerate(cells)
        ]
        count = len(cells)
        columns: dict[str, Any] = {
            "condition_id": [condition.id] * count,
            "condition_slug": [condition.slug] * count,
            "item_id": [item.id for item, _ in cells],
            "dataset_id": [item.dataset_id for item, _ in cells],
            "dataset_revision": [item.dataset_revision for item, _ in cells],
            "epoch": [epoch for _, epoch in cells],
            "model": [condition.model] * count,
            "prompt_name": [condition.prompt.ref] * count,
            "prompt_hash": [condition.prompt.hash] * count,
            "model_config_name": [condition.model_config_name] * count,
            "temperature": [condition.params.get("temperature")] * count,
            "max_tokens": [condition.params.get("max_tokens")] * count,
            "solution": texts,
            "solution_hash": [text_hash(text) for text in texts],
            "blank": [False] * count,
            "stop_reason": ["stop"] * count,
            "input_tokens": [40] * count,
            "output_tokens": [len(text) // 4 for text in texts],
            "usd": [0.0001] * count,
            "cache_hit": [False] * count,
            "latency_s": [0.01] * count,
            "run_id": ["bench-build"] * count,
            "created_at": [created] * count,
        }
        table = pa.table(
            {
                field.name: pa.array(columns[field.name], field.type)
                if field.name in columns
                else pa.nulls(count, field.type)
                for field in SOLUTIONS
            },
            schema=SOLUTIONS,
        )
        written += upsert(study.paths, "solutions", table)
    return written


def remove_store(study: Path, store: str) -> None:
    """Delete a store (its link and version directories) so the next command starts
    it afresh."""
    (study / f"{store}.parquet").unlink(missing_ok=True)
    shutil.rmtree(study / f".{store}.versions", ignore_errors=True)


def snapshot(study: Path, dest: Path) -> None:
    """Copy a study dir, keeping the stores' relative links."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(study, dest, symlinks=True)


def restore(snapshot_dir: Path, study: Path) -> None:
    shutil.rmtree(study, ignore_errors=True)
    shutil.copytree(snapshot_dir, study, symlinks=True)
