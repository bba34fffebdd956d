"""The docs' code blocks as tests: which run, how, and their output compared with what
the page shows, modulo ids, times and paths.

A page's blocks, in its order:

- ```` ```console ````: a shell session. `$ COMMAND` lines run (in one working
  directory per page, so one study serves the whole page); the lines after each are
  what it printed (stdout and stderr as a terminal shows them, interleaved). A line
  `...` stands for any number of lines.
- ```` ```python ````: run as a script in the page's directory; a ```` ```text ````
  block right after it, under `<!-- output -->`, is what it printed.
- `<!-- file: PATH -->` above any block: the block's text is written to PATH first
  (a config the page edits), and nothing runs.
- `<!-- not run: REASON -->` above a block: shown, never run (a provider, a cluster,
  a browser, a fragment).
- Other languages (yaml, markdown, text, json) are text. A ```` ```bash ````,
  ```` ```sh ```` or unlabelled block must be a console session or say why it is
  not run.

`DOCS_UPDATE=1 pytest tests/test_docs.py` writes what each command printed back into
its page (then read the diff: it is what users will see).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import REPO

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*$")
MARK = re.compile(
    r"^\s*<!--\s*(?P<kind>not run|file|output)\s*:?\s*(?P<arg>.*?)\s*-->\s*$"
)
SHELL = {"", "bash", "sh", "shell"}
RUN = {"console", "python"}


@dataclass
class Block:
    page: Path
    lang: str
    start: int
    """0-based line of the opening fence."""
    end: int
    """0-based line of the closing fence."""
    lines: list[str]
    mark: str | None = None
    arg: str = ""
    output: Block | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.start + 1}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, with the mark above it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent = len(match.group("indent"))
        close = index + 1
        while close < len(lines) and lines[close].strip() != "```":
            close += 1
        body = [line[indent:] for line in lines[index + 1 : close]]
        block = Block(page, match.group("lang"), index, close, body)
        above = _line_above(lines, index)
        if above is not None and (mark := MARK.match(above)):
            block.mark, block.arg = mark.group("kind"), mark.group("arg")
        if block.mark == "output" and found and found[-1].lang == "python":
            found[-1].output = block
        found.append(block)
        index = close + 1
    return found


def _line_above(lines: list[str], index: int) -> str | None:
    row = index - 1
    while row >= 0 and not lines[row].strip():
        row -= 1
    return lines[row] if row >= 0 else None


def pages() -> list[Path]:
    return sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]


def unaccounted(page: Path) -> list[str]:
    """Blocks that neither run nor say why not."""
    return [
        f"{block.where}: a ```{block.lang or ''} block: write it as a ```console "
        "session ($ lines) or put <!-- not run: REASON --> above it"
        for block in blocks(page)
        if block.lang in SHELL and block.mark is None
    ]


def runnable(page: Path) -> list[Block]:
    return [
        block
        for block in blocks(page)
        if (block.lang in RUN and block.mark is None) or block.mark == "file"
    ]


# ---- comparing ------------------------------------------------------------------

_SUBSTITUTIONS = [
    # the installed itemeval's own schema: wherever it is installed
    (re.compile(r"\$schema=file://\S*/config\.schema\.json"), "$schema=<schema>"),
    (re.compile(r"--[0-9a-f]{12}\b"), "--<id>"),
    (re.compile(r"\b[0-9a-f]{12}\b"), "<hex>"),
    (re.compile(r"\b\d{8}T\d{6}[\w-]*"), "<run>"),
    (
        re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"),  # noqa: E501
        "<time>",
    ),
    (re.compile(r"\b\d+(\.\d+)?\s?(s|ms|min|h)\b"), "<duration>"),
    (re.compile(r"\b\d+(\.\d+)?/(s|min)\b"), "<rate>"),
    (re.compile(r"token=[\w-]+"), "token=<token>"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
    (re.compile(r"\(\d+(\.\d+)? ?[kKMG]?B\)"), "(<size>)"),
]


def normalised(text: str, directory: Path) -> list[str]:
    """Lines as compared: the page's directory, ids, run ids, times, durations and
    rates replaced; trailing spaces and blank lines dropped."""
    text = text.replace(str(directory.resolve()) + "/", "").replace(
        str(directory.resolve()), "."
    )
    text = text.replace(str(Path.home()), "~")
    out = []
    for line in text.splitlines():
        for pattern, replacement in _SUBSTITUTIONS:
            line = pattern.sub(replacement, line)
        line = re.sub(r"[ \t]+", " ", line.rstrip())
        if line.strip():
            out.append(line)
    return out


def matches(shown: list[str], printed: list[str]) -> bool:
    """`printed` matches `shown`, where a `...` line stands for any lines."""
    if not shown:
        return not printed
    if shown[0].strip() in ("...", "…"):
        return any(matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and shown[0] == printed[0] and matches(shown[1:], printed[1:])


# ---- running --------------------------------------------------------------------


def page_directory(tmp: Path) -> Path:
    """A working directory with the repository's demo configs, prompts and rubrics, so
    `configs/demo.yaml` runs as in a checkout. Its path is short, and as long on every
    machine: a command that prints it wraps it at 80 columns at the same place."""
    tmp = Path(
        tempfile.mkdtemp(
            prefix="ie-docs-", dir="/tmp" if Path("/tmp").is_dir() else tmp
        )
    )
    for name in ("configs", "prompts", "rubrics"):
        shutil.copytree(REPO / name, tmp / name)
    return tmp


def environment() -> dict[str, str]:
    env = {
        **os.environ,
        "COLUMNS": "80",
        "PYTHONUNBUFFERED": "1",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("INSPECT_DISPLAY", None)
    env["INSPECT_DISPLAY"] = "none"
    return env


@dataclass
class Session:
    directory: Path
    cwd: Path

    def run(self, command: str, timeout: float = 600) -> tuple[int, str]:
        argv = shlex.split(command, comments=True)
        if argv and argv[0] == "cd":
            self.cwd = (self.cwd / argv[1]).resolve()
            return 0, ""
        if argv and argv[0] == "itemeval" and not set("<>|&;$`") & set(command):
            argv = [sys.executable, "-m", "itemeval", *argv[1:]]
            done = subprocess.run(
                argv,
                cwd=self.cwd,
                env=environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
            )
        else:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=self.cwd,
                env=environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
            )
        return done.returncode, done.stdout


def commands(block: Block) -> list[tuple[str, list[str], int]]:
    """(command, the lines shown after it, the 0-based line in the block) of a console
    block; a command continued with a trailing backslash is one."""
    found: list[tuple[str, list[str], int]] = []
    lines = block.lines
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("$ "):
            command, start = line[2:], index
            while command.endswith("\\") and index + 1 < len(lines):
                index += 1
                command = command[:-1] + " " + lines[index].strip()
            found.append((command, [], start))
        elif found:
            found[-1][1].append(line)
        index += 1
    return found


def python_output(session: Session, block: Block) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", block.text],
        cwd=session.cwd,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout
