"""One small object on S3 written only on a condition (If-None-Match: * to create,
If-Match: <etag> to replace or delete), which is how machines that share nothing but
the bucket agree on who wrote last.

S3 has honoured both on PUT since 2024; MinIO, moto and the S3 APIs of the other major
clouds do too. https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from .remote import filesystem_for, join_uri, uri_scheme

_S3_SCHEMES = {"s3", "s3a"}
_LOST_CODES = {"PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey"}
"""What S3 answers a condition that did not hold: the object changed (412), another
conditional write to it is in flight (409), it is gone (404, an If-Match on nothing)."""
_LOST_STATUS = {404, 409, 412}


@dataclass(frozen=True)
class Version:
    """The object as one GET returned it, with the server's clock."""

    body: bytes
    etag: str
    modified: datetime
    """When it was last written, by the server's clock."""
    now: datetime
    """When it was read, by the server's clock (its Date header): comparing the two
    needs no machine's clock to be right."""


class ConditionalObject:
    """An object at `path` of an s3fs filesystem, read with its ETag and written only
    if it is still the version read."""

    def __init__(self, fs: Any, path: str) -> None:
        self._fs = fs
        self.bucket, self.key, _ = fs.split_path(path)

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.key}"

    def read(self) -> Version | None:
        """The current version; None when there is none."""
        from fsspec.asyn import sync

        try:
            out, body = sync(self._fs.loop, self._get)
        except FileNotFoundError:
            return None
        headers = out.get("ResponseMetadata", {}).get("HTTPHeaders", {})
        now = (
            parsedate_to_datetime(headers["date"])
            if headers.get("date")
            else datetime.now(timezone.utc)
        )
        return Version(body, out["ETag"], out["LastModified"], now)

    async def _get(self) -> tuple[dict[str, Any], bytes]:
        # one GET for body and ETag: read apart, another writer could come between
        out = await self._fs._call_s3("get_object", Bucket=self.bucket, Key=self.key)
        async with out["Body"] as stream:
            return out, await stream.read()

    def create(self, body: bytes) -> str | None:
        """Write it if it does not exist; its ETag, or None when one exists."""
        return self._put(body, IfNoneMatch="*")

    def replace(self, body: bytes, etag: str) -> str | None:
        """Write it over version `etag`; the new ETag, or None when it is no longer
        that version (or is gone)."""
        return self._put(body, IfMatch=etag)

    def delete(self, etag: str) -> bool:
        """Delete it if it is still version `etag`; whether it was."""
        try:
            self._fs.call_s3(
                "delete_object", Bucket=self.bucket, Key=self.key, IfMatch=etag
            )
        except OSError as exc:
            if lost_race(exc):
                return False
            raise
        return True

    def _put(self, body: bytes, **condition: str) -> str | None:
        try:
            out = self._fs.call_s3(
                "put_object", Bucket=self.bucket, Key=self.key, Body=body, **condition
            )
        except OSError as exc:
            if lost_race(exc):
                return None
            raise
        self._fs.invalidate_cache(self.uri)
        return out["ETag"]


def lost_race(exc: BaseException) -> bool:
    """Whether an s3fs error is a condition that did not hold (s3fs turns S3's answer
    into a plain OSError; the answer itself is its cause)."""
    response = getattr(exc.__cause__, "response", None) or {}
    code = response.get("Error", {}).get("Code")
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in _LOST_CODES or status in _LOST_STATUS


def conditional_object(
    study_uri: str, options: dict[str, str], name: str
) -> ConditionalObject | None:
    """The object `name` of a study on S3; None elsewhere (a local study, gs://,
    az://, memory://), where no conditional write is made."""
    if uri_scheme(study_uri) not in _S3_SCHEMES:
        return None
    fs, root = filesystem_for(study_uri, options)
    return ConditionalObject(fs, join_uri(root, name))
