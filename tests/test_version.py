"""itemeval's version and the inspect-ai range it is tested on."""

from __future__ import annotations

from pathlib import Path

import pytest

from itemeval import version

ROOT = Path(__file__).resolve().parent.parent


def test_the_requirement_is_pyprojects():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    inspect = [d for d in project["dependencies"] if d.startswith("inspect-ai")]
    assert inspect == [version.INSPECT_REQUIREMENT]


def test_the_tested_ends_are_inside_the_requirement():
    oldest, newest = map(
        version.release, (version.INSPECT_OLDEST, version.INSPECT_NEWEST)
    )
    assert oldest <= newest < (0, 4)
    assert version.INSPECT_REQUIREMENT == f"inspect-ai>={version.INSPECT_OLDEST},<0.4"
    # SPEC §30: at least the 25 releases the package index served before 0.3.285
    assert oldest <= (0, 3, 260)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("0.3.285", (0, 3, 285)),
        ("0.3.285.dev4+g1a2b", (0, 3, 285)),
        ("0.4.0rc1", (0, 4, 0)),
        (" 1.2 ", (1, 2)),
        ("unknown", ()),
    ],
)
def test_a_release_is_its_leading_numbers(given, expected):
    assert version.release(given) == expected


def test_the_version_text_names_both_versions_and_the_range(monkeypatch):
    monkeypatch.setattr(version, "inspect_version", lambda: "0.3.270")
    assert version.version_text().splitlines() == [
        f"itemeval {version.__version__}",
        "inspect-ai 0.3.270 (tested on 0.3.260 to 0.3.285; requires "
        "inspect-ai>=0.3.260,<0.4)",
    ]
    monkeypatch.setattr(version, "inspect_version", lambda: None)
    assert "inspect-ai: not installed" in version.version_text()
