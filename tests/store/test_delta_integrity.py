"""Issue 26 case 5 on object storage: a damaged or incomplete Delta table is refused.

Real objects are damaged in a loopback S3 server (moto): bytes flipped in a grades
part, a solutions part deleted, random bytes over an items part. Every command that
reads the store exits 1 naming the object and the recovery, never a partial answer.
"""

from __future__ import annotations

import json
import random
from urllib.parse import unquote

import pyarrow as pa
import pytest

pytest.importorskip(
    "deltalake",
    reason="studies on object storage need itemeval[delta] (make test installs it)",
)
pytest.importorskip(
    "moto", reason="the loopback S3 server is moto's (make test installs it)"
)

from deltalake import DeltaTable  # noqa: E402

from itemeval.cli import main  # noqa: E402
from tests.helpers import base_config, write_study  # noqa: E402
from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture

ROWS = [
    {"qid": f"q{i:02d}", "question": f"What is {i} + {i}?", "answer": str(2 * i)}
    for i in range(1, 7)
]


def _study(tmp_path, monkeypatch):
    monkeypatch.setenv("ITEMEVAL_WORK_DIR", str(tmp_path / "work"))
    config = base_config(
        **{
            "cache": False,
            "output_dir": "s3://studies/team",
            "solvers__models": ["itemeval/arith-good"],
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge", "max_tokens": 256}},
        }
    )
    path = write_study(tmp_path / "study", config, rows=ROWS)
    assert main(["generate", str(path), "--yes"]) == 0
    assert main(["grade", str(path), "--yes"]) == 0
    return path


def _first_part(s3, store: str) -> str:
    """The object key of a data file of the table's current version (a file an
    earlier version replaced is no longer read)."""
    table = DeltaTable(s3.uri("team", "t", store), storage_options=_options(s3))
    paths = pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()
    return f"team/t/{store}/{unquote(sorted(paths)[0])}"


def _options(s3) -> dict[str, str]:
    from itemeval.store.remote import storage_options_for

    return storage_options_for(s3.uri())


def _flip(s3, key: str) -> None:
    """64 bytes flipped in place: the same size, new bytes (a new PUT on S3)."""
    client = s3.client()
    data = bytearray(client.get_object(Bucket=s3.bucket, Key=key)["Body"].read())
    rng = random.Random(0)
    for index in rng.sample(range(8, len(data) - 8), 64):
        data[index] ^= 0xFF
    client.put_object(Bucket=s3.bucket, Key=key, Body=bytes(data))


def _overwrite_with_random(s3, key: str) -> None:
    client = s3.client()
    size = client.head_object(Bucket=s3.bucket, Key=key)["ContentLength"]
    client.put_object(Bucket=s3.bucket, Key=key, Body=random.Random(1).randbytes(size))


def _delete(s3, key: str) -> None:
    s3.client().delete_object(Bucket=s3.bucket, Key=key)


READERS = {  # the commands that read the damaged store
    "grades": [["status"], ["results"], ["grade", "--yes"], ["export"]],
    "solutions": [["status"], ["results"], ["grade", "--yes"], ["export"]],
    "items": [["export"], ["generate", "--yes", "--force"]],
}


@pytest.mark.parametrize(
    ("store", "damage", "word"),
    [
        ("grades", _flip, "damaged"),
        ("solutions", _delete, "incomplete"),
        ("items", _overwrite_with_random, "damaged"),
    ],
)
def test_a_damaged_delta_table_is_refused_by_every_command_naming_the_object(
    s3_server, tmp_path, monkeypatch, capsys, store, damage, word
):
    path = _study(tmp_path, monkeypatch)
    key = _first_part(s3_server, store)
    damage(s3_server, key)
    capsys.readouterr()
    for command in READERS[store]:
        code = main([command[0], str(path), *command[1:]])
        err = capsys.readouterr().err
        assert code == 1, (command, err[-1500:])
        assert key.rsplit("/", 1)[-1] in err and word in err, (command, err)
        assert "repair" in err and "Traceback" not in err, (command, err)


def test_an_intact_table_reads_and_records_each_version(
    s3_server, tmp_path, monkeypatch
):
    path = _study(tmp_path, monkeypatch)
    assert main(["status", str(path)]) == 0
    client, bucket = s3_server.client(), s3_server.bucket
    for store in ("items", "solutions", "grades"):
        table = DeltaTable(
            s3_server.uri("team", "t", store), storage_options=_options(s3_server)
        )
        listed = client.list_objects_v2(
            Bucket=bucket, Prefix=f"team/t/{store}/_itemeval_integrity/"
        )
        names = [item["Key"].rsplit("/", 1)[-1] for item in listed["Contents"]]
        assert names[-1] == f"v{table.version():020d}.json" and len(names) <= 2
        key = f"team/t/{store}/_itemeval_integrity/{names[-1]}"
        record = json.loads(client.get_object(Bucket=bucket, Key=key)["Body"].read())
        paths = pa.table(table.get_add_actions(flatten=True)).column("path")
        assert sorted(record["files"]) == sorted(map(unquote, paths.to_pylist()))
