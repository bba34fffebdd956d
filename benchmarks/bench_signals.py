"""Requests after a signal, logged at the transport (issue 49 case 7).

Run: `.venv/bin/python benchmarks/bench_signals.py [--connections 20 80] [--load 8]`.
A generate at N connections against the local OpenAI-compatible server (each call
2 s; the stdlib server's listen backlog of 5 makes most connects wait for a TCP
retransmission) gets SIGTERM once 5 requests arrived. The command, with
ITEMEVAL_SEND_LOG, logs each request's last check before its headers are written
(`sent`) and the moment it saw the stop (`stop`), on the machine's monotonic clock.
Reported per run: requests that passed the check after the stop (must be 0), how long
after the kill the command saw it, and how many requests reached the server's kernel
after the kill (each written before the command saw it). `--load N` starts N busy
processes beside it.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

from bench_journal import busy
from common import REPO, Result, bench_env, report, say, temp_dir, write_study

sys.path.insert(0, str(REPO))
from tests.openai_server import OpenAIServer  # noqa: E402

CALL_S = 2.0


def measure(connections: int) -> dict[str, float]:
    with OpenAIServer(delay=CALL_S) as server, temp_dir("signals") as root:
        config = write_study(root, items=3 * connections, models=["openai-api/local/m"])
        text = config.read_text().replace(
            "  max_tokens: 256",
            f"  max_tokens: 256\n  max_connections: {connections}\n  max_retries: 0",
        )
        config.write_text(text)
        log = root / "sends.log"
        env = bench_env(
            root, **server.env(), PYTHONPATH=str(REPO), ITEMEVAL_SEND_LOG=str(log)
        )
        command = [sys.executable, "-m", "itemeval", "generate", str(config)]
        proc = subprocess.Popen(
            [*command, "--yes", "--display", "none"],
            env=env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while len(server.calls) < 5 and proc.poll() is None:
            time.sleep(0.02)
        killed = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=300)
        arrivals = [c["body"]["_received"] for c in server.calls]
        events = [line.split() for line in log.read_text().splitlines()]
    stop = min(float(t) for kind, t in events if kind == "stop")
    sent = [float(t) for kind, t in events if kind == "sent"]
    return {
        "after_stop": sum(t > stop for t in sent),
        "seen_after_s": stop - killed,
        "late": sum(t > killed for t in arrivals),
        "latest_s": max(arrivals) - killed,
        "requests": len(arrivals),
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, nargs="+", default=[20, 80])
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    results = []
    for connections in args.connections:
        for _ in range(args.repeats):
            with busy(args.load):
                got = measure(connections)
            say(f"{connections} connections: {got}")
            results.append(
                Result(
                    f"signals: requests past the stop, {connections} connections",
                    got["after_stop"],
                    "requests",
                    limit=0,
                    detail=(
                        f"stop seen {got['seen_after_s'] * 1000:.0f} ms after the "
                        f"kill; {got['late']} of {got['requests']} requests reached "
                        f"the server after the kill (latest +"
                        f"{got['latest_s'] * 1000:.0f} ms); load avg {got['load']:.1f}"
                    ),
                )
            )
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
