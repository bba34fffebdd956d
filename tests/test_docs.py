"""The docs site: its strict build passes offline, and every shell and Python example
in it runs against the offline models and prints what the page shows
(tests/docs_examples.py says how a page marks its blocks)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import docs_examples as docs
from tests.helpers import REPO

UPDATE = os.environ.get("DOCS_UPDATE") == "1"
EXIT = re.compile(r"^\[exit (\d+)\]$")


def test_the_site_builds_strictly_and_offline(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # no proxy reachable: a plugin that fetched anything would fail the build
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-q",
            "-d",
            tmp_path / "site",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "fonts.googleapis.com" not in index
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()


def test_every_nav_page_exists_and_every_page_is_in_the_nav():
    import yaml

    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]

    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for entry in node:
                yield from walk(entry)
        elif isinstance(node, dict):
            for value in node.values():
                yield from walk(value)

    listed = set(walk(nav))
    on_disk = {
        path.relative_to(REPO / "docs").as_posix()
        for path in (REPO / "docs").rglob("*.md")
        if path.name != "INDEX-NOTES.md"
    }
    assert listed == on_disk


@pytest.mark.parametrize("page", docs.pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_shell_block_runs_or_says_why_not(page):
    assert docs.unaccounted(page) == []


def test_a_block_that_says_nothing_is_seen(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "```bash\nitemeval generate x.yaml\n```\n\n<!-- not run: needs a key -->\n"
        "```bash\nitemeval generate real.yaml\n```\n\n"
        "```console\n$ itemeval --help\n```\n"
    )
    found = docs.blocks(page)
    assert [b.mark for b in found] == [None, "not run", None]
    assert [b.lang for b in docs.runnable(page)] == ["console"]
    assert len([b for b in found if b.lang in docs.SHELL and b.mark is None]) == 1


def test_output_is_compared_modulo_ids_times_and_paths(tmp_path):
    printed = (
        f"wrote {tmp_path}/s/config.yaml\n"
        "arith-good_p--0123456789ab: 4 cells in 1.2s (3.4/s)\n"
        "run 20261202T041500-generate-7bf9c8 at 2026-12-02T04:15:00Z\n"
        "tail\n"
    )
    got = docs.normalised(printed, tmp_path)
    shown = docs.normalised(
        "wrote s/config.yaml\narith-good_p--ffffffffffff: 4 cells in 9s (1/s)\n...\n",
        tmp_path,
    )
    assert docs.matches(shown, got)
    assert not docs.matches(
        docs.normalised("wrote t/config.yaml\n...\n", tmp_path), got
    )
    assert not docs.matches(shown[:2], got)  # no `...`: every line must be shown


PAGES = [page for page in docs.pages() if docs.runnable(page)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_page_examples_print_what_they_show(page, tmp_path, request):
    directory = docs.page_directory(tmp_path)
    request.addfinalizer(lambda: shutil.rmtree(directory, ignore_errors=True))
    tmp_path = directory
    session = docs.Session(directory, directory)
    edits: list[tuple[int, int, list[str]]] = []
    failures = []
    for block in docs.runnable(page):
        if block.mark == "file":
            target = session.cwd / block.arg
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text)
        elif block.lang == "console":
            new = _console(session, block, failures)
            edits.append((block.start + 1, block.end, new))
        else:
            code, printed = docs.python_output(session, block)
            if code != 0:
                failures.append(f"{block.where}: exit {code}\n{printed}")
            if block.output is not None:
                shown = docs.normalised(block.output.text, tmp_path)
                if not docs.matches(shown, docs.normalised(printed, tmp_path)):
                    failures.append(f"{block.where}: printed\n{printed}")
                edits.append(
                    (
                        block.output.start + 1,
                        block.output.end,
                        _relative(printed, tmp_path),
                    )
                )
    if UPDATE:
        _write_back(page, edits)
    assert failures == [], "\n\n".join(failures)


def _console(
    session: docs.Session, block: docs.Block, failures: list[str]
) -> list[str]:
    new: list[str] = []
    for command, shown, _ in docs.commands(block):
        expected = 0
        if shown and (code := EXIT.match(shown[-1].strip())):
            expected, shown = int(code.group(1)), shown[:-1]
        exit_code, printed = session.run(command)
        if exit_code != expected:
            failures.append(f"{block.where}: `{command}` exit {exit_code}\n{printed}")
        elif not docs.matches(
            docs.normalised("\n".join(shown), session.directory),
            docs.normalised(printed, session.directory),
        ):
            failures.append(f"{block.where}: `{command}` printed\n{printed}")
        new.append(f"$ {command}")
        if [line.strip() for line in shown] != ["..."] and docs.matches(
            docs.normalised("\n".join(shown), session.directory),
            docs.normalised(printed, session.directory),
        ):
            new.extend(shown)  # as written, `...` and all
        else:
            new.extend(_abridged(_relative(printed, session.directory)))
        if exit_code:
            new.append(f"[exit {exit_code}]")
    return new


def _abridged(lines: list[str], most: int = 24) -> list[str]:
    """What DOCS_UPDATE writes for a long output: its start and its end."""
    if len(lines) <= most:
        return lines
    return [*lines[: most - 6], "...", *lines[-4:]]


def _relative(printed: str, directory: Path) -> list[str]:
    text = printed.replace(str(directory.resolve()) + "/", "").replace(
        str(directory.resolve()), "."
    )
    return [line.rstrip() for line in text.splitlines()]


def _write_back(page: Path, edits: list[tuple[int, int, list[str]]]) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    for start, end, new in sorted(edits, reverse=True):
        indent = re.match(r" *", lines[start - 1]).group(0)
        lines[start:end] = [indent + line if line else line for line in new]
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
