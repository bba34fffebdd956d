"""How itemeval reaches a study on object storage: which locations are remote, and
the settings to reach them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..paths import is_remote, uri_scheme

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

__all__ = [
    "filesystem_for",
    "is_remote",
    "join_uri",
    "storage_options_for",
    "uri_scheme",
]

_S3_SCHEMES = {"s3", "s3a"}
_AWS_PASSED_THROUGH = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
)


def join_uri(base: str, *parts: str) -> str:
    """`base/part/...` with exactly one slash between the pieces."""
    return "/".join([base.rstrip("/"), *(part.strip("/") for part in parts)])


def storage_options_for(
    uri: str, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """delta-rs storage options for `uri`, taken from the environment (os.environ unless
    `env` is given).

    Only S3 needs help: the other clouds' settings are read from the environment by
    delta-rs itself.
    """
    env = os.environ if env is None else env
    if uri_scheme(uri) not in _S3_SCHEMES:
        return {}
    options = {name: env[name] for name in _AWS_PASSED_THROUGH if env.get(name)}
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if region:
        options["AWS_REGION"] = region
    # boto's precedence
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    if endpoint:
        options["AWS_ENDPOINT_URL"] = endpoint
        if endpoint.lower().startswith("http://"):
            options["AWS_ALLOW_HTTP"] = (
                # object_store refuses plain http (a local MinIO, moto) unless told
                "true"
            )
    # Concurrent writers are safe without DynamoDB only because each commit file is
    # created with an S3 conditional put (If-None-Match: *), so a writer that lost the
    # race for a version gets an error instead of overwriting the winner's commit.
    # delta-rs 1.x already does this by default; it is spelled out so a change of
    # default (or an AWS_* variable turning it off) cannot silently drop it.
    # https://github.com/delta-io/delta-rs/pull/3091
    options["conditional_put"] = "etag"
    return options


def filesystem_for(
    uri: str, storage_options: Mapping[str, str]
) -> tuple[AbstractFileSystem, str]:
    """An fsspec filesystem and the path inside it for plain files beside the Delta
    tables (snapshots).

    fsspec rather than pyarrow.fs because it knows every scheme delta-rs does (and
    memory://), and s3fs comes with inspect-ai already. It is given the same endpoint
    and keys as delta-rs, so both always talk to the same store.
    """
    from fsspec.core import url_to_fs

    if uri_scheme(uri) in _S3_SCHEMES:
        return url_to_fs(uri, **_s3fs_options(storage_options))
    return url_to_fs(uri)


def _s3fs_options(options: Mapping[str, str]) -> dict[str, object]:
    """The delta-rs S3 options in s3fs's words."""
    client: dict[str, str] = {}
    if options.get("AWS_REGION"):
        client["region_name"] = options["AWS_REGION"]
    if options.get("AWS_ENDPOINT_URL"):
        client["endpoint_url"] = options["AWS_ENDPOINT_URL"]
    named = {
        "key": "AWS_ACCESS_KEY_ID",
        "secret": "AWS_SECRET_ACCESS_KEY",
        "token": "AWS_SESSION_TOKEN",
        "profile": "AWS_PROFILE",
    }
    # Listings are not cached: a snapshot reader must see the file a publisher wrote a
    # moment ago.
    return {
        "client_kwargs": client,
        "use_listings_cache": False,
        **{arg: options[name] for arg, name in named.items() if options.get(name)},
    }
