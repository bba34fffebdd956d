"""A study on object storage gets its export and report beside it in the bucket
(issue 34 point 7), not only in this machine's working dir."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "deltalake", reason="studies on object storage need itemeval[delta]"
)
pytest.importorskip("moto", reason="the loopback S3 server is moto's")

from tests.s3_server import s3_server  # noqa: E402,F401 - a fixture
from tests.store.test_remote import machine, run, study  # noqa: E402


def test_export_and_report_of_an_s3_study_are_written_beside_it(
    s3_server, tmp_path, capsys, monkeypatch
):
    machine(monkeypatch, tmp_path / "work")
    remote = study(tmp_path / "remote", "s3://studies/team")
    assert run(capsys, "generate", str(remote), "--yes", "--limit", "2")[0] == 0
    assert run(capsys, "grade", str(remote), "--yes")[0] == 0
    code, exported = run(capsys, "export", str(remote))
    assert code == 0 and exported["shared"] == [
        "s3://studies/team/t/export/grades_long.parquet",
        "s3://studies/team/t/export/grades_long.csv",
    ]
    code, report = run(capsys, "report", str(remote))
    assert code == 0 and report["shared"].startswith("s3://studies/team/t/reports/")
    listing = s3_server.client().list_objects_v2(Bucket="studies", Prefix="team/t/")
    keys = {o["Key"] for o in listing["Contents"]}
    assert {
        "team/t/export/grades_long.parquet",
        "team/t/export/grades_long.csv",
        report["shared"].removeprefix("s3://studies/"),
    } <= keys
