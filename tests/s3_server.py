"""A loopback S3 server (moto) for tests of studies on object storage; nothing leaves
127.0.0.1.

Usage::

    from tests.s3_server import s3_server  # noqa: F401  (a pytest fixture)

    def test_something(s3_server):
        uri = s3_server.uri("demo", "solutions")  # s3://studies/demo/solutions
        ...

The fixture starts a server on a free port, creates the bucket, and points the AWS_*
environment variables at it (so `storage_options_for` and boto3 find it); the server
stops after the test.
"""

from __future__ import annotations

import logging
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

BUCKET = "studies"
_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    # never ask a cloud metadata endpoint for credentials
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",  # nor the developer's own profiles
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
}
_CLEARED = (
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_ENDPOINT_URL_S3",
    "AWS_CONDITIONAL_PUT",
)


@dataclass(frozen=True)
class S3Server:
    """A running moto server and the bucket made for one test."""

    endpoint: str
    bucket: str

    def uri(self, *parts: str) -> str:
        return "/".join([f"s3://{self.bucket}", *parts])

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=_ENV["AWS_DEFAULT_REGION"],
            aws_access_key_id=_ENV["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=_ENV["AWS_SECRET_ACCESS_KEY"],
        )


@pytest.fixture
def s3_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    """A moto S3 server on 127.0.0.1 with an empty bucket, and AWS_* variables
    pointing at it."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(
        logging.ERROR
    )  # one log line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        # moto keeps its buckets in module globals that outlive a server: start every
        # test from none.
        urllib.request.urlopen(
            urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST")
        ).read()
        for name in _CLEARED:
            monkeypatch.delenv(name, raising=False)
        for name, value in {**_ENV, "AWS_ENDPOINT_URL": endpoint}.items():
            monkeypatch.setenv(name, value)
        s3 = S3Server(endpoint, BUCKET)
        s3.client().create_bucket(Bucket=BUCKET)
        yield s3
    finally:
        server.stop()
