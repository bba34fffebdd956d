"""The README's "A short tour", word for word, in an 80-column terminal: every command
runs, and no number, count or ETA is cut."""

from __future__ import annotations

import os
import re
import shlex
import sys

from tests.console.test_terminal import run_in_pty
from tests.helpers import REPO

README = REPO / "README.md"
CUT = re.compile(r"[\d$%]…|…[\d$]|eta -…")
"""An ellipsis beside a digit or a dollar: a number cut (slugs are cut in the middle
by design, `arith-go…t_default`)."""


def tour_lines() -> list[str]:
    block = README.read_text().split("## A short tour", 1)[1].split("```", 2)[1]
    return [line.split("#")[0].strip() for line in block.strip().splitlines()]


def test_the_tour_runs_word_for_word_at_80_columns(tmp_path):
    lines = tour_lines()
    assert lines[0].startswith("itemeval init") and len(lines) >= 10
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "40"}
    env.pop("INSPECT_DISPLAY", None)
    cwd = tmp_path
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "cd":
            cwd = cwd / argv[1]
            continue
        assert argv[0] == "itemeval", line
        # view serves until interrupted: Ctrl-C once it printed its address
        view = argv[1] == "view"
        code, screen = run_in_pty(
            [sys.executable, "-m", "itemeval", *argv[1:]],
            env,
            columns=80,
            cwd=cwd,
            interrupt_when=r"itemeval view: http://127\.0\.0\.1:\d+/" if view else None,
        )
        assert code == (130 if view else 0), (line, screen)
        assert not CUT.search(screen), (line, screen)
        if argv[1] in ("generate", "grade"):
            assert re.search(r"cells .* (\d+)/\1 +[\d.]+/(s|min) eta", screen), screen
