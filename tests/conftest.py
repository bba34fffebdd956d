"""Isolates every test: temp working dir, inspect's data/cache/log dirs in temp, no
display, no keys."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# inspect-ai reads XDG dirs when it is first imported, so they must be set before any
# test imports it.
_SESSION_TMP = Path(tempfile.mkdtemp(prefix="itemeval-tests-"))
os.environ["XDG_DATA_HOME"] = str(_SESSION_TMP / "xdg-data")
os.environ["XDG_CACHE_HOME"] = str(_SESSION_TMP / "xdg-cache")
os.environ["INSPECT_DISPLAY"] = "none"
for _key in [
    k for k in os.environ if k.endswith("_API_KEY") or k.startswith("INSPECT_EVAL_")
]:
    del os.environ[_key]

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Each test runs in its own empty working dir with its own inspect cache and log
    dir."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / ".inspect-cache"))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / ".inspect-logs"))
    # Output to a pipe is 80 wide by default; tests read whole lines unless they set
    # their own width.
    monkeypatch.setenv("COLUMNS", "240")
    yield tmp_path


INSPECT_TESTS = (
    "tests/engine/",
    "tests/stages/test_generate.py",
    "tests/stages/test_estimate.py",
    "tests/stages/test_run.py",
    "tests/stages/grade/",
    "tests/bridges/test_importer.py",
)
"""The tests that touch inspect-ai, marked `inspect`: `make test-oldest` runs them on
the oldest inspect-ai of the range. The engine's adapters, tasks, hooks, scorers and
graders, batches and the response cache; generate, estimate and grade end to end on the
offline models and the local OpenAI-compatible server, and interrupted; importing
inspect logs. A single test elsewhere is marked by hand. Left out: what runs on rows
already stored (store, results, report, view), and launch's shards, which run the same
generate in more processes."""


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath)).relative_to(REPO).as_posix()
        if path.startswith(INSPECT_TESTS):
            item.add_marker(pytest.mark.inspect)
