"""`launch --engine ray`: each shard a Ray task, and one budget actor that leases
`max_usd` to the shards in chunks.

A shard task runs `itemeval generate|grade --shard K/N` as a child process, exactly as
the local engine and a SLURM array do, so a shard behaves the same wherever it runs. Ray
retries a task whose shard failed or whose node was lost (`max_retries`); the new
attempt resumes from the shard's journal parts, which must be on storage every node sees
(the study's output_dir).

The budget: the launcher starts a `BudgetBook` actor holding the cap. A shard's spend
cap starts at $0 and takes budget from the actor in chunks as its calls need it
(`RayLease`), so no shard can spend what another holds and the shards together never
pass the cap. A shard that ends settles: what it leased beyond what it spent goes back
to the pool. A shard that dies keeps its lease, so its unknown spend still counts.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from ...plan.lease import LEASE_ENV, BudgetBook, require_ray
from ...store.lease import LAUNCH_ENV, launch_id
from ...store.lock import LAUNCHER_ENV, own_token
from .shards import (
    RETRIES,
    ShardProcess,
    itemeval_command,
    shard_outcome,
    usd_arg,
)

CHUNKS_PER_SHARD = 4
"""The cap is leased in chunks of cap / (shards × this): small enough that a finished
shard leaves little unused."""


class ShardFailed(Exception):
    """A shard's process exited with a code worth a retry (not the cap, not a
    signal)."""

    def __init__(self, code: int, out: bytes, err: bytes) -> None:
        super().__init__(f"shard exited {code}")
        self.code, self.out, self.err = code, out, err

    def __reduce__(
        self,
        # raised in a Ray worker, re-raised by ray.get in the launcher
    ) -> tuple[Any, ...]:
        return ShardFailed, (self.code, self.out, self.err)


def run_shard(args: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """The body of a shard task: `itemeval <args>` as a child process; a Ray cancel
    reaches it as one SIGINT."""
    with tempfile.TemporaryDirectory(prefix="itemeval-shard-") as logs:
        proc = ShardProcess.start(
            itemeval_command(args),
            Path(logs),
            "shard",
            env={**os.environ, **env},
        )
        try:
            code, out, err = proc.wait()
        # ray.cancel: the shard stops as a single run does, keeping its calls in flight
        except KeyboardInterrupt:
            proc.proc.send_signal(signal.SIGINT)
            code, out, err = proc.wait()
    if shard_outcome(code, out, err)["retry"]:
        raise ShardFailed(code, out, err)
    return code, out, err


def run_shards(
    shards: int,
    args: list[str],
    max_usd: float | None,
    *,
    address: str | None = None,
    gpus_per_shard: float = 0.0,
) -> tuple[dict[int, dict[str, Any]], bool]:
    """Run `itemeval <args> --shard K/<shards>` as Ray tasks (joining `address`, else
    RAY_ADDRESS, else starting Ray here) and wait for all; (outcomes, whether the
    launcher was interrupted)."""
    # Ray reports a failed task attempt on the driver's stdout, which is the launcher's
    # --json document.
    with contextlib.redirect_stdout(sys.stderr):
        return _run_on_ray(
            shards, args, max_usd, address=address, gpus_per_shard=gpus_per_shard
        )


def _run_on_ray(
    shards: int,
    args: list[str],
    max_usd: float | None,
    *,
    address: str | None,
    gpus_per_shard: float,
) -> tuple[dict[int, dict[str, Any]], bool]:
    ray = require_ray()
    started_here = not ray.is_initialized()
    if started_here:
        _start_ray(ray, address or os.environ.get("RAY_ADDRESS"))
    try:
        env = {
            "RAY_ADDRESS": ray.get_runtime_context().gcs_address,
            LAUNCHER_ENV: own_token(),  # shards run under this launcher's study lock
            LAUNCH_ENV: launch_id(),  # and, on S3, under its lease
        }
        book = _budget_book(ray, max_usd, shards, env)
        task = ray.remote(run_shard).options(
            max_retries=RETRIES,
            retry_exceptions=[ShardFailed],
            num_cpus=1,
            num_gpus=gpus_per_shard,
        )
        cap_args = usd_arg(max_usd) if max_usd is not None else []
        refs = {
            k: task.remote([*args, "--shard", f"{k}/{shards}", *cap_args], env)
            for k in range(shards)
        }
        outcomes, interrupted = _wait(ray, refs)
        if book is not None:
            ray.kill(book)
        return outcomes, interrupted
    finally:
        if started_here:
            ray.shutdown()


def _start_ray(ray: Any, address: str | None) -> None:
    # Without an address Ray starts on this machine; keep it on loopback, nothing
    # else needs to reach it.
    local = (
        {} if address else {"_node_ip_address": "127.0.0.1", "include_dashboard": False}
    )
    ray.init(
        address=address,
        namespace=f"itemeval-{secrets.token_hex(4)}",
        log_to_driver=False,
        configure_logging=False,
        **local,
    )


def _budget_book(
    ray: Any, max_usd: float | None, shards: int, env: dict[str, str]
) -> Any:
    """Under a cap, the named actor the shards lease spend from (its name in `env`);
    None without one."""
    if max_usd is None:
        return None
    namespace = ray.get_runtime_context().namespace
    name = f"itemeval-budget-{secrets.token_hex(4)}"
    env[LEASE_ENV] = f"{namespace}/{name}"
    return (
        ray.remote(num_cpus=0)(BudgetBook)
        .options(name=name, namespace=namespace)
        .remote(max_usd, max_usd / (shards * CHUNKS_PER_SHARD))
    )


def _wait(ray: Any, refs: dict[int, Any]) -> tuple[dict[int, dict[str, Any]], bool]:
    outcomes: dict[int, dict[str, Any]] = {}
    interrupted = False
    for k, ref in refs.items():
        try:
            outcomes[k] = shard_outcome(*_result(ray, ref))
        except KeyboardInterrupt:
            interrupted = True
            for rest in list(refs.values()):
                ray.cancel(rest)
            for j, other in refs.items():
                if j not in outcomes:
                    outcomes[j] = shard_outcome(*_result(ray, other))
            break
    return outcomes, interrupted


def _result(ray: Any, ref: Any) -> tuple[int, bytes, bytes]:
    try:
        return ray.get(ref)
    except (
        ShardFailed
    ) as exc:  # every attempt failed; its last words go into the run's notes
        return exc.code, exc.out, exc.err
    except ray.exceptions.TaskCancelledError:
        return 128 + signal.SIGINT, b"", b"cancelled"
    except (
        ray.exceptions.RayError
    ) as exc:  # the worker or its node was lost on every attempt
        return 1, b"", str(exc).encode()
