"""Measures store upserts and the planner's read at 10k and 1M solution rows, and checks
the scale ratios.

Run: `.venv/bin/python benchmarks/bench_store.py` (about a minute, ~1 GB of temp disk,
removed at the end). Exit status 1 when a target is missed: upsert at 1M rows more than
3x slower than at 10k rows, or the planner's read of 1M rows slower than 2 s.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from itemeval.paths import StudyPaths
from itemeval.store import read_store, upsert
from itemeval.store.schemas import SOLUTIONS

ITEMS, EPOCHS = 2_000, 5  # 10,000 rows per condition
BIG_CONDITIONS, SMALL_CONDITIONS = 100, 1
BATCH = 1_000
REPEATS = 5
WORDS_PER_SOLUTION = 260  # ~1.5 KB of text
PLANNER_COLUMNS = [
    "condition_id",
    "item_id",
    "epoch",
    "error",
    "stop_reason",
    "solution_hash",
]
MAX_RATIO, MAX_PLANNER_S = 3.0, 2.0

_RNG = np.random.default_rng(42)
_VOCAB = pa.array(
    [
        "the",
        "answer",
        "is",
        "therefore",
        "we",
        "compute",
        "sum",
        "of",
        "each",
        "term",
        "so",
        "step",
        "first",
        "then",
        "multiply",
        "divide",
        "carry",
        "digit",
        "result",
        "check",
        "ANSWER:",
        "=",
        "+",
        "x",
        "and",
        "gives",
    ]
    + [f"{n}" for n in range(200)]
    + [f"w{n:04x}" for n in range(3000)]
)


def condition_id(n: int) -> str:
    return f"model-{n % 7}_builtin-minimal_cfg-{n}--{n:012x}"


def texts(count: int) -> pa.Array:
    """`count` distinct, word-like texts of ~1.5 KB, made in arrow so building 1M
    rows stays fast."""
    words = pa.array(_RNG.integers(0, len(_VOCAB), count * WORDS_PER_SOLUTION))
    offsets = pa.array(
        np.arange(0, count * WORDS_PER_SOLUTION + 1, WORDS_PER_SOLUTION, dtype=np.int32)
    )
    return pc.binary_join(pa.ListArray.from_arrays(offsets, _VOCAB.take(words)), " ")


def solution_rows(condition: int, items: range, epochs: range, run_id: str) -> pa.Table:
    """Plausible solution rows for every (item, epoch) of one condition, every schema
    column filled."""
    item_ids = np.repeat(
        np.array([f"arith:{i}" for i in items], dtype=object), len(epochs)
    )
    count = len(item_ids)
    out = _RNG.integers(50, 400, count)
    inp = _RNG.integers(80, 300, count)
    errored = _RNG.random(count) < 0.01
    solution = pc.if_else(pa.array(errored), pa.nulls(count, pa.string()), texts(count))
    columns = {
        "condition_id": [condition_id(condition)] * count,
        "condition_slug": [f"model-{condition % 7}_minimal"] * count,
        "item_id": item_ids,
        "dataset_id": ["data/arith.jsonl"] * count,
        "dataset_revision": ["sha256:" + "ab" * 32] * count,
        "epoch": np.tile(np.array(list(epochs)), len(items)),
        "model": [f"openai/model-{condition % 7}"] * count,
        "prompt_name": ["builtin:minimal"] * count,
        "prompt_hash": ["cd" * 32] * count,
        "model_config_name": ["default"] * count,
        "temperature": [0.7] * count,
        "top_p": [None] * count,
        "max_tokens": [1024] * count,
        "seed": [None] * count,
        "reasoning_effort": [None] * count,
        "reasoning_budget": [None] * count,
        "effective_temperature": [0.7] * count,
        "effective_max_tokens": [1024] * count,
        "effective_config": ['{"max_tokens":1024,"temperature":0.7}'] * count,
        "solution": solution,
        "solution_hash": pc.utf8_slice_codeunits(
            pc.binary_join_element_wise(pa.array(item_ids), solution, "|"), 0, 16
        ),
        "stop_reason": np.where(out > 390, "max_tokens", "stop"),
        "error": pc.if_else(pa.array(errored), "HTTP 429", None),
        "input_tokens": inp,
        "output_tokens": out,
        "total_tokens": inp + out,
        "cache_read_tokens": [0] * count,
        "cache_write_tokens": [0] * count,
        "reasoning_tokens": [0] * count,
        "usd": (inp * 0.4 + out * 1.6) / 1e6,
        "blank": [False] * count,
        "cache_hit": [False] * count,
        "latency_s": _RNG.gamma(2.0, 0.8, count),
        "run_id": [run_id] * count,
        "log_file": [f"logs/generate/{run_id}.eval"] * count,
        "sample_uuid": [f"{condition}-{i}" for i in range(count)],
        "created_at": [datetime(2025, 1, 1, tzinfo=timezone.utc)] * count,
    }
    return pa.table(
        {name: columns.get(name, pa.nulls(count)) for name in SOLUTIONS.names}
    )


def build_store(root: Path, conditions: int) -> StudyPaths:
    paths = StudyPaths(root)
    for condition in range(conditions):
        upsert(
            paths,
            "solutions",
            solution_rows(condition, range(ITEMS), range(1, EPOCHS + 1), "build"),
        )
    return paths


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_upserts(paths: StudyPaths, batches) -> float:
    return statistics.median(
        timed(lambda batch=batch: upsert(paths, "solutions", batch))
        for batch in batches
    )


def measure(paths: StudyPaths, conditions: int) -> dict[str, float]:
    """Median seconds per 1,000-row upsert (new keys, overwritten keys) and for the
    planner's read."""
    new_condition = [
        solution_rows(10_000 + n, range(200), range(1, 6), "new")
        for n in range(REPEATS)
    ]
    new_epoch = [
        solution_rows(
            0,
            range(n * 200, n * 200 + 1000),
            range(EPOCHS + 1 + n, EPOCHS + 2 + n),
            "more",
        )
        for n in range(REPEATS)
    ]
    overwrite = [
        solution_rows(
            n % conditions, range(n * 200, n * 200 + 200), range(1, 6), f"redo{n}"
        )
        for n in range(REPEATS)
    ]
    read = lambda: read_store(paths, "solutions", PLANNER_COLUMNS)  # noqa: E731
    return {
        "upsert 1k new keys, new condition": median_upserts(paths, new_condition),
        "upsert 1k new keys, existing condition": median_upserts(paths, new_epoch),
        "upsert 1k overwritten keys": median_upserts(paths, overwrite),
        "planner read (6 light columns)": statistics.median(
            timed(read) for _ in range(3)
        ),
        "planner read, 5 conditions": statistics.median(
            timed(
                lambda: read_store(
                    paths,
                    "solutions",
                    PLANNER_COLUMNS,
                    where={"condition_id": [condition_id(n) for n in range(5)]},
                )
            )
            for _ in range(3)
        ),
    }


def report(
    small: dict[str, float], big: dict[str, float], rows: tuple[int, int]
) -> bool:
    print(f"\n{'operation':42} {rows[0]:>10,} rows {rows[1]:>10,} rows   ratio")
    for name in small:
        ratio = big[name] / small[name]
        print(
            f"{name:42} {small[name] * 1000:11.1f} ms {big[name] * 1000:11.1f} "
            f"ms  {ratio:5.2f}x"
        )
    upserts = [name for name in small if name.startswith("upsert")]
    worst = max(big[name] / small[name] for name in upserts)
    ok = worst <= MAX_RATIO and big["planner read (6 light columns)"] <= MAX_PLANNER_S
    print(
        f"\nworst upsert ratio {worst:.2f}x (target <= {MAX_RATIO}x); planner "
        f"read at {rows[1]:,} rows "
        f"{big['planner read (6 light columns)']:.2f} s (target <= "
        f"{MAX_PLANNER_S} s): {'OK' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="itemeval-bench-"))
    try:
        started = time.perf_counter()
        small = build_store(root / "small", SMALL_CONDITIONS)
        big = build_store(root / "big", BIG_CONDITIONS)
        size = sum(path.stat().st_size for path in big.solutions.iterdir()) / 1e6
        print(
            f"built stores of {SMALL_CONDITIONS * ITEMS * EPOCHS:,} and "
            f"{BIG_CONDITIONS * ITEMS * EPOCHS:,} rows "
            f"in {time.perf_counter() - started:.1f} s ({size:,.0f} MB on disk "
            "for the big one)"
        )
        rows = (
            read_store(small, "solutions", ["epoch"]).num_rows,
            read_store(big, "solutions", ["epoch"]).num_rows,
        )
        ok = report(
            measure(small, SMALL_CONDITIONS), measure(big, BIG_CONDITIONS), rows
        )
        print(f"total {time.perf_counter() - started:.1f} s")
        return 0 if ok else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
