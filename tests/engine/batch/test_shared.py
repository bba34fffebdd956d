"""The batch ledger of a study on object storage: mirrored beside its tables when a
batch is created, and found again from another, empty working dir."""

from __future__ import annotations

import json
import shutil
import signal
import time
from dataclasses import asdict, replace

import pandas as pd
import pytest

from itemeval.engine.batch import ledger, shared
from itemeval.paths import StudyPaths
from tests.engine.batch.test_executor import batch_study, run, serve, started, stop

pytest.importorskip(
    "deltalake",
    reason="studies on object storage need itemeval[delta] (make test installs it)",
)
pytest.importorskip(
    "moto", reason="the loopback S3 server is moto's (make test installs it)"
)

from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture


def _record(**changes) -> ledger.Submission:
    base = ledger.Submission(
        id="20260101T000000-aaaaaaaa",
        stage="generate",
        model="openai-api/local/m",
        run_id="r1",
        config={},
        requests={"k1": ledger.Request("c", {"item_id": "a1"})},
        file_id="file-1",
        created_at=1_790_000_000.0,
    )
    return replace(base, **changes)


# (this machine's copy, the shared copy, what both hold after a fetch)
SETTLED = [
    (None, {}, {}),  # a record only another machine has: taken in
    ({}, {"batch_id": "b1"}, {"batch_id": "b1"}),  # created elsewhere
    ({"batch_id": "b1"}, {}, {"batch_id": "b1"}),  # its upload failed here
    (
        {"batch_id": "b1", "state": "closed"},
        {"batch_id": "b1", "status": "in_progress"},
        {"batch_id": "b1", "state": "closed"},
    ),
    (
        {"batch_id": "b1", "status": "in_progress"},
        {"batch_id": "b1", "state": "closed", "status": "completed"},
        {"batch_id": "b1", "state": "closed", "status": "completed"},
    ),
]


@pytest.mark.parametrize(("mine", "theirs", "settled"), SETTLED)
def test_of_two_copies_of_a_record_the_further_one_wins_on_both_sides(
    tmp_path, mine, theirs, settled
):
    uri = f"memory://settle-{time.time_ns()}/t"
    here = StudyPaths(tmp_path / "here", remote=uri)
    there = StudyPaths(tmp_path / "there", remote=uri)
    ledger.save(there, _record(**theirs))
    if mine is not None:
        local = ledger.folder(here) / f"{_record().id}.json"
        local.parent.mkdir(parents=True)
        local.write_text(json.dumps(asdict(_record(**mine))))
    (found,) = ledger.submissions(here)
    assert found == _record(**settled)
    shutil.rmtree(there.root)  # what the URI holds now
    assert ledger.submissions(there) == [_record(**settled)]


def test_a_local_study_keeps_its_ledger_to_itself(tmp_path):
    paths = StudyPaths(tmp_path)
    shared.fetch(paths)  # no URI: nothing to ask
    ledger.save(paths, _record())
    assert [s.id for s in ledger.open_submissions(paths)] == [_record().id]


def _shared_records(s3) -> list[dict]:
    listing = s3.client().list_objects_v2(Bucket="studies", Prefix="team/t/batches/")
    return [
        json.loads(
            s3.client().get_object(Bucket="studies", Key=o["Key"])["Body"].read()
        )
        for o in listing.get("Contents", [])
    ]


def _wait_shared(s3, count: int) -> None:
    """Until the bucket holds `count` records with their batch ids."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if sum(r["batch_id"] is not None for r in _shared_records(s3)) >= count:
            return
        time.sleep(0.05)
    pytest.fail("the batches never reached the bucket")


def test_a_re_run_from_an_empty_working_dir_collects_the_batches_it_never_saw(
    s3_server, tmp_path, capsys, monkeypatch
):
    path = batch_study(tmp_path, output_dir=s3_server.uri("team"))
    first, second = tmp_path / "first-machine", tmp_path / "second-machine"
    monkeypatch.setenv("ITEMEVAL_WORK_DIR", str(first))
    with serve(monkeypatch) as srv:
        with started(path, "generate") as proc:
            assert srv.batches.wait_for(2, timeout=90), proc.stderr
            _wait_shared(s3_server, 2)
            assert stop(proc, signal.SIGKILL) == -9
        assert srv.batches.submissions == 2 and srv.answered() == 0
        shutil.rmtree(first)  # the first machine is gone
        monkeypatch.setenv("ITEMEVAL_WORK_DIR", str(second))
        code, status = run(capsys, "status", str(path))
        assert code == 0 and sorted(b["batch_id"] for b in status["batches"]) == (
            sorted(srv.batches.open_ids())
        )
        code, estimate = run(capsys, "estimate", str(path))
        assert code == 0  # held by the open batches: paid for already
        assert estimate["stages"].get("generate", {"calls": 0})["calls"] == 0
        srv.batches.complete()
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2  # zero new batch submissions
        assert srv.batches.submitted() == 4 and srv.answered() == 4
    assert [r["state"] for r in _shared_records(s3_server)] == ["closed", "closed"]
    options = {
        "client_kwargs": {"endpoint_url": s3_server.endpoint},
        "key": "testing",
        "secret": "testing",
    }
    latest = json.loads(
        pd.io.common.get_handle(
            s3_server.uri("team", "t", "latest.json"), "r", storage_options=options
        ).handle.read()
    )
    rows = pd.read_parquet(
        s3_server.uri("team", "t", latest["stores"]["solutions"]["path"]),
        storage_options=options,
    )
    assert sorted(rows["item_id"]) == ["a1", "a2", "a3", "a4"]
    assert (
        rows["error"].isna().all() and rows["log_file"].str.startswith("batches/").all()
    )
