"""Hostile YAML (issue 26 case 4): alias bombs refused before they expand, duplicate
keys refused naming the key, and config errors cut to a readable size."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from itemeval.cli import main
from itemeval.yaml_text import MAX_EXPANDED_NODES, YamlRefused, cut, load_yaml
from tests.helpers import write_study

LEVELS = "abcdefghi"


def bomb(levels: int, leaf: str = "x") -> str:
    """`a: &a [x×10]`, `b: &b [*a×10]`, …: 10**levels leaves in a few hundred bytes."""
    lines = ["a: &a [" + ", ".join([leaf] * 10) + "]"]
    for prev, cur in zip(LEVELS[: levels - 1], LEVELS[1:levels]):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def study_with(tmp_path: Path, extra: str, prompt_alias: str) -> Path:
    path = write_study(tmp_path)
    text = path.read_text().replace(
        "  prompt:\n  - p\n", f"  prompt: *{prompt_alias}\n"
    )
    assert f"*{prompt_alias}" in text
    path.write_text(extra + text)
    return path


def _limit_memory() -> None:
    limit = 1 << 30  # 1 GiB: the bomb needs 2.6 GB and more
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def status(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "itemeval", "status", str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )


def test_an_alias_bomb_is_refused_exit_2_without_expanding(tmp_path):
    path = study_with(tmp_path, bomb(9), "i")
    done = status(path, tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert f"past {MAX_EXPANDED_NODES:,} values" in done.stderr
    assert "line " in done.stderr and len(done.stderr) < 2000


def test_a_config_error_on_a_large_aliased_value_is_cut(tmp_path):
    # 10**4 leaves of 50 characters: under the expansion bound, so the config's own
    # validation reports it (the whole value was 530 KB of message before)
    path = study_with(tmp_path, bomb(4, leaf="y" * 50), "d")
    done = status(path, tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "facets.prompt" in done.stderr
    assert len(done.stderr) < 10_000, len(done.stderr)


def test_duplicate_keys_are_refused_naming_the_key(tmp_path, capsys):
    path = write_study(tmp_path)
    path.write_text(path.read_text() + "study: other\n")
    assert main(["status", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "duplicate key 'study'" in err and "line " in err


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 1\nb: 2\n", {"a": 1, "b": 2}),
        (
            "d: &d {x: 1, y: 2}\ne:\n  <<: *d\n  y: 3\n",
            {"d": {"x": 1, "y": 2}, "e": {"x": 1, "y": 3}},
        ),
        ("a: &a [1, 2]\nb: [*a, *a]\n", {"a": [1, 2], "b": [[1, 2], [1, 2]]}),
        ("", None),
    ],
)
def test_ordinary_yaml_reads_as_before(text, value):
    assert load_yaml(text) == value


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a'"),
        ("outer:\n  k: 1\n  k: 1\n", "duplicate key 'k'"),
        (bomb(7), "past"),
        ("a: &a [1, *a]\n", None),  # PyYAML refuses a recursive alias itself
    ],
)
def test_refused_yaml_names_the_problem(text, problem):
    with pytest.raises(yaml.YAMLError) as caught:
        load_yaml(text)
    if problem is not None:
        assert isinstance(caught.value, YamlRefused)
        assert problem in str(caught.value)


def test_cut_keeps_short_values_and_shortens_long_ones():
    assert cut("abc") == "'abc'"
    long = cut(["x"] * 100_000)
    assert len(long) < 200 and "more characters" in long
