"""Commands that call no model import only what they need (issue 27, "start fast").

Checked on the modules a command leaves in `sys.modules`, in a fresh interpreter:
what a command loads does not depend on the machine's speed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study

HEAVY = (
    "inspect_ai",
    "pandas",
    "pyarrow",
    "scipy",
    "matplotlib",
    "girth",
    "numpy",
    "asyncio",  # an event loop is for a run's calls: 0.05 s of imports otherwise
)
PROBE = """
import json, sys
from itemeval.cli import main
try:
    main({args!r})
except SystemExit:
    pass
print("\\nLOADED " + json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def loaded(args: list[str], cwd=None) -> list[str]:
    """The heavy packages `itemeval ARGS` leaves imported, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
    line = [x for x in done.stdout.splitlines() if x.startswith("LOADED ")]
    assert line, done.stderr[-2000:]
    return json.loads(line[-1].removeprefix("LOADED "))


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["generate", "--help"]])
def test_version_and_help_load_no_heavy_library(args):
    assert loaded(args) == []


def test_commands_with_nothing_to_do_load_neither_inspect_nor_scipy(tmp_path, capsys):
    # a study whose cells are all generated and graded (offline models, a judge)
    study = base_config(
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge", "max_tokens": 256}},
    )
    config = str(write_study(tmp_path, study))
    assert main(["generate", config, "--yes", "--display", "none"]) == 0
    assert main(["grade", config, "--yes", "--display", "none"]) == 0
    capsys.readouterr()
    for args in (
        ["generate", config, "--display", "none"],
        ["grade", config, "--display", "none"],
        ["status", config],
        ["estimate", config],
        ["export", config],
    ):
        heavy = loaded(args, cwd=tmp_path)
        # the store is read with pandas and pyarrow; no model, no statistics
        unwanted = {"inspect_ai", "scipy", "matplotlib", "girth", "asyncio"}
        assert not unwanted & set(heavy), (
            args,
            heavy,
        )
    # results needs its statistics (scipy), never a model, a plot or an IRT fit
    heavy = loaded(["results", config], cwd=tmp_path)
    assert not {"inspect_ai", "matplotlib", "girth", "asyncio"} & set(heavy), heavy
    assert "scipy" in heavy  # the probe sees what a command loads


def test_estimating_a_fresh_study_with_the_cache_on_loads_no_inspect(tmp_path):
    """Nothing is cached for its models yet: the cache is looked at without inspect
    (a launcher plans the same way before its shards start)."""
    config = str(write_study(tmp_path, base_config(cache=True)))
    heavy = loaded(["estimate", config], cwd=tmp_path)
    assert "inspect_ai" not in heavy and "pandas" in heavy, heavy


@pytest.mark.inspect
@pytest.mark.parametrize(
    "env",
    [
        {"INSPECT_CACHE_DIR": "shared-cache"},
        {"INSPECT_CACHE_DIR": "", "XDG_CACHE_HOME": "xdg"},
        {"XDG_CACHE_HOME": "xdg"},
        {},
    ],
)
def test_the_cache_root_found_without_inspect_is_inspects_own(
    monkeypatch, tmp_path, env
):
    # inspect's public cache_path() creates the folder it names: every path is in tmp
    from inspect_ai.model import cache_path

    from itemeval.engine.cache_lookup import cache_root

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("INSPECT_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, str(tmp_path / value) if value else value)
    assert cache_root() == cache_path()


def test_a_lazy_pattern_compiles_at_first_use_and_matches_as_compiled():
    import re

    from itemeval.lazy import LazyPattern, lazy_pattern

    pattern = lazy_pattern(r"answer\s*:\s*(\w+)", re.IGNORECASE)
    assert isinstance(pattern, LazyPattern) and pattern._compiled is None
    assert pattern.search("Final ANSWER: Paris").group(1) == "Paris"
    assert pattern._compiled is not None
    assert pattern.findall("answer: a, Answer:b") == ["a", "b"]
    assert pattern.flags & re.IGNORECASE and pattern.pattern.startswith("answer")
