"""What a new user meets first (issue 34): output width through a pipe, credentials checked before any
work, the hint for re-drawing parse failures, and help text without internals."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from itemeval.cli import main
from tests.helpers import base_config, write_study

LONG = "a-prompt-with-a-rather-long-name-for-piped-output"


def long_study(root: Path) -> Path:
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__prompt": [LONG],
        }
    )
    path = write_study(root, config)
    (root / "prompts" / f"{LONG}.md").write_text("Q: {input}\nEnd with ANSWER: <n>.")
    return path


def piped(argv: list[str], *, terminal_columns: int | None, **env: str) -> str:
    """stdout of `itemeval ARGV` into a pipe; stderr a pty that wide (or a pipe too when None)."""
    env = {**{k: v for k, v in os.environ.items() if k != "COLUMNS"}, **env}
    if terminal_columns is None:
        stderr = subprocess.PIPE
    else:
        parent, stderr = pty.openpty()
        size = struct.pack("HHHH", 40, terminal_columns, 0, 0)
        fcntl.ioctl(stderr, termios.TIOCSWINSZ, size)
    proc = subprocess.run(
        [sys.executable, "-m", "itemeval", *argv],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        timeout=300,
    )
    if terminal_columns is not None:
        os.close(stderr)
        os.close(parent)
    assert proc.returncode == 0
    return proc.stdout.decode()


def test_piped_output_takes_the_width_of_the_terminal_on_stderr_else_80(tmp_path):
    path = long_study(tmp_path)
    argv = ["status", str(path)]
    for columns, expected in ((100, 100), (None, 80)):
        lines = piped(argv, terminal_columns=columns).splitlines()
        widest = max(len(line) for line in lines)
        assert len(lines) > 4 and 60 < widest <= expected, (columns, widest)
    assert LONG not in piped(argv, terminal_columns=None)  # cut to fit 80 ...
    assert LONG in piped(argv, terminal_columns=100, COLUMNS="240")  # COLUMNS rules
