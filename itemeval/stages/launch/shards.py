"""What a launcher makes of its shard processes, whatever runs them: their exit,
their cap argument, their retries."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import json
import math
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ...errors import EXIT_BUDGET
from ...store.lease import LAUNCH_ENV, launch_id
from ...store.lock import LAUNCHER_ENV, own_token

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
SIGNALLED = {128 + number for number in STOP_SIGNALS}
"""Exit codes of a shard stopped by a signal: it is not retried."""
RETRIES = 1
"""A shard that fails (not stopped by the cap or a signal) runs once more; it resumes
from its journal parts."""


_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
"""The directory this itemeval package was imported from (this file is
`itemeval/stages/launch/shards.py`)."""
_START = (
    "import sys; sys.path[0] = {root!r}; import runpy; "
    "runpy.run_module('itemeval', run_name='__main__', alter_sys=True)"
)


def itemeval_command(args: list[str]) -> list[str]:
    """`python -m itemeval ARGS` that runs this very package, whatever the working
    directory.

    `-m` and `-c` put the working directory first on the import path, so a folder named
    `itemeval` there (a clone, launched from its parent) would shadow the package (issue
    26). The child replaces that entry with the directory the launcher's own package
    came from.
    """
    return [sys.executable, "-c", _START.format(root=_PACKAGE_ROOT), *args]


def usd_arg(cap: float) -> list[str]:
    # Rounded down, so the parts never add up to more than the cap.
    return ["--max-usd", f"{math.floor(cap * 1e8) / 1e8:.8f}"]


def shard_outcome(code: int, out: bytes, err: bytes) -> dict[str, Any]:
    try:
        data = json.loads(out)
    except ValueError:
        data = {}
    message = failure_reason(code, err)
    if code != 0 and data.get("outcome") == "completed" and data.get("exit_code") == 0:
        # its summary is written, so its rows were safe: the launcher's Ctrl-C only
        # caught it exiting (Python then dies of the signal, -2)
        code = 0
    stopped = code == EXIT_BUDGET or code in SIGNALLED or -code in STOP_SIGNALS
    return {
        "code": code,
        "data": data,
        "message": message,
        "retry": code != 0 and not stopped,
    }


def failure_reason(code: int, err: bytes) -> str:
    """Why a shard's process ended: the signal that killed it (a SIGKILL leaves no
    message of its own, and the last line of its stderr is then only the last thing
    it printed), else its last `error:` line, else its last line, with the exit
    code."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    lines = err.decode(errors="replace").strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    last = (errors or lines or [""])[-1][:300]
    return f"{last} (exit {code})" if last else f"exit {code}"


_PR_SET_PDEATHSIG = 1


@functools.cache
def _libc() -> ctypes.CDLL:
    # find_library runs ldconfig: once
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def stop_with_parent(parent: int) -> Callable[[], None] | None:
    """A `preexec_fn` that makes a shard process get SIGTERM when its launcher dies
    (Linux).

    Shards run in sessions of their own (a terminal's Ctrl-C reaches only the launcher),
    so a launcher killed with its process group, or by the OOM killer, would otherwise
    leave them running: still paying, with the run lease gone. SIGTERM stops a shard the
    way Ctrl-C does: no new call, its calls in flight kept.
    """
    if not sys.platform.startswith("linux"):
        return None
    libc = _libc()

    def arm() -> None:  # runs in the child between fork and exec
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        # the launcher died before the line above: nobody would send it
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return arm


@dataclass
class ShardProcess:
    """A shard's process, its stdout and stderr going to files rather than pipes: a
    shard whose launcher died (it then gets SIGTERM) must be able to say so and stop,
    and a write into a pipe nobody reads would fail."""

    proc: subprocess.Popen
    out: Path
    err: Path

    @classmethod
    def start(
        cls, argv: list[str], logs: Path, name: str, env: dict[str, str] | None = None
    ) -> ShardProcess:
        logs.mkdir(parents=True, exist_ok=True)
        out, err = logs / f"{name}.out", logs / f"{name}.err"
        # the shard runs under its launcher's study lock (store/lock.py shard_lock)
        # and, on S3, its lease (store/lease.py check_lease)
        env = dict(os.environ if env is None else env)
        env.setdefault(LAUNCHER_ENV, own_token())
        env.setdefault(LAUNCH_ENV, launch_id())
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            proc = subprocess.Popen(
                argv,
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                preexec_fn=stop_with_parent(os.getpid()),
            )
        return cls(proc, out, err)

    def wait(self) -> tuple[int, bytes, bytes]:
        """(exit code, stdout, stderr) once the shard has ended."""
        code = self.proc.wait()
        return code, self.out.read_bytes(), self.err.read_bytes()
