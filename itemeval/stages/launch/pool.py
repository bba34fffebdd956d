"""`launch --engine local`: the shards as a pool of processes on this machine, each
retried once if it fails.

Shards run in sessions of their own, so a terminal's Ctrl-C reaches only the launcher,
which passes one SIGINT on: each shard then stops the way a single generate does (no
new call, calls in flight kept). Each attempt's stdout and stderr stay in the
launch's logs (`shard-K-of-N-attempt-A.out|err`).
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any, Callable

from .shards import RETRIES, ShardProcess, itemeval_command, shard_outcome, usd_arg


def _command(args: list[str], index: int, shards: int, cap: float | None) -> list[str]:
    return itemeval_command(
        [
            *args,
            "--shard",
            f"{index}/{shards}",
            *(usd_arg(cap) if cap is not None else []),
        ]
    )


def run_pool(
    args: list[str],
    shards: int,
    caps: dict[int, float | None],
    logs: Path,
    tell: Callable[[str], None] | None,
) -> tuple[dict[int, dict[str, Any]], bool]:
    """Start every shard (`itemeval ARGS --shard K/N`, with its cap), wait for all,
    retry a failed one; (outcomes, whether the launcher was interrupted)."""
    tries = dict.fromkeys(caps, 0)
    earlier: dict[int, list[str]] = {}  # why each retried shard's attempts ended

    def start(k: int) -> ShardProcess:
        name = f"shard-{k}-of-{shards}-attempt-{tries[k] + 1}"
        return ShardProcess.start(_command(args, k, shards, caps[k]), logs, name)

    procs = {k: start(k) for k in caps}
    outcomes: dict[int, dict[str, Any]] = {}
    try:
        while procs:
            k, proc = next(iter(procs.items()))
            outcome = shard_outcome(*proc.wait())
            del procs[k]
            if not (outcome["retry"] and tries[k] < RETRIES):
                outcomes[k] = {**outcome, "earlier": earlier.get(k, [])}
                continue
            tries[k] += 1
            earlier.setdefault(k, []).append(outcome["message"])
            if tell is not None:
                tell(
                    f"shard {k}/{shards} failed "
                    f"({outcome['message']}); running it again"
                )
            procs[k] = start(k)
    except KeyboardInterrupt:
        return {**outcomes, **_interrupt(procs)}, True
    return outcomes, False


def _interrupt(procs: dict[int, ShardProcess]) -> dict[int, dict[str, Any]]:
    """One SIGINT passed on to every running shard; their outcomes once they
    stopped."""
    for proc in procs.values():
        proc.proc.send_signal(signal.SIGINT)
    return {k: shard_outcome(*proc.wait()) for k, proc in procs.items()}
