"""Rows the journal could not take (a full disk) are written where they fit, in order:
a fresh journal file, the run's reserve given up, a last-resort file, else named
lost."""

from __future__ import annotations

import json

import pytest

from itemeval.paths import StudyPaths
from itemeval.store import held_rows
from itemeval.store.held_rows import HeldRows


@pytest.mark.parametrize(
    ("refused", "where", "words"),
    [
        (0, "journal", "the next run takes them in"),
        (1, "journal", "space held back for the run's manifest"),
        (2, "rescue", "move it into"),
        (3, None, "could not be written anywhere"),
    ],
)
def test_held_rows_go_where_they_fit(tmp_path, monkeypatch, refused, where, words):
    paths = StudyPaths(tmp_path / "study")
    paths.manifests.mkdir(parents=True)
    reserve = paths.manifests / ".reserve-run1"
    reserve.write_bytes(b"\0" * 16)
    monkeypatch.setattr(held_rows.tempfile, "gettempdir", lambda: str(tmp_path))
    real, attempts = held_rows._write, []

    def write(path, lines):  # the first `refused` attempts meet a full disk
        attempts.append(path)
        return len(attempts) > refused and real(path, lines)

    monkeypatch.setattr(held_rows, "_write", write)
    held = HeldRows()
    for i in range(3):
        held.hold("solutions", {"item_id": f"q{i}", "solution": "ANSWER: 1"})
    message = held.save(paths, "run1")
    assert words in message and "3 paid replies" in message, message
    assert reserve.exists() == (refused == 0)  # given up only when needed
    written = sorted({p for p in attempts if p.exists()})
    if where is None:
        assert written == []
        return
    (path,) = written
    assert (path.parent == paths.journal) == (where == "journal") and str(
        path
    ) in message
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["row"]["item_id"] for r in rows] == ["q0", "q1", "q2"]
    assert {r["store"] for r in rows} == {"solutions"}


def test_nothing_held_says_nothing(tmp_path):
    assert HeldRows().save(StudyPaths(tmp_path), "run1") is None
