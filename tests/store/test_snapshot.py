"""Publishing `latest.json` (store/snapshot.py) when two publishers race, against a
loopback moto S3: a slow publisher never steps back behind a newer snapshot."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "deltalake", reason="studies on object storage need itemeval[delta]"
)
pytest.importorskip("moto", reason="the loopback S3 server is moto's")

from itemeval.store import snapshot  # noqa: E402
from itemeval.store.delta import upsert_delta  # noqa: E402
from itemeval.store.snapshot import publish_snapshot, read_latest  # noqa: E402
from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture
from tests.store.test_delta import solution  # noqa: E402


def commit(study: str, first: int, count: int) -> None:
    rows = [solution("c0", f"i{i}") for i in range(first, first + count)]
    upsert_delta(f"{study}/solutions", "solutions", rows)


def versions(study: str) -> int:
    return read_latest(study).stores["solutions"].version


@pytest.fixture
def racing(monkeypatch):
    """Make the next publisher slow: while it works (at `where`), another machine
    commits and publishes a newer version."""

    def arm(study: str, where: str) -> list[int]:
        real = getattr(snapshot, where)
        theirs: list[int] = []  # the version the other machine published

        def slow(*args, **kwargs):
            out = real(*args, **kwargs)
            if not theirs and out is not None:
                theirs.append(-1)
                commit(study, 100, 3)
                published = publish_snapshot(study)["stores"]["solutions"]["version"]
                theirs[0] = published
            return out

        monkeypatch.setattr(snapshot, where, slow)
        return theirs

    return arm


def test_a_slow_publish_keeps_the_newer_snapshot_another_machine_published(
    s3_server, racing
):
    study = s3_server.uri("demo")
    commit(study, 0, 3)
    publish_snapshot(study)
    commit(study, 3, 3)
    # the other commits and publishes while our snapshot file is being written
    theirs = racing(study, "_publish_store")
    published = publish_snapshot(study)["stores"]["solutions"]["version"]
    assert published == versions(study) == theirs[0]
    assert read_latest(study).stores["solutions"].rows == 9


@pytest.mark.parametrize("before", ["a first snapshot", "an older snapshot"])
def test_a_publish_whose_latest_json_changed_under_it_rereads_it(
    s3_server, racing, before
):
    study = s3_server.uri("demo")
    commit(study, 0, 3)
    if before == "an older snapshot":
        publish_snapshot(study)
        commit(study, 3, 3)
    # the other publishes after we read the index, before we write it
    theirs = racing(study, "_read_versioned")
    published = publish_snapshot(study)["stores"]["solutions"]["version"]
    assert published == versions(study) == theirs[0]
    assert read_latest(study).stores["solutions"].rows == (
        9 if before == "an older snapshot" else 6
    )
