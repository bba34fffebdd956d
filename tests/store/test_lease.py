"""The study lease on S3 (store/lease.py): one whole-study writer across machines,
against a loopback moto server, which honours If-None-Match and If-Match as S3 does.

A "machine" is a working dir of its own (ITEMEVAL_WORK_DIR, so its own flock) and a
host name of its own (ITEMEVAL_HOST); they meet only at the bucket.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip(
    "deltalake", reason="studies on object storage need itemeval[delta]"
)
pytest.importorskip("moto", reason="the loopback S3 server is moto's")

from itemeval.errors import StudyLocked  # noqa: E402
from itemeval.store.lease import (  # noqa: E402
    LAUNCH_ENV,
    LEASE,
    StudyLease,
    check_lease,
    launch_id,
    read_lease,
    study_lease,
)
from itemeval.store.remote import storage_options_for  # noqa: E402
from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture
from tests.store.test_remote import CELLS, machine, run, study  # noqa: E402

STUDY = "s3://studies/team/t"
LEASE_KEY = "team/t/" + LEASE


def on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, host: str) -> None:
    """Be machine `host` from now on."""
    machine(monkeypatch, tmp_path / host)
    monkeypatch.setenv("ITEMEVAL_HOST", host)


def lease_object(s3) -> dict | None:
    try:
        body = s3.client().get_object(Bucket="studies", Key=LEASE_KEY)["Body"]
    except s3.client().exceptions.NoSuchKey:
        return None
    return json.loads(body.read())


def hold(command: str = "itemeval generate t.yaml") -> tuple[object, StudyLease]:
    """Enter a lease the way a command does, leaving it held."""
    context = study_lease(STUDY, storage_options_for(STUDY), command)
    return context, context.__enter__()


def test_a_second_machine_s_writer_exits_5_naming_the_holder_and_pays_nothing(
    s3_server, tmp_path, capsys, monkeypatch
):
    path = study(tmp_path / "cfg", "s3://studies/team")
    env = {
        **os.environ,
        "ITEMEVAL_WORK_DIR": str(tmp_path / "machine-a"),
        "ITEMEVAL_HOST": "machine-a",
        "ITEMEVAL_OFFLINE_LATENCY": "0.15",  # long enough to be caught running
    }
    first = subprocess.Popen(
        [sys.executable, "-m", "itemeval", "generate", str(path), "--yes", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while lease_object(s3_server) is None and first.poll() is None:
        assert time.monotonic() < deadline, "machine-a never took the lease"
        time.sleep(0.2)
    assert lease_object(s3_server)["host"] == "machine-a"

    on(monkeypatch, tmp_path, "machine-b")
    code, refused = run(capsys, "generate", str(path), "--yes")
    message = refused["error"]["message"]
    assert code == 5 and refused["error"]["kind"] == "locked"
    assert "host machine-a" in message and "expires at" in message, message
    assert f"pid {first.pid}" in message
    code, status = run(capsys, "status", str(path))  # machine-b sees who runs
    assert code == 0 and status["running"]["host"] == "machine-a"

    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err.decode()[-800:]
    assert json.loads(out)["totals"]["rows"] == CELLS
    assert lease_object(s3_server) is None  # released at the end
    # machine-b paid for nothing, and finds nothing left to pay for
    assert run(capsys, "generate", str(path), "--yes")[1]["totals"]["planned"] == 0
    assert lease_object(s3_server) is None


@pytest.mark.parametrize("finds_out_at", ["its next renewal", "its release"])
def test_an_expired_lease_is_taken_over_and_its_old_holder_is_told(
    s3_server, tmp_path, monkeypatch, finds_out_at
):
    monkeypatch.setenv("ITEMEVAL_LEASE_S", "2")
    on(monkeypatch, tmp_path, "machine-a")
    context_a, lease_a = hold()
    lease_a._stop.set()  # machine-a stalls: it renews no more
    lease_a._thread.join()

    on(monkeypatch, tmp_path, "machine-b")
    with pytest.raises(StudyLocked, match="host machine-a .*expires at"):
        hold()
    time.sleep(3.2)  # past the expiry, by the server's clock (whole seconds)
    context_b, lease_b = hold("itemeval launch generate t.yaml --shards 2")
    assert lease_object(s3_server)["host"] == "machine-b"
    assert read_lease(STUDY, storage_options_for(STUDY)).host == "machine-b"

    if finds_out_at == "its next renewal":
        assert lease_a.renew() is False and lease_a.taken_by.host == "machine-b"
    with pytest.raises(StudyLocked, match="taken over by .* host machine-b"):
        context_a.__exit__(None, None, None)
    assert lease_object(s3_server)["host"] == "machine-b"  # not machine-a's to delete

    assert lease_b.renew() is True  # renewal is conditional on its own last write
    context_b.__exit__(None, None, None)
    assert lease_object(s3_server) is None


def test_a_lease_whose_holder_died_on_this_machine_is_taken_at_once(
    s3_server, tmp_path, monkeypatch
):
    on(monkeypatch, tmp_path, "machine-a")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    context, lease = hold()
    context.__exit__(None, None, None)  # then plant a lease of a pid that is gone
    body = lease.holder.model_copy(update={"pid": dead.pid}).model_dump_json()
    s3_server.client().put_object(Bucket="studies", Key=LEASE_KEY, Body=body)

    on(monkeypatch, tmp_path, "machine-b")
    with pytest.raises(StudyLocked, match="host machine-a"):
        hold()  # another machine cannot know the pid is gone: it waits for expiry
    on(monkeypatch, tmp_path, "machine-a")
    context, lease = hold()  # machine-a itself can
    assert lease_object(s3_server)["pid"] == os.getpid()
    context.__exit__(None, None, None)


def test_shards_of_the_holder_s_launch_run_and_others_exit_5(
    s3_server, tmp_path, capsys, monkeypatch
):
    path = study(tmp_path / "cfg", "s3://studies/team")
    on(monkeypatch, tmp_path, "machine-a")
    context, lease = hold("itemeval launch generate t.yaml --shards 2")
    try:
        assert lease.holder.launch_id == launch_id()
        on(monkeypatch, tmp_path, "machine-b")  # a shard of another launch
        code, refused = run(capsys, "generate", str(path), "--shard", "0/2", "--yes")
        assert code == 5 and "host machine-a" in refused["error"]["message"]

        monkeypatch.setenv(LAUNCH_ENV, lease.holder.launch_id)  # one of ours
        check_lease(STUDY, storage_options_for(STUDY))
        code, ran = run(capsys, "generate", str(path), "--shard", "0/2", "--yes")
        assert code == 0 and ran["totals"]["rows"] > 0
    finally:
        context.__exit__(None, None, None)


def test_a_launch_on_s3_holds_one_lease_its_shards_share(
    s3_server, tmp_path, capsys, monkeypatch
):
    path = study(tmp_path / "cfg", "s3://studies/team")
    on(monkeypatch, tmp_path, "machine-a")
    code, launched = run(capsys, "launch", "generate", str(path), "--shards", "2")
    assert code == 0 and launched["totals"]["rows"] == CELLS
    assert lease_object(s3_server) is None
