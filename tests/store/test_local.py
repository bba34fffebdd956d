"""Tests for itemeval.store: keyed upserts, exact schemas, plain-parquet readability,
atomicity under SIGKILL."""

from __future__ import annotations

import glob
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
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from itemeval.errors import StoreError
from itemeval.paths import StudyPaths
from itemeval.store import (
    PART_LIMIT,
    coerce_rows,
    integrity,
    read_store,
    upsert,
    verify_store,
)
from itemeval.store.schemas import STORES
from tests.helpers import REPO


@pytest.fixture
def paths(tmp_path) -> StudyPaths:
    return StudyPaths(tmp_path / "studies" / "demo")


def solution(condition: str, item: str, epoch: int = 1, **extra) -> dict:
    return {
        "condition_id": condition,
        "item_id": item,
        "epoch": epoch,
        "solution": f"{condition}/{item}/{epoch}",
        **extra,
    }


def keyed(frame: pd.DataFrame, store: str, column: str) -> dict[tuple, object]:
    key = list(STORES[store][1])
    return {tuple(row[k] for k in key): row[column] for row in frame.to_dict("records")}


def part_files(path: Path) -> list[str]:
    return sorted(name for name in os.listdir(path) if name.endswith(".parquet"))


# ---- keyed upsert


KEYED_ROWS = {
    "solutions": lambda i, tag: solution(f"c{i % 3}", f"i{i}", 1 + i % 2, run_id=tag),
    "grades": lambda i, tag: {
        "grade_condition_id": f"g{i % 2}",
        "gen_condition_id": f"c{i % 3}",
        "item_id": f"i{i}",
        "epoch": 1,
        "score": float(i),
        "run_id": tag,
    },
    "items": lambda i, tag: {
        "item_id": f"i{i}",
        "input": f"question {i}",
        "target": str(i),
        "metadata": tag,
    },
}
TAG_COLUMN = {"solutions": "run_id", "grades": "run_id", "items": "metadata"}


@pytest.mark.parametrize("store", sorted(KEYED_ROWS))
def test_rewritten_keys_replace_their_rows(paths, store):
    make, tag = KEYED_ROWS[store], TAG_COLUMN[store]
    assert upsert(paths, store, [make(i, "old") for i in range(20)]) == 20
    assert upsert(paths, store, [make(i, "new") for i in range(15, 25)]) == 10

    frame = pd.read_parquet(paths.store(store))
    key = list(STORES[store][1])
    assert len(frame) == 25
    assert not frame.duplicated(key).any()
    assert sorted(frame[tag].tolist()) == ["new"] * 10 + ["old"] * 15
    assert verify_store(paths, store) == 25


def test_last_row_for_a_key_wins_within_a_batch(paths):
    rows = [
        solution("c", "i1", run_id="first"),
        solution("c", "i2", run_id="only"),
        solution("c", "i1", run_id="last"),
    ]
    assert upsert(paths, "solutions", rows) == 2
    assert keyed(pd.read_parquet(paths.solutions), "solutions", "run_id") == {
        ("c", "i1", 1): "last",
        ("c", "i2", 1): "only",
    }


def test_every_part_has_the_schema_constant_whatever_the_input(paths):
    upsert(paths, "solutions", [solution("c", "i1")])  # every optional column null
    upsert(
        paths,
        "solutions",
        [solution("c", "i2", usd=1, temperature=0, max_tokens=5.0, cache_hit=True)],
    )
    upsert(
        paths,
        "solutions",
        pa.table(
            {
                "condition_id": ["d"],
                "item_id": ["i"],
                "epoch": pa.array([1], pa.int32()),
                "usd": pa.nulls(1),
            }
        ),
    )
    for part in glob.glob(str(paths.solutions / "*.parquet")):
        assert pq.read_schema(part).equals(STORES["solutions"][0])
    frame = pd.read_parquet(paths.solutions)
    assert (
        frame["usd"].dtype == "float64" and frame["max_tokens"].dtype == "float64"
    )  # nullable int64 -> float in pandas
    assert pq.read_table(paths.solutions).schema.equals(STORES["solutions"][0])


CREATED = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-01T12:30:00Z", CREATED),
        ("2024-05-01T14:30:00+02:00", CREATED),
        (CREATED, CREATED),
        (datetime(2024, 5, 1, 12, 30), CREATED),  # naive values are taken as UTC
        (None, None),
    ],
)
def test_created_at_accepts_iso_strings_and_datetimes(value, expected):
    table = coerce_rows("solutions", [solution("c", "i", created_at=value)])
    assert table.column("created_at").to_pylist() == [expected]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (solution("c", "i", colour="red"), "unknown column(s) colour"),
        (solution("c", "i", epoch=None), "key column epoch"),
        ({"item_id": "i", "epoch": 1}, "key column condition_id"),
        (solution("c", "i", max_tokens=2.5), "column max_tokens"),
        (solution("c", "i", usd="cheap"), "column usd"),
        (solution("c", "i", created_at="yesterday"), "column created_at"),
    ],
)
def test_bad_rows_are_refused_naming_the_column(paths, row, message):
    with pytest.raises(
        StoreError, match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        upsert(paths, "solutions", [row])
    assert not paths.solutions.exists()


def test_an_empty_batch_writes_nothing(paths):
    assert upsert(paths, "solutions", []) == 0
    assert not paths.solutions.exists()


# ---- readers


def test_store_reads_as_plain_parquet_every_way(paths):
    upsert(paths, "solutions", [solution(f"c{i % 4}", f"i{i}") for i in range(40)])
    upsert(paths, "solutions", [solution("c1", "i1", run_id="again")])
    assert len(pd.read_parquet(paths.solutions)) == 40
    assert ds.dataset(paths.solutions).to_table().num_rows == 40
    files = glob.glob(str(paths.solutions / "*.parquet"))
    assert sum(pq.read_metadata(file).num_rows for file in files) == 40


def test_read_store_selects_columns_and_partitions(paths):
    upsert(
        paths,
        "solutions",
        [
            solution(f"c{i % 4}", f"i{i}", error="boom" if i == 5 else None)
            for i in range(40)
        ],
    )
    table = read_store(
        paths,
        "solutions",
        ["condition_id", "item_id", "error"],
        where={"condition_id": ["c1", "c9"]},
    )
    assert table.column_names == ["condition_id", "item_id", "error"]
    assert sorted(table["item_id"].to_pylist()) == sorted(
        f"i{i}" for i in range(1, 40, 4)
    )
    assert table["error"].to_pylist().count("boom") == 1
    assert read_store(paths, "solutions").num_rows == 40
    assert read_store(paths, "solutions", ["item_id"], where={"item_id": ["i3"]})[
        "item_id"
    ].to_pylist() == ["i3"]


def test_read_store_only_opens_the_partitions_it_needs(paths):
    upsert(paths, "solutions", [solution("keep", "i1"), solution("bad", "i1")])
    upsert(paths, "solutions", [solution("keep", "i2")])
    bad = [
        name
        for name in part_files(paths.solutions)
        if read_part_condition(paths.solutions / name) == "bad"
    ]
    (paths.solutions / bad[0]).write_bytes(
        b"not parquet"
    )  # hard-linked: damages both kept versions
    assert (
        read_store(
            paths, "solutions", ["item_id"], where={"condition_id": ["keep"]}
        ).num_rows
        == 2
    )
    with pytest.raises(StoreError, match=bad[0]):
        read_store(paths, "solutions", ["item_id"])


def read_part_condition(path: Path) -> str:
    return pq.read_table(path, columns=["condition_id"])["condition_id"][0].as_py()


def test_missing_store_reads_empty_with_its_schema(paths):
    table = read_store(paths, "grades", ["grade_condition_id", "score"])
    assert table.num_rows == 0
    grades = STORES["grades"][0]
    assert table.schema.equals(
        pa.schema([grades.field("grade_condition_id"), grades.field("score")])
    )
    with pytest.raises(StoreError, match="unknown column"):
        read_store(paths, "grades", ["nope"])


# ---- foreign and damaged stores


def foreign_file(paths):
    pq.write_table(pa.table({"x": [1]}), paths.solutions)


def foreign_dir(paths):
    paths.solutions.mkdir()
    pq.write_table(pa.table({"x": [1]}), paths.solutions / "part.parquet")


def dangling_link(paths):
    os.symlink(".solutions.versions/v000007", paths.solutions)


def garbage_part(paths):
    upsert(paths, "solutions", [solution("c", "i1")])
    (paths.solutions / part_files(paths.solutions)[0]).write_bytes(b"PAR1 torn")


def wrong_schema_part(paths):
    upsert(paths, "solutions", [solution("c", "i1")])
    pq.write_table(
        pa.table({"condition_id": ["c"], "item_id": ["i1"], "epoch": [1.5]}),
        paths.solutions / part_files(paths.solutions)[0],
    )


def stray_file(paths):
    upsert(paths, "solutions", [solution("c", "i1")])
    pq.write_table(pa.table({"x": [1]}), paths.solutions / "mine.parquet")


@pytest.mark.parametrize(
    "damage",
    [
        foreign_file,
        foreign_dir,
        dangling_link,
        garbage_part,
        wrong_schema_part,
        stray_file,
    ],
)
def test_foreign_or_corrupt_store_is_an_error_never_overwritten(paths, damage):
    paths.root.mkdir(parents=True)
    damage(paths)
    before = snapshot(paths.root)
    with pytest.raises(StoreError, match="solutions.parquet") as raised:
        upsert(paths, "solutions", [solution("c", "i1"), solution("c", "i2")])
    assert raised.value.exit_code == 1
    with pytest.raises(StoreError):
        read_store(paths, "solutions")
    assert snapshot(paths.root) == before


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file()
    }


# ---- housekeeping


def test_parts_stay_bounded_and_old_versions_are_collected(paths, monkeypatch):
    monkeypatch.setattr("itemeval.store.local.READER_GRACE_S", 0.0)
    for n in range(40):
        upsert(
            paths,
            "solutions",
            [solution("c", f"i{n}-{k}") for k in range(n % 5 + 1)]
            + [solution("d", f"i{n}")],
        )
    upsert(paths, "solutions", [solution("c", "i3-0", run_id="again")])
    conditions = [
        read_part_condition(paths.solutions / name)
        for name in part_files(paths.solutions)
    ]
    assert 1 <= conditions.count("c") <= PART_LIMIT
    assert 1 <= conditions.count("d") <= PART_LIMIT
    assert (
        len(pd.read_parquet(paths.solutions)) == sum(n % 5 + 1 for n in range(40)) + 40
    )
    kept = set(os.listdir(paths.root / ".solutions.versions")) - {integrity.SINCE}
    assert len(kept) == 2


def test_a_version_a_reader_resolved_stays_readable_through_later_commits(
    paths, monkeypatch
):
    """A reader that resolved the link (pandas.read_parquet) finishes reading,
    however many commits follow."""
    upsert(paths, "solutions", [solution("c", "i1")])
    resolved = paths.solutions.resolve()
    for n in range(2, 6):
        upsert(paths, "solutions", [solution("c", f"i{n}")])
    assert resolved != paths.solutions.resolve()
    assert (
        len(pd.read_parquet(resolved)) == 1
    )  # superseded four commits ago, still whole
    monkeypatch.setattr("itemeval.store.local.READER_GRACE_S", 0.0)
    upsert(paths, "solutions", [solution("c", "i6")])
    kept = set(os.listdir(paths.root / ".solutions.versions")) - {integrity.SINCE}
    assert not resolved.exists() and len(kept) == 2  # then collected


def test_leftovers_of_a_killed_writer_are_ignored_then_cleaned(paths):
    upsert(paths, "solutions", [solution("c", "i1")])
    versions = paths.root / ".solutions.versions"
    (versions / "v000002").mkdir()
    pq.write_table(
        pa.table({"x": [1]}),
        versions / "v000002" / "p-0000000000000000-v000002-0.parquet",
    )
    os.symlink(
        ".solutions.versions/v000002", paths.root / ".solutions.parquet.tmp-99999"
    )
    (paths.solutions / ".p-half-written.parquet").write_bytes(b"junk")
    assert len(pd.read_parquet(paths.solutions)) == 1

    upsert(paths, "solutions", [solution("c", "i2")])
    assert len(pd.read_parquet(paths.solutions)) == 2
    assert not (paths.root / ".solutions.parquet.tmp-99999").exists()
    assert verify_store(paths, "solutions") == 2


def test_read_store_sees_whole_versions_while_a_writer_commits(paths):
    upsert(paths, "solutions", [solution("c", "i0")])
    read_done = (
        threading.Event()
    )  # set after every read, so the writer can wait for one per commit
    done = threading.Event()
    failures: list[Exception] = []

    def write() -> None:
        try:
            for n in range(1, 60):
                # progress by count, not speed: a read finishes after each commit before
                # the next one starts
                read_done.clear()
                if not read_done.wait(timeout=120):
                    raise TimeoutError("the reader finished no read in 120 s")
                upsert(
                    paths,
                    "solutions",
                    [
                        solution("c", f"i{n}"),
                        solution("d", f"i{n}"),
                        solution("c", f"i{n - 1}", run_id="x"),
                    ],
                )
        # a thread's exception is lost unless the test re-raises it
        except Exception as exc:  # noqa: BLE001 - the test re-raises it
            failures.append(exc)
        finally:
            done.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    seen = []
    while (
        not done.is_set()
    ):  # reads never wait for the writer, so they overlap its commits
        table = read_store(
            paths, "solutions", ["condition_id", "item_id", "epoch"]
        ).to_pandas()
        assert not table.duplicated().any()
        seen.append(len(table))
        read_done.set()
    writer.join()
    assert not failures, failures
    assert seen == sorted(seen) and len(seen) >= 59
    assert len(read_store(paths, "solutions", ["item_id"])) == 60 + 59


# ---- atomicity under SIGKILL

CHILD = r'''
import random, sys
from pathlib import Path

def batch(n):
    """Batch n: ~30 deterministic keys, all marked b<n>; later batches overwrite
    some earlier keys."""
    rng = random.Random(n)
    keys = {
        (f"c{rng.randrange(3)}", f"i{rng.randrange(60)}", rng.randrange(1, 3))
        for _ in range(30)
    }
    return [
        {"condition_id": c, "item_id": i, "epoch": e, "run_id": f"b{n:06d}",
         "solution": "s" * 2000}
        for c, i, e in sorted(keys)
    ]

if __name__ == "__main__":
    from itemeval.paths import StudyPaths
    from itemeval.store import read_store, upsert
    paths = StudyPaths(Path(sys.argv[1]))
    done = read_store(paths, "solutions", ["run_id"])["run_id"].to_pylist()
    n = max((int(tag[1:]) for tag in done), default=-1) + 1
    print("ready", flush=True)
    while True:
        upsert(paths, "solutions", batch(n))
        print("committed", flush=True)
        n += 1
'''


def expected_after(batches: int, batch) -> dict[tuple, str]:
    state: dict[tuple, str] = {}
    for n in range(batches):
        for row in batch(n):
            state[(row["condition_id"], row["item_id"], row["epoch"])] = row["run_id"]
    return state


def test_sigkill_at_any_instant_leaves_each_upsert_all_or_nothing(paths):
    namespace: dict = {}
    exec(
        CHILD, namespace
    )  # the same batch() the child runs, to recompute the expected store
    rng = random.Random(7)
    batches = 0
    for _ in range(20):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(paths.root)],
            stdout=subprocess.PIPE,
            cwd=REPO,
        )
        assert child.stdout.readline() == b"ready\n"
        # Progress by count, not speed: wait for 1-3 announced commits, then kill at a
        # random instant of whatever the child is doing by then, most often in the
        # middle of its next upsert.
        announced = rng.randint(1, 3)
        for _ in range(announced):
            assert child.stdout.readline() == b"committed\n"
        time.sleep(rng.uniform(0, 0.1))
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        child.stdout.close()

        frame = pd.read_parquet(paths.solutions)
        before, batches = (
            batches,
            max((int(tag[1:]) for tag in frame["run_id"]), default=-1) + 1,
        )
        assert batches >= before + announced, (
            "every upsert the child announced must be in the store"
        )
        assert keyed(frame, "solutions", "run_id") == expected_after(
            batches, namespace["batch"]
        )
    assert verify_store(paths, "solutions") == len(
        expected_after(batches, namespace["batch"])
    )


# ---- issue 26 case 5: a damaged or incomplete version is refused, never read silently


def _graded_study(root: Path) -> Path:
    from tests.helpers import write_study

    path = write_study(root)
    from itemeval.cli import main

    assert main(["generate", str(path), "--yes"]) == 0
    assert main(["grade", str(path), "--yes"]) == 0
    return path


def _parts(root: Path, store: str) -> list[Path]:
    return sorted((root / "studies" / "t" / f"{store}.parquet").resolve().glob("p-*"))


def _flip(path: Path, count: int = 64, seed: int = 0) -> None:
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for index in rng.sample(range(8, len(data) - 8), count):
        data[index] ^= 0xFF
    os.chmod(path, 0o644)
    path.write_bytes(bytes(data))


def _overwrite_with_random(path: Path) -> None:
    size = path.stat().st_size
    path.write_bytes(random.Random(1).randbytes(size))


@pytest.mark.parametrize(
    ("store", "damage"),
    [
        ("grades", _flip),
        ("items", _overwrite_with_random),
        ("solutions", Path.unlink),
    ],
)
def test_a_damaged_store_is_refused_by_every_command_naming_it(
    tmp_path, capsys, store, damage
):
    from itemeval.cli import main

    path = _graded_study(tmp_path)
    (part,) = _parts(tmp_path, store)[:1]
    damage(part)
    capsys.readouterr()
    readers = {  # the commands that read the damaged store
        "grades": [["status"], ["results"], ["report"], ["export"], ["grade", "--yes"]],
        "items": [["generate", "--yes", "--force"]],
        "solutions": [
            ["status"],
            ["results"],
            ["generate", "--yes"],
            ["grade", "--yes"],
        ],
    }
    for command in readers[store]:
        code = main([command[0], str(path), *command[1:]])
        err = capsys.readouterr().err
        assert code == 1, (command, err[-1500:])
        assert part.name in err and "Traceback" not in err, (command, err)
        assert "damaged" in err or "incomplete" in err


def test_a_version_from_before_the_manifest_still_reads_and_gains_one(paths):
    upsert(paths, "solutions", [solution("c1", "i1")])
    (manifest,) = paths.solutions.resolve().glob("_integrity.json")
    since = paths.solutions.resolve().parent / "_integrity_since.json"
    manifest.unlink()  # as written by an older itemeval: neither file
    since.unlink()
    assert read_store(paths, "solutions").num_rows == 1
    upsert(paths, "solutions", [solution("c1", "i2")])
    assert (paths.solutions.resolve() / "_integrity.json").exists()
    assert json.loads(since.read_text()) == {"version": 2}
    assert read_store(paths, "solutions").num_rows == 2


def _duplicate_rows(path: Path) -> None:
    """The part rewritten as a valid parquet file holding each row twice."""
    table = pq.read_table(path)
    os.chmod(path, 0o644)
    pq.write_table(pa.concat_tables([table, table]), path)


READERS = [["status"], ["results"], ["report"], ["export"], ["show", "a1"]]


@pytest.mark.parametrize("damage", [_flip, Path.unlink, _duplicate_rows])
def test_deleting_the_integrity_record_turns_no_check_off(tmp_path, capsys, damage):
    from itemeval.cli import main

    path = _graded_study(tmp_path)
    study = tmp_path / "studies" / "t"
    version = os.readlink(study / "solutions.parquet")
    (study / "solutions.parquet").resolve().joinpath("_integrity.json").unlink()
    damage(_parts(tmp_path, "solutions")[0])
    capsys.readouterr()
    for command in [*READERS, ["generate", "--yes"], ["grade", "--yes"]]:
        code = main([command[0], str(path), *command[1:]])
        err = capsys.readouterr().err
        assert code == 1, (command, err[-1500:])
        assert "lost its integrity record" in err and "Traceback" not in err, err
        assert "_integrity.json is missing" in err
    # nothing was run again: no row journaled, the store still at the same version
    assert os.readlink(study / "solutions.parquet") == version
    assert not list(study.glob("journal/*.jsonl"))


def test_a_damaged_items_store_is_refused_by_every_command(tmp_path, capsys):
    from itemeval.cli import main

    path = _graded_study(tmp_path)
    _overwrite_with_random(_parts(tmp_path, "items")[0])
    capsys.readouterr()
    for command in [*READERS, ["grade", "--yes", "--force"], ["estimate"]]:
        code = main([command[0], str(path), *command[1:]])
        err = capsys.readouterr().err
        assert code == 1, (command, err[-1500:])
        assert "items.parquet" in err and "damaged" in err, (command, err)
        assert "Traceback" not in err


# ---- a key column added later: the grade's draw


def grade_row(item: str, draw: int | None = None, **extra) -> dict:
    row = {
        "grade_condition_id": "g",
        "gen_condition_id": "c",
        "item_id": item,
        "epoch": 1,
        **extra,
    }
    return row if draw is None else {**row, "draw": draw}


def write_before_draws(paths: StudyPaths, monkeypatch, rows: list[dict]) -> None:
    """Grades as an itemeval from before `draw` wrote them: no such column at all."""
    schema, key = STORES["grades"]
    older = schema.remove(schema.get_field_index("draw"))
    with monkeypatch.context() as patch:
        patch.setitem(STORES, "grades", (older, tuple(k for k in key if k != "draw")))
        upsert(paths, "grades", rows)


def test_grades_from_before_draws_read_as_draw_1_and_are_replaced_by_it(
    paths, monkeypatch
):
    write_before_draws(
        paths, monkeypatch, [grade_row(f"i{n}", score=0.0) for n in (1, 2)]
    )
    physical = pq.read_schema(glob.glob(f"{paths.grades}/*.parquet")[0])
    assert "draw" not in physical.names

    read = read_store(paths, "grades", ["item_id", "draw", "score"]).to_pylist()
    assert sorted(read, key=str) == sorted(
        [{"item_id": f"i{n}", "draw": 1, "score": 0.0} for n in (1, 2)], key=str
    )
    assert read_store(paths, "grades", ["item_id"], where={"draw": [1]}).num_rows == 2
    assert read_store(paths, "grades", ["item_id"], where={"draw": [2]}).num_rows == 0

    # draw 1 of i1 replaces the old row; draw 2 sits beside it; i2 is left as it was
    upsert(
        paths, "grades", [grade_row("i1", 1, score=1.0), grade_row("i1", 2, score=0.5)]
    )
    frame = read_store(paths, "grades", ["item_id", "draw", "score"]).to_pandas()
    assert sorted(map(tuple, frame.to_numpy().tolist())) == [
        ("i1", 1, 1.0),
        ("i1", 2, 0.5),
        ("i2", 1, 0.0),
    ]
    assert verify_store(paths, "grades") == 3


def test_a_grade_given_without_a_draw_is_draw_1(paths):
    upsert(paths, "grades", [grade_row("i1")])
    assert read_store(paths, "grades", ["draw"]).column("draw").to_pylist() == [1]
    assert coerce_rows("grades", [grade_row("i1", None)]).column("draw").null_count == 0
