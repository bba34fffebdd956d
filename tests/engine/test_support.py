"""The check of the installed inspect-ai: tested releases run, others are refused
with what to install, a newer one that fits runs with a warning."""

from __future__ import annotations

import subprocess
import sys

import pytest

from itemeval.engine import support
from itemeval.errors import EXIT_CONFIG, UnsupportedInspect

TESTED = "pip install 'inspect-ai>=0.3.260,<=0.3.285'"


def _nothing_moved() -> list[str]:
    return []


def _asked() -> list[str]:
    raise AssertionError("a tested release is not probed")


@pytest.mark.parametrize("installed", ["0.3.260", "0.3.272", "0.3.285"])
def test_a_tested_release_runs_without_a_word(installed):
    assert support.verdict(installed, _asked) is None


@pytest.mark.parametrize(
    ("installed", "named"),
    [
        ("0.3.259", "inspect-ai 0.3.259 is installed"),
        ("0.3.100", "inspect-ai 0.3.100 is installed"),
        ("0.4.0", "inspect-ai 0.4.0 is installed"),
        (None, "inspect-ai is not installed"),
    ],
)
def test_a_release_outside_the_range_is_refused_with_what_to_install(installed, named):
    with pytest.raises(UnsupportedInspect) as refused:
        support.verdict(installed, _nothing_moved)
    assert refused.value.exit_code == EXIT_CONFIG
    assert named in str(refused.value) and TESTED in str(refused.value)


def test_a_newer_release_whose_internals_fit_runs_with_one_warning_line():
    warning = support.verdict("0.3.292", _nothing_moved)
    assert warning is not None and "\n" not in warning
    assert "inspect-ai 0.3.292 is newer" in warning and "0.3.285" in warning


def test_a_newer_release_whose_internals_moved_is_refused_naming_them():
    with pytest.raises(UnsupportedInspect, match="moved \\(cache_entry, init_hooks\\)"):
        support.verdict("0.3.292", lambda: ["cache_entry", "init_hooks"])


PROBE = """
import sys
from importlib import metadata
real = metadata.version
metadata.version = lambda name: {given!r} if name == "inspect-ai" else real(name)
from itemeval.cli import main
sys.exit(main(["estimate", "config.yaml"]))
"""


@pytest.mark.parametrize(
    ("given", "code", "said"),
    [
        ("0.3.259", EXIT_CONFIG, "error: inspect-ai 0.3.259 is installed"),
        ("0.4.1", EXIT_CONFIG, "error: inspect-ai 0.4.1 is installed"),
    ],
)
def test_the_cli_refuses_an_untested_inspect_without_a_traceback(
    tmp_path, given, code, said
):
    from tests.helpers import base_config, write_study

    write_study(tmp_path, base_config())
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(given=given)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == code, done.stderr
    assert said in done.stderr and TESTED in done.stderr
    assert "Traceback" not in done.stderr


def test_the_cli_on_a_newer_inspect_runs_with_a_warning_or_names_what_moved(tmp_path):
    """Run on the newest tested release, a newer one with the same internals runs;
    run on the oldest, whose internals differ from the newest's, it is refused."""
    from itemeval.engine import compat
    from tests.helpers import base_config, write_study

    write_study(tmp_path, base_config())
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(given="0.3.292")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    moved = compat.missing_parts("0.3.292")
    if moved:
        assert done.returncode == EXIT_CONFIG
        assert f"moved ({', '.join(moved)})" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        warnings = [line for line in done.stderr.splitlines() if "warning" in line]
        assert len(warnings) == 1 and "inspect-ai 0.3.292 is newer" in warnings[0]
    assert "Traceback" not in done.stderr
