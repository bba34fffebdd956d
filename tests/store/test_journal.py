"""Tests for itemeval.journal: durable appends, torn tails, idempotent replay into
the stores."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest

from itemeval.errors import StoreError
from itemeval.paths import StudyPaths
from itemeval.store import read_store
from itemeval.store.journal import (
    JournalWriter,
    _journal_files,
    live_writers,
    pending_journal_rows,
    replay_journals,
)
from itemeval.store.journal_lines import set_aside_lines
from tests.helpers import REPO


@pytest.fixture
def paths(tmp_path) -> StudyPaths:
    return StudyPaths(tmp_path / "studies" / "demo")


def solution(item: str, **extra) -> dict:
    return {
        "condition_id": "c",
        "item_id": item,
        "epoch": 1,
        "solution": f"text of {item}",
        **extra,
    }


def grade(item: str, score: float) -> dict:
    return {
        "grade_condition_id": "g",
        "gen_condition_id": "c",
        "item_id": item,
        "epoch": 1,
        "score": score,
    }


def journal_line(store: str, row: dict) -> str:
    return json.dumps({"store": store, "row": row}, separators=(",", ":")) + "\n"


def stored(
    paths: StudyPaths, store: str = "solutions", column: str = "solution"
) -> dict[str, object]:
    table = read_store(paths, store, ["item_id", column])
    return dict(zip(table["item_id"].to_pylist(), table[column].to_pylist()))


def test_appended_rows_are_replayed_into_their_stores_and_the_journal_removed(paths):
    stamp = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    with JournalWriter(paths, "run1") as journal:
        journal.append("solutions", solution("i1", created_at=stamp))
        journal.append("solutions", solution("i2"))
        journal.append("grades", grade("i1", 1.0))
    assert pending_journal_rows(paths) == {"solutions": 2, "grades": 1}

    assert replay_journals(paths) == {"solutions": 2, "grades": 1}
    assert stored(paths) == {"i1": "text of i1", "i2": "text of i2"}
    assert stored(paths, "grades", "score") == {"i1": 1.0}
    assert (
        read_store(paths, "solutions", ["created_at"], where={"item_id": ["i1"]})[
            "created_at"
        ][0].as_py()
        == stamp
    )
    assert list(paths.journal.iterdir()) == []
    assert pending_journal_rows(paths) == {}


@pytest.mark.parametrize(
    "tail",
    [
        '{"store":"solutions","row":{"condition_id":"c","item_id":"i9"',
        '{"sto',
        "\x00\x00\x00\x00",
        '{"store":"solutions"\n',
    ],
)
def test_a_torn_last_line_is_ignored(paths, tail):
    paths.journal.mkdir(parents=True)
    (paths.journal / "run-1-a.jsonl").write_text(
        journal_line("solutions", solution("i1")) + tail
    )
    assert pending_journal_rows(paths) == {"solutions": 1}
    assert replay_journals(paths) == {"solutions": 1}
    assert stored(paths) == {"i1": "text of i1"}


def test_a_corrupt_line_before_the_end_is_set_aside_and_the_rest_replayed(paths):
    paths.journal.mkdir(parents=True)
    path = paths.journal / "run-1-a.jsonl"
    path.write_text(
        journal_line("solutions", solution("i1"))
        + "{oops\n"
        + journal_line("solutions", solution("i2"))
    )
    assert replay_journals(paths) == {"solutions": 2}
    assert sorted(pd.read_parquet(paths.solutions)["item_id"]) == ["i1", "i2"]
    assert set_aside_lines(paths) == ["run-1-a.jsonl line 2: not a journal record"]


def test_replay_is_idempotent_even_after_a_crash_before_removal(paths):
    with JournalWriter(paths, "run1") as journal:
        for n in range(5):
            journal.append("solutions", solution(f"i{n}", run_id="run1"))
    saved = {path.name: path.read_bytes() for path in paths.journal.iterdir()}
    replay_journals(paths)
    before = pd.read_parquet(paths.solutions)

    assert replay_journals(paths) == {}
    for (
        name,
        data,
    ) in saved.items():  # as if killed after the upsert, before the files were removed
        (paths.journal / name).write_bytes(data)
    assert replay_journals(paths) == {"solutions": 5}
    pd.testing.assert_frame_equal(
        pd.read_parquet(paths.solutions).sort_values("item_id", ignore_index=True),
        before.sort_values("item_id", ignore_index=True),
    )


def test_later_records_win_across_chunks_and_files(paths):
    paths.journal.mkdir(parents=True)
    old, new = paths.journal / "b-old.jsonl", paths.journal / "a-new.jsonl"
    old.write_text(
        "".join(
            journal_line("solutions", solution(f"i{n % 4}", solution=f"old{n}"))
            for n in range(10)
        )
    )
    new.write_text(journal_line("solutions", solution("i0", solution="newest")))
    os.utime(
        old, ns=(1_000_000_000, 1_000_000_000)
    )  # older mtime, though its name sorts later
    assert replay_journals(paths, chunk_rows=3) == {"solutions": 4}  # distinct rows
    assert stored(paths) == {"i0": "newest", "i1": "old9", "i2": "old6", "i3": "old7"}


@pytest.mark.parametrize(
    ("store", "row", "message"),
    [
        ("answers", solution("i1"), "unknown store 'answers'"),
        ("solutions", solution("i1", colour="red"), "colour"),
    ],
)
def test_bad_records_are_refused_at_append(paths, store, row, message):
    with JournalWriter(paths, "run1") as journal:
        with pytest.raises(StoreError, match=message):
            journal.append(store, row)
    assert pending_journal_rows(paths) == {}


def test_appends_from_many_threads_all_arrive_whole(paths):
    with JournalWriter(paths, "run1") as journal:

        def work(thread: int) -> None:
            for n in range(200):
                journal.append(
                    "solutions",
                    solution(f"t{thread}-{n}", solution="x" * random.randrange(3000)),
                )

        threads = [threading.Thread(target=work, args=(thread,)) for thread in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert pending_journal_rows(paths) == {"solutions": 1600}
    assert replay_journals(paths) == {"solutions": 1600}
    assert read_store(paths, "solutions", ["item_id"]).num_rows == 1600


def test_records_reach_the_disk_without_close(paths):
    journal = JournalWriter(paths, "run1", interval_s=0.1)
    journal.append("solutions", solution("i1"))
    expected = journal_line("solutions", solution("i1"))
    deadline = time.monotonic() + 60  # the writer's thread, however loaded the machine
    while journal.path.read_text() != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert journal.path.read_text() == expected
    journal.close()
    with pytest.raises(StoreError, match="closed"):
        journal.append("solutions", solution("i2"))


WRITER = r"""
import sys, time
from pathlib import Path
from itemeval.paths import StudyPaths
from itemeval.store.journal import JournalWriter
# never closed: killed instead
journal = JournalWriter(StudyPaths(Path(sys.argv[1])), "run1")
n = 0
while True:
    row = {"condition_id": "c", "item_id": str(n), "epoch": 1, "solution": "x" * 1500}
    journal.append("solutions", row)
    n += 1
    if n == 400:
        print(n, flush=True)
        # idle until told: what was appended must reach the disk without any further
        # append
        sys.stdin.readline()
"""


def synced_lines(paths: StudyPaths) -> int:
    return sum(part.read_bytes().count(b"\n") for part in paths.journal.glob("*.jsonl"))


@pytest.mark.parametrize("idle", [True, False], ids=["idle", "mid-append"])
def test_every_synced_record_of_a_killed_writer_is_replayed(paths, idle):
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(paths.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    appended = int(writer.stdout.readline())
    if not idle:  # appending again when killed
        writer.stdin.write(b"go\n")
        writer.stdin.flush()
    # killed once the journal shows every row appended so far (idle) or more
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        synced_lines(paths) == appended if idle else synced_lines(paths) > appended
    ):
        time.sleep(0.02)
    writer.send_signal(signal.SIGKILL)
    writer.wait()

    pending = pending_journal_rows(paths)["solutions"]
    recovered = replay_journals(paths)["solutions"]
    items = sorted(
        int(item)
        for item in read_store(paths, "solutions", ["item_id"])["item_id"].to_pylist()
    )
    assert recovered == pending == len(items)
    assert items == list(
        range(len(items))
    )  # a prefix of what was appended: nothing torn, nothing skipped
    assert len(items) == appended if idle else len(items) > appended
    assert not any(paths.journal.iterdir())


def test_replay_leaves_the_files_of_live_writers_alone(paths):
    with JournalWriter(paths, "run1") as journal:
        journal.append("solutions", solution("i1"))
        assert replay_journals(paths) == {}
        assert journal.path.exists()
    assert replay_journals(paths) == {"solutions": 1}


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="needs Linux's /proc")
def test_a_pid_reused_after_its_writer_died_is_not_waited_for(paths):
    # pids wrap around: a process that started after a journal file was last written
    # cannot be its writer, so `launch` must not wait for it to stop.
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        paths.journal.mkdir(parents=True, exist_ok=True)
        part = paths.journal / f"shard-0-r1-{other.pid}-abcdef.jsonl"
        part.write_text("")
        assert live_writers(paths, "shard-") == [other.pid]  # written since it began
        an_hour_ago = time.time() - 3600
        os.utime(part, (an_hour_ago, an_hour_ago))
        assert live_writers(paths, "shard-") == []
        assert [p.name for p in _journal_files(paths)] == [part.name]
    finally:
        other.kill()
        other.wait()


def test_nothing_to_replay(paths):
    assert replay_journals(paths) == {}
    assert pending_journal_rows(paths) == {}


def test_a_corrupt_line_is_set_aside_and_the_files_good_rows_are_kept(tmp_path, capsys):
    # Issue 26 case 9: one bad line blocked every command, and the advice discarded the
    # file.
    import pyarrow.parquet as pq

    from itemeval.cli import main
    from tests.helpers import write_study

    path = write_study(tmp_path)
    assert main(["generate", str(path), "--yes"]) == 0
    study = tmp_path / "studies" / "t"
    rows = pq.read_table(study / "solutions.parquet").to_pylist()
    for row in rows:
        row["created_at"] = row["created_at"].isoformat()

    def line(row):
        return json.dumps({"store": "solutions", "row": row}, default=str)

    wrong_type = {**rows[3], "epoch": "x"}
    (study / "journal" / "r-99999-aaaaaa.jsonl").write_text(
        "\n".join([line(rows[0]), line(rows[1]), "garbage{", line(rows[1])])
        + "\n"
        + line(wrong_type)
        + "\n"
        + line(rows[2])
        + "\n"
    )
    capsys.readouterr()
    assert main(["commit", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["recovered_rows"] == {"solutions": 3}  # rows 0, 1 (twice) and 2
    assert main(["generate", str(path), "--yes", "--json"]) == 0
    notes = " ".join(json.loads(capsys.readouterr().out).get("notes", []))
    assert "r-99999-aaaaaa.jsonl line 3" in notes and "line 5" in notes
    assert not (study / "journal" / "r-99999-aaaaaa.jsonl").exists()
    aside = (study / "journal" / "set-aside" / "r-99999-aaaaaa.jsonl").read_text()
    assert "garbage{" in aside and '\\"epoch\\": \\"x\\"' in aside
    assert main(["status", str(path)]) == 0
