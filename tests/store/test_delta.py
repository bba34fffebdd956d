"""Tests for the object-storage backend (store.delta, store.snapshot, store.remote)
against a loopback moto S3."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake
from deltalake.exceptions import CommitFailedError

from itemeval.errors import StoreError
from itemeval.paths import StudyPaths
from itemeval.store import delta, local
from itemeval.store.delta import merge_predicate, read_delta, upsert_delta
from itemeval.store.remote import is_remote, storage_options_for
from itemeval.store.schemas import STORES
from itemeval.store.snapshot import publish_snapshot, read_snapshot
from itemeval.store.table import coerce_rows
from tests.s3_server import s3_server  # noqa: F401  (the fixture)

STAMP = datetime(2025, 3, 1, 12, 30, tzinfo=timezone.utc)
LOGPROBS = [
    {
        "token": "4",
        "logprob": -0.01,
        "top": [{"token": "4", "logprob": -0.01}, {"token": "5", "logprob": -4.6}],
    }
]


def solution(condition: str, item: str, epoch: int = 1, **extra) -> dict:
    return {
        "condition_id": condition,
        "item_id": item,
        "epoch": epoch,
        "model": "openai/m",
        "temperature": 0.7,
        "solution": f"{condition}/{item}/{epoch}",
        "blank": False,
        "logprobs": LOGPROBS,
        "input_tokens": 12,
        "usd": None,
        "created_at": STAMP,
        **extra,
    }


ROWS = {
    "solutions": lambda i, tag: solution(f"c{i % 3}", f"i{i}", 1 + i % 2, run_id=tag),
    "grades": lambda i, tag: {
        "grade_condition_id": f"g{i % 2}",
        "gen_condition_id": f"c{i % 3}",
        "item_id": f"i{i}",
        "epoch": 1,
        "score": i / 4,
        "parse_ok": i % 5 != 0,
        "score_metadata": '{"p":0.5}',
        "created_at": STAMP,
        "run_id": tag,
    },
    "items": lambda i, tag: {
        "item_id": f"i{i}",
        "input": f"question {i}",
        "target": str(i),
        "targets": [str(i)],
        "choices": None if i % 2 else ["a", "b"],
        "row_index": i,
        "metadata": tag,
    },
}
TAG = {"solutions": "run_id", "grades": "run_id", "items": "metadata"}


def by_key(table: pa.Table, store: str) -> pa.Table:
    return table.sort_by([(name, "ascending") for name in STORES[store][1]])


def keys_of(table: pa.Table, store: str) -> list[tuple]:
    key = STORES[store][1]
    return list(zip(*(table.column(name).to_pylist() for name in key)))


# ---- the table: keyed upserts and reads


@pytest.mark.parametrize("store", sorted(ROWS))
def test_a_delta_store_reads_back_what_the_local_store_does(s3_server, tmp_path, store):
    first = [ROWS[store](i, "old") for i in range(12)]
    second = [ROWS[store](i, "new") for i in range(8, 16)]
    paths = StudyPaths(tmp_path / "demo")
    uri = s3_server.uri("demo", store)
    for rows in (first, second):
        assert upsert_delta(uri, store, rows) == local.upsert(paths, store, rows)

    remote, here = (
        by_key(read_delta(uri, store), store),
        by_key(local.read_store(paths, store), store),
    )
    assert remote.schema.equals(STORES[store][0])
    assert remote.equals(here)
    assert remote.num_rows == 16


@pytest.mark.parametrize("store", sorted(ROWS))
def test_rewritten_keys_replace_their_rows(s3_server, store):
    uri, make = s3_server.uri("demo", store), ROWS[store]
    assert upsert_delta(uri, store, [make(i, "old") for i in range(20)]) == 20
    assert upsert_delta(uri, store, [make(i, "new") for i in range(15, 25)]) == 10
    assert upsert_delta(uri, store, [make(i, "newer") for i in range(15, 25)]) == 10

    table = read_delta(uri, store)
    keys = keys_of(table, store)
    assert len(keys) == len(set(keys)) == 25
    assert sorted(table.column(TAG[store]).to_pylist()) == ["newer"] * 10 + ["old"] * 15


def test_where_filters_rows_and_skips_other_partitions(s3_server):
    uri = s3_server.uri("demo", "solutions")
    upsert_delta(uri, "solutions", [solution(f"c{i % 3}", f"i{i}") for i in range(30)])

    picked = read_delta(
        uri,
        "solutions",
        ["condition_id", "item_id"],
        where={"condition_id": ["c1"], "item_id": ["i1", "i4", "i5"]},
    )
    assert sorted(picked.column("item_id").to_pylist()) == ["i1", "i4"]
    assert read_delta(uri, "solutions", where={"condition_id": []}).num_rows == 0

    # Spoil every file of partition c0: a read pinned to c1 must not open them, an
    # unpinned one must (and finds them damaged: issue 26 case 5).
    client = s3_server.client()
    spoiled = client.list_objects_v2(
        Bucket=s3_server.bucket, Prefix="demo/solutions/condition_id=c0/"
    )["Contents"]
    for entry in spoiled:
        client.put_object(
            Bucket=s3_server.bucket, Key=entry["Key"], Body=b"not parquet"
        )
    assert read_delta(uri, "solutions", where={"condition_id": ["c1"]}).num_rows == 10
    with pytest.raises(StoreError, match="condition_id=c0/.* is damaged"):
        read_delta(uri, "solutions")


def test_the_same_app_transaction_commits_once(s3_server):
    uri = s3_server.uri("demo", "solutions")
    part = [solution("c0", f"i{i}", run_id="part-7") for i in range(5)]
    assert upsert_delta(uri, "solutions", part, app_id="committer", app_version=7) == 5
    version, rows = (
        DeltaTable(uri, storage_options=storage_options_for(uri)).version(),
        read_delta(uri, "solutions"),
    )

    replay = [solution("c0", f"i{i}", run_id="replayed") for i in range(5)]
    assert (
        upsert_delta(uri, "solutions", replay, app_id="committer", app_version=7) == 0
    )
    assert (
        upsert_delta(uri, "solutions", replay, app_id="committer", app_version=3) == 0
    )
    assert (
        DeltaTable(uri, storage_options=storage_options_for(uri)).version() == version
    )
    assert by_key(read_delta(uri, "solutions"), "solutions").equals(
        by_key(rows, "solutions")
    )

    assert (
        upsert_delta(uri, "solutions", replay, app_id="committer", app_version=8) == 5
    )
    assert set(
        read_delta(uri, "solutions", ["run_id"]).column("run_id").to_pylist()
    ) == {"replayed"}


def test_concurrent_writers_end_with_the_union_of_their_keys(s3_server):
    """Four writers race to create the table, then merge overlapping keys (c0) and
    their own (c1..c4)."""
    uri, writers = s3_server.uri("demo", "solutions"), 4
    start, results, errors = threading.Barrier(writers), {}, []

    def write(w: int) -> None:
        rows = [solution("c0", f"shared{i}", run_id=f"w{w}") for i in range(6)]
        rows += [solution(f"c{w + 1}", f"own{i}", run_id=f"w{w}") for i in range(4)]
        start.wait()
        try:
            results[w] = upsert_delta(uri, "solutions", rows)
        except StoreError as exc:  # reported below rather than lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    assert results == {w: 10 for w in range(writers)}
    table = read_delta(uri, "solutions", ["condition_id", "item_id", "epoch", "run_id"])
    keys = keys_of(table, "solutions")
    expected = {("c0", f"shared{i}", 1) for i in range(6)} | {
        (f"c{w + 1}", f"own{i}", 1) for w in range(writers) for i in range(4)
    }
    assert len(keys) == len(set(keys)) and set(keys) == expected
    for condition, run_id in zip(
        table.column("condition_id").to_pylist(), table.column("run_id").to_pylist()
    ):
        writer = f"w{int(condition[1:]) - 1}"  # c1 is w0's own partition...
        assert (
            run_id in {f"w{w}" for w in range(writers)}
            if condition == "c0"
            else run_id == writer
        )


def test_a_missing_table_reads_empty_with_the_schema(s3_server):
    uri = s3_server.uri("demo", "grades")
    empty = read_delta(uri, "grades")
    assert empty.num_rows == 0 and empty.schema.equals(STORES["grades"][0])
    assert read_delta(uri, "grades", ["item_id", "score"]).schema.names == [
        "item_id",
        "score",
    ]
    assert read_snapshot(s3_server.uri("demo"), "grades").schema.equals(
        STORES["grades"][0]
    )
    with pytest.raises(StoreError, match="unknown column"):
        read_delta(uri, "grades", ["nope"])


def test_columns_a_table_predates_read_as_nulls_until_written(s3_server):
    uri, options = (
        s3_server.uri("demo", "solutions"),
        storage_options_for(s3_server.uri()),
    )
    older = coerce_rows("solutions", [solution("c0", "i0")]).drop_columns(
        ["logprobs", "blank"]
    )
    write_deltalake(uri, older, partition_by=["condition_id"], storage_options=options)

    read = read_delta(uri, "solutions")
    assert read.schema.equals(STORES["solutions"][0])
    assert (
        read.column("logprobs").null_count == 1 and read.column("blank").null_count == 1
    )

    upsert_delta(uri, "solutions", [solution("c0", "i1", blank=True)])
    blank = (
        read_delta(uri, "solutions", ["item_id", "blank"])
        .sort_by("item_id")
        .column("blank")
    )
    assert blank.to_pylist() == [None, True]


def test_a_foreign_table_is_refused(s3_server):
    uri = s3_server.uri("demo", "grades")
    write_deltalake(
        uri,
        pa.table({"item_id": [1, 2], "note": ["a", "b"]}),
        storage_options=storage_options_for(uri),
    )
    with pytest.raises(
        StoreError,
        match="does not have the columns and types of an itemeval grades table",
    ):
        read_delta(uri, "grades")
    with pytest.raises(
        StoreError,
        match="does not have the columns and types of an itemeval grades table",
    ):
        upsert_delta(uri, "grades", [ROWS["grades"](1, "x")])


def test_a_writer_beaten_at_every_attempt_gives_up_naming_the_table(
    s3_server, monkeypatch
):
    uri = s3_server.uri("demo", "solutions")
    upsert_delta(uri, "solutions", [solution("c0", "i0")])

    def always_beaten(*args, **kwargs):
        raise CommitFailedError("a concurrent transaction added new data")

    monkeypatch.setattr(DeltaTable, "merge", always_beaten)
    monkeypatch.setattr(delta, "_backoff_s", lambda attempt: 0.0)
    with pytest.raises(
        StoreError,
        match=f"gave up writing the solutions table at {uri} after "
        f"{delta.COMMIT_ATTEMPTS}",
    ):
        upsert_delta(uri, "solutions", [solution("c0", "i1")])


# ---- snapshots: one plain parquet file per store, named in latest.json


def test_a_snapshot_is_plain_parquet_equal_to_the_table(s3_server):
    study = s3_server.uri("demo")
    upsert_delta(
        f"{study}/solutions",
        "solutions",
        [solution(f"c{i % 3}", f"i{i}", run_id="a") for i in range(30)],
    )
    upsert_delta(
        f"{study}/solutions",
        "solutions",
        [solution(f"c{i % 3}", f"i{i}", run_id="b") for i in range(20, 40)],
    )
    document = publish_snapshot(study)

    assert set(document["stores"]) == {
        "solutions"
    }  # items and grades have no table yet
    s3 = pafs.S3FileSystem(
        endpoint_override=s3_server.endpoint,
        access_key="testing",
        secret_key="testing",
        region="us-east-1",
    )
    with s3.open_input_stream(f"{s3_server.bucket}/demo/latest.json") as handle:
        latest = json.loads(handle.read())
    assert latest == json.loads(json.dumps(document))
    entry = latest["stores"]["solutions"]
    plain = pq.read_table(
        f"{s3_server.bucket}/demo/{entry['path']}", filesystem=s3
    ).to_pandas()
    assert len(plain) == entry["rows"] == 40
    assert not plain.duplicated(["condition_id", "item_id", "epoch"]).any()
    delta = read_delta(f"{study}/solutions", "solutions")
    assert by_key(
        pa.Table.from_pandas(plain, schema=delta.schema, preserve_index=False),
        "solutions",
    ).equals(by_key(delta, "solutions"))
    assert by_key(read_snapshot(study, "solutions"), "solutions").equals(
        by_key(delta, "solutions")
    )
    assert (
        read_snapshot(
            study, "solutions", ["item_id"], where={"condition_id": ["c2"]}
        ).num_rows
        == 13
    )


def test_publishing_keeps_the_current_and_previous_snapshot_files(s3_server):
    study = s3_server.uri("demo")
    versions = []
    for round_ in range(3):
        upsert_delta(
            f"{study}/grades",
            "grades",
            [ROWS["grades"](i, f"r{round_}") for i in range(round_, 6)],
        )
        versions.append(
            publish_snapshot(study, ["grades"])["stores"]["grades"]["version"]
        )
    assert (
        publish_snapshot(study, ["grades"])["stores"]["grades"]["version"]
        == versions[-1]
    )  # nothing new

    listed = s3_server.client().list_objects_v2(
        Bucket=s3_server.bucket, Prefix="demo/snapshots/"
    )["Contents"]
    assert sorted(entry["Key"].rsplit("/", 1)[-1] for entry in listed) == [
        f"grades-v{versions[1]}.parquet",
        f"grades-v{versions[2]}.parquet",
    ]
    assert set(
        pc.unique(
            read_snapshot(study, "grades", ["run_id"]).column("run_id")
        ).to_pylist()
    ) == {"r0", "r1", "r2"}


# ---- pure parts: predicates and options


def test_merge_predicate_pins_partitions_to_literal_values():
    solutions = coerce_rows(
        "solutions", [solution("b", "i1"), solution("it's", "i2"), solution("b", "i3")]
    )
    assert merge_predicate("solutions", solutions) == (
        "t.condition_id IN ('b', 'it''s') AND t.condition_id = s.condition_id "
        "AND t.item_id = s.item_id "
        "AND t.epoch = s.epoch"
    )
    grades = coerce_rows("grades", [ROWS["grades"](i, "x") for i in range(2)])
    assert merge_predicate("grades", grades).startswith(
        "t.grade_condition_id IN ('g0', 'g1') AND t.gen_condition_id IN ('c0', "
        "'c1') AND "
    )
    assert (
        merge_predicate("items", coerce_rows("items", [ROWS["items"](1, "x")]))
        == "t.item_id = s.item_id"
    )


@pytest.mark.parametrize(
    "location, remote",
    [
        ("s3://bucket/prefix", True),
        ("gs://b/p", True),
        ("az://c/p", True),
        ("abfs://c@a.dfs.core.windows.net/p", True),
        ("memory://studies", True),
        ("S3://Bucket", True),
        ("file:///tmp/studies", False),
        ("studies", False),
        ("/abs/studies", False),
        ("C:\\studies", False),
    ],
)
def test_is_remote(location, remote):
    assert is_remote(location) is remote


def test_storage_options_come_from_the_environment():
    env = {
        "AWS_ACCESS_KEY_ID": "k",
        "AWS_SECRET_ACCESS_KEY": "s",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        "HOME": "/home/x",
    }
    assert storage_options_for("s3://b/p", env) == {
        "AWS_ACCESS_KEY_ID": "k",
        "AWS_SECRET_ACCESS_KEY": "s",
        "AWS_REGION": "eu-west-1",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        "AWS_ALLOW_HTTP": "true",
        "conditional_put": "etag",
    }
    secure = storage_options_for(
        "s3://b/p",
        {
            "AWS_REGION": "us-east-2",
            "AWS_DEFAULT_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL_S3": "https://minio.local",
        },
    )
    assert secure == {
        "AWS_REGION": "us-east-2",
        "AWS_ENDPOINT_URL": "https://minio.local",
        "conditional_put": "etag",
    }
    assert storage_options_for("gs://b/p", env) == {}


def test_a_grades_table_from_before_draws_reads_as_draw_1_and_merges_by_it(s3_server):
    uri = s3_server.uri("demo", "grades")
    options = storage_options_for(s3_server.uri())
    rows = [
        {"grade_condition_id": "g", "gen_condition_id": "c", "item_id": item}
        | {"epoch": 1, "score": 0.0}
        for item in ("i1", "i2")
    ]
    older = coerce_rows("grades", rows).drop_columns(["draw"])
    partitions = ["grade_condition_id", "gen_condition_id"]
    write_deltalake(uri, older, partition_by=partitions, storage_options=options)

    assert read_delta(uri, "grades", ["draw"]).column("draw").to_pylist() == [1, 1]
    assert read_delta(uri, "grades", ["item_id"], where={"draw": [1]}).num_rows == 2

    # into a table without the column: draw 1 replaces, draw 2 is new
    again = [rows[0] | {"draw": 1, "score": 1.0}, rows[0] | {"draw": 2, "score": 0.5}]
    upsert_delta(uri, "grades", again)
    read = read_delta(uri, "grades", ["item_id", "draw", "score"]).to_pylist()
    assert sorted(tuple(row.values()) for row in read) == [
        ("i1", 1, 1.0),
        ("i1", 2, 0.5),
        ("i2", 1, 0.0),
    ]
    # now the column exists, holding null in the old i2 row: still matched as draw 1
    upsert_delta(uri, "grades", [rows[1] | {"draw": 1, "score": 1.0}])
    read = read_delta(uri, "grades", ["item_id", "draw", "score"]).to_pylist()
    assert sorted(tuple(row.values()) for row in read) == [
        ("i1", 1, 1.0),
        ("i1", 2, 0.5),
        ("i2", 1, 1.0),
    ]
