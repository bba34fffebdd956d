"""How long a paid reply is exposed to a SIGKILL: from the moment the provider writes
it to the moment its row is in the journal (issue 26 case 8).

Run: `.venv/bin/python benchmarks/bench_journal.py [--connections 4 40 80]`. The
provider is the local OpenAI-compatible test server on 127.0.0.1 (one model; each
request waits a log-normal time, median 0.5 s, capped at 5 s, the same per prompt in
every run). The server stamps each reply just before writing it; a thread of this
process reads the study's journal files as they grow (every 2 ms) and stamps each row
when it first sees it; both stamps are the system's monotonic clock, shared by every
process. Reported per connection count: median, p95 and max of reply -> journal row.
The figures are reported, not held to a target: they move with the machine's load.
`--load N` starts N busy processes beside the run (the load the hostile trial saw);
the load average during the run is reported with each figure.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from common import REPO, Result, bench_env, report, say, temp_dir, write_study

sys.path.insert(0, str(REPO))
from tests.openai_server import OpenAIServer  # noqa: E402

MEDIAN_S, SIGMA, CAP_S = 0.5, 1.0, 5.0
CALLS_PER_CONNECTION = 10
POLL_S = 0.002


def latency(prompt: str) -> float:
    """A log-normal latency drawn from the prompt's hash: the same per cell in every
    run."""
    digest = hashlib.sha256(prompt.encode()).digest()
    u1 = (int.from_bytes(digest[:8], "big") + 1) / 2**64
    u2 = int.from_bytes(digest[8:16], "big") / 2**64
    normal = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    return min(CAP_S, MEDIAN_S * math.exp(SIGMA * normal))


class JournalWatcher(threading.Thread):
    """Stamps each journal row (by item id) when it is first readable on disk."""

    def __init__(self, journal: Path) -> None:
        super().__init__(daemon=True)
        self.journal = journal
        self.seen: dict[str, float] = {}
        self._offsets: dict[Path, int] = {}
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self._poll()
            time.sleep(POLL_S)
        self._poll()

    def stop(self) -> None:
        self._done.set()
        self.join()

    def _poll(self) -> None:
        try:
            files = list(self.journal.glob("*.jsonl"))
        except OSError:
            return
        for path in files:
            try:
                with open(path, "rb") as handle:
                    handle.seek(self._offsets.get(path, 0))
                    data = handle.read()
            except OSError:
                continue  # replayed and removed at the run's end
            now = time.monotonic()
            whole = data[: data.rfind(b"\n") + 1]
            self._offsets[path] = self._offsets.get(path, 0) + len(whole)
            for line in whole.splitlines():
                row = json.loads(line)["row"]
                self.seen.setdefault(row["item_id"], now)


def delays_ms(calls: list[dict[str, Any]], seen: dict[str, float], rows) -> list[float]:
    """Reply written -> row journaled, per cell whose question is unique."""
    by_question: dict[str, list[str]] = {}
    for row in rows:
        by_question.setdefault(row["question"], []).append(row["qid"])
    delays = []
    for call in calls:
        if call["status"] != 200 or call["replied"] is None:
            continue
        ids = [
            item
            for text, group in by_question.items()
            if text in call["prompt"]
            for item in group
        ]
        if len(ids) == 1 and ids[0] in seen:
            delays.append((seen[ids[0]] - call["replied"]) * 1000)
    return delays


def measure(connections: int) -> tuple[list[float], int]:
    cells = connections * CALLS_PER_CONNECTION
    with OpenAIServer(delay=latency) as server, temp_dir("journal") as root:
        config = write_study(root, items=cells, models=["openai-api/local/m"])
        text = config.read_text().replace(
            "  max_tokens: 256", f"  max_tokens: 256\n  max_connections: {connections}"
        )
        config.write_text(text)
        rows = [json.loads(line) for line in (root / "data" / "arith.jsonl").open()]
        env = bench_env(root, **server.env(), PYTHONPATH=str(REPO))
        watcher = JournalWatcher(root / "studies" / "bench" / "journal")
        watcher.start()
        command = [sys.executable, "-m", "itemeval", "generate", str(config)]
        done = subprocess.run(
            [*command, "--yes", "--json", "--display", "none"],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
        )
        watcher.stop()
        if done.returncode != 0:
            raise SystemExit(f"generate failed: {done.stderr[-2000:]}")
        return delays_ms(server.calls, watcher.seen, rows), cells


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` processes spinning on a core each, stopped after the block."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(count)
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, nargs="+", default=[4, 40, 80])
    parser.add_argument(
        "--repeats", type=int, default=1, help="accepted for run.py; one run each"
    )
    parser.add_argument(
        "--load", type=int, default=0, help="busy processes to run beside the run"
    )
    args = parser.parse_args(argv)
    results = []
    for connections in args.connections:
        with busy(args.load):
            delays, cells = measure(connections)
            load = os.getloadavg()[0]
        say(f"{connections} connections: {len(delays)} of {cells} cells matched")
        results.append(
            Result(
                f"journal: reply -> row, {connections} connections, median",
                statistics.median(delays),
                "ms",
                detail=(
                    f"p95 {percentile(delays, 0.95):.0f} ms, max {max(delays):.0f} ms,"
                    f" {len(delays)} replies, load avg {load:.1f}"
                ),
            )
        )
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
