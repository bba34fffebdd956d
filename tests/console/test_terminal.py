"""What a person sees in a real terminal (a pty, 120×40): one display for the whole
run, no per-sample noise, and after Ctrl-C one summary that says how to finish."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from tests.helpers import base_config, local_model_config, write_study
from tests.openai_server import OpenAIServer

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\r")
ROWS = [
    {"qid": f"q{i:02d}", "question": f"What is {i} + {i}?", "answer": str(2 * i)}
    for i in range(1, 31)
]


def study(tmp_path: Path) -> Path:
    config = base_config(
        **{
            "cache": False,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
        }
    )
    return write_study(tmp_path, config, rows=ROWS)


def run_in_pty(
    argv: list[str],
    env: dict[str, str],
    *,
    interrupt_when: str | None = None,
    timeout: float = 240,
    columns: int = 120,
    cwd: Path | None = None,
) -> tuple[int, str]:
    """Run a command with a 120×40 pty as its terminal; returns (exit code, the screen
    text without escapes).

    With `interrupt_when` (a regular expression), Ctrl-C is sent once the screen matches
    it.
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the pty
        if cwd is not None:
            os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    chunks: list[bytes] = []
    interrupted = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        if (
            interrupt_when
            and not interrupted
            and re.search(
                interrupt_when, ANSI.sub("", b"".join(chunks).decode(errors="replace"))
            )
        ):
            os.kill(pid, signal.SIGINT)
            interrupted = True
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), ANSI.sub(
        "", b"".join(chunks).decode(errors="replace")
    )


def test_one_display_spans_every_batch_without_per_sample_warnings(tmp_path):
    path = study(tmp_path)
    env = {
        **os.environ,
        "ITEMEVAL_CELLS_PER_EVAL": "10",
        "ITEMEVAL_OFFLINE_FAIL_RATE": "0.3",
        "ITEMEVAL_OFFLINE_SEED": "3",
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "40",
    }
    env.pop("INSPECT_DISPLAY", None)
    code, screen = run_in_pty(
        [sys.executable, "-m", "itemeval", "generate", str(path), "--yes"], env
    )
    assert code == 0, screen
    assert (
        "generate cells" in screen and "30/30" in screen
    )  # one counter over the three batches of 10
    assert "10/10" not in screen.replace("30/30", "")  # it never restarts at each batch
    assert re.search(r"spend \$\d", screen) and re.search(r"\d+ errors", screen)
    assert (
        "Sample error" not in screen
        and "were not scored" not in screen
        and "fail_on_error" not in screen
    )


def test_after_ctrl_c_one_summary_says_how_to_finish(tmp_path):
    # The local server answers 12 calls and holds the rest, so the run cannot end before
    # the Ctrl-C lands, however slow the machine; the 1 s drain then cancels the held
    # calls.
    config = local_model_config()
    path = write_study(tmp_path, config, rows=ROWS)
    with OpenAIServer(answer_limit=12) as srv:
        env = {
            **os.environ,
            **srv.env(),
            "ITEMEVAL_CELLS_PER_EVAL": "10",
            "ITEMEVAL_DRAIN_S": "1",
            "TERM": "xterm-256color",
            "COLUMNS": "120",
            "LINES": "40",
        }
        env.pop("INSPECT_DISPLAY", None)
        code, screen = run_in_pty(
            [sys.executable, "-m", "itemeval", "generate", str(path), "--yes"],
            env,
            interrupt_when=r"generate cells .* [1-9]\d*/30 ",
        )
    assert code == 130, screen
    match = re.search(
        r"run the same command to finish the (\d+) remaining cells", screen
    )
    assert match and 18 <= int(match.group(1)) < 30, screen
    assert screen.count("generate interrupted") == 1, screen
