"""Measures the Delta Lake store on a loopback S3 (moto): a 10,000-row commit into 1M
rows, and a snapshot.

Run: `.venv/bin/python benchmarks/bench_delta.py` (a few minutes, ~2 GB of memory;
nothing leaves 127.0.0.1). Builds a 1,000,000-row solutions table (50 conditions = 50
partitions, short texts) on a moto server run as its own process, then times
`upsert_delta` of 10,000 rows (half new keys, half rewritten ones) spread over every
condition, and over one condition, then `publish_snapshot`. Prints one JSON line of
figures; the figures are reported, not held to targets.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from common import BIN, Result, report, say

from itemeval.store.delta import open_delta, read_delta, upsert_delta
from itemeval.store.remote import storage_options_for
from itemeval.store.snapshot import publish_snapshot
from itemeval.store.table import coerce_rows

CONDITIONS, ITEMS, EPOCHS = 50, 4_000, 5  # 20,000 rows per condition, 1,000,000 in all
BATCH = 10_000
BUCKET = "studies"
_RNG = np.random.default_rng(7)


def condition_id(n: int) -> str:
    return f"model-{n % 7}_builtin-minimal_cfg-{n}--{n:012x}"


def solution_rows(
    conditions: np.ndarray, items: np.ndarray, epochs: np.ndarray, run_id: str
) -> pa.Table:
    """Solution rows for each (condition, item, epoch) given column-wise, with short
    texts so 1M rows fit in memory."""
    count = len(items)
    condition = np.array([condition_id(n) for n in range(CONDITIONS)], dtype=object)[
        conditions
    ]
    item_ids = pa.array(np.char.add("arith:", items.astype(str)))
    out = _RNG.integers(50, 400, count)
    answer = pc.binary_join_element_wise(
        pa.array(np.full(count, "the answer is")), pa.array(out.astype(str)), " "
    )
    return coerce_rows(
        "solutions",
        pa.table(
            {
                "condition_id": pa.array(condition),
                "condition_slug": pa.array(
                    np.char.add("slug-", (conditions % 7).astype(str))
                ),
                "item_id": item_ids,
                "dataset_id": pa.array(["data/arith.jsonl"] * count),
                "epoch": pa.array(epochs),
                "model": pa.array(["openai/model"] * count),
                "prompt_name": pa.array(["builtin:minimal"] * count),
                "temperature": pa.array(np.full(count, 0.7)),
                "max_tokens": pa.array(np.full(count, 1024)),
                "solution": answer,
                "solution_hash": pc.utf8_slice_codeunits(answer, 0, 16),
                "stop_reason": pa.array(["stop"] * count),
                "input_tokens": pa.array(out + 80),
                "output_tokens": pa.array(out),
                "usd": pa.array(out * 1.6e-6),
                "latency_s": pa.array(_RNG.gamma(2.0, 0.8, count)),
                "run_id": pa.array([run_id] * count),
                "created_at": pa.array(
                    np.full(count, datetime(2025, 1, 1, tzinfo=timezone.utc)),
                    pa.timestamp("us", "UTC"),
                ),
            }
        ),
    )


def full_table() -> pa.Table:
    per_condition = ITEMS * EPOCHS
    conditions = np.repeat(np.arange(CONDITIONS), per_condition)
    items = np.tile(np.repeat(np.arange(ITEMS), EPOCHS), CONDITIONS)
    epochs = np.tile(np.arange(1, EPOCHS + 1), CONDITIONS * ITEMS)
    return solution_rows(conditions, items, epochs, "build")


def batch(conditions: list[int], n: int, run_id: str) -> pa.Table:
    """BATCH rows over `conditions`: half rewrite existing keys, half are keys no
    commit wrote before."""
    per = BATCH // len(conditions)
    half = per // 2
    old = _RNG.choice(
        ITEMS * EPOCHS, (len(conditions), half)
    )  # a key index: item * EPOCHS + epoch - 1
    new_items = ITEMS + n * BATCH + np.arange(per - half)
    items = np.concatenate([np.concatenate([row // EPOCHS, new_items]) for row in old])
    epochs = np.concatenate(
        [
            np.concatenate([row % EPOCHS + 1, np.ones(per - half, dtype=np.int64)])
            for row in old
        ]
    )
    return solution_rows(np.repeat(np.array(conditions), per), items, epochs, run_id)


@contextmanager
def moto_server() -> Iterator[str]:
    """A moto S3 server in its own process on 127.0.0.1 (so it does not share our
    GIL); yields its endpoint."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def measure(
    study: str, repeats: int
) -> tuple[dict[str, float], list[float], list[float]]:
    """Build the 1M-row table, then time the commits and the snapshot; returns
    figures and each commit's seconds."""
    uri = f"{study}/solutions"
    options = storage_options_for(uri)
    build_s, rows = timed(full_table)
    say(f"built {rows.num_rows:,} rows in memory in {build_s:.1f} s")
    create_s, _ = timed(
        lambda: upsert_delta(uri, "solutions", rows, storage_options=options)
    )
    say(f"created the table in {create_s:.1f} s")
    every = list(range(CONDITIONS))
    spread = [
        timed(
            lambda n=n: upsert_delta(
                uri, "solutions", batch(every, n, f"spread{n}"), storage_options=options
            )
        )[0]
        for n in range(repeats)
    ]
    say(
        f"10k rows over {CONDITIONS} conditions: "
        f"{', '.join(f'{s:.1f}' for s in spread)} s"
    )
    focused = [
        timed(
            lambda n=n: upsert_delta(
                uri,
                "solutions",
                batch([n % CONDITIONS], repeats + n, f"one{n}"),
                storage_options=options,
            )
        )[0]
        for n in range(repeats)
    ]
    say(f"10k rows into one condition: {', '.join(f'{s:.1f}' for s in focused)} s")
    snapshot_s, document = timed(
        lambda: publish_snapshot(study, ["solutions"], storage_options=options)
    )
    read_s, table = timed(
        lambda: read_delta(
            uri,
            "solutions",
            ["condition_id", "item_id", "epoch"],
            storage_options=options,
        )
    )
    return (
        {
            "rows": table.num_rows,
            "partitions": CONDITIONS,
            "batch_rows": BATCH,
            "versions": open_delta(uri, options).version() + 1,
            "create_s": round(create_s, 2),
            "upsert_10k_all_conditions_s": round(statistics.median(spread), 2),
            "upsert_10k_one_condition_s": round(statistics.median(focused), 2),
            "publish_snapshot_s": round(snapshot_s, 2),
            "snapshot_rows": document["stores"]["solutions"]["rows"],
            "read_keys_s": round(read_s, 2),
        },
        spread,
        focused,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed commits of each kind"
    )
    args = parser.parse_args(argv)
    with moto_server() as endpoint:
        os.environ.update(
            AWS_ACCESS_KEY_ID="testing",
            AWS_SECRET_ACCESS_KEY="testing",
            AWS_DEFAULT_REGION="us-east-1",
            AWS_ENDPOINT_URL=endpoint,
            AWS_EC2_METADATA_DISABLED="true",
        )
        import boto3

        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        figures, spread, focused = measure(f"s3://{BUCKET}/bench/demo", args.repeats)
    print(json.dumps(figures), flush=True)
    return report(
        [
            Result(
                "delta: upsert 10k rows over 50 partitions (1M rows)",
                figures["upsert_10k_all_conditions_s"],
                "s",
                samples=spread,
            ),
            Result(
                "delta: upsert 10k rows into 1 partition (1M rows)",
                figures["upsert_10k_one_condition_s"],
                "s",
                samples=focused,
            ),
            Result(
                "delta: publish_snapshot of 1M solutions",
                figures["publish_snapshot_s"],
                "s",
            ),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
