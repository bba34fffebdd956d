"""What a Delta table committed, so a damaged or missing data file is refused.

Sizes come from the table's own transaction log: every `add` action records its
file's size, so a missing, truncated or padded file is found with no record of ours.
The log has no checksum, and delta-rs writes parquet without page checksums, so
bytes changed in place would read silently. Objects on S3 are immutable: changing one
means a new PUT, which gives it a new ETag. So after each commit itemeval records the
ETag of every file of the new version (`_itemeval_integrity/v<version>.json` beside
`_delta_log/`; names starting with `_` are no data to Delta readers), and a read checks
the files of its version against one listing of the table: one LIST per 1,000 objects
each read (so damage done while a process runs is seen), and the record's small GET
once per version and process. A file the record does not name (a
table from before, or a writer killed between its commit and its record) is checked
by size only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
from deltalake import DeltaTable

from ..errors import StoreError
from .remote import filesystem_for, join_uri

RECORDS = "_itemeval_integrity"
_KEPT_RECORDS = 2  # the current version's and the one before (a reader may hold it)
_records: dict[tuple[str, int, int], dict[str, str]] = {}
"""{(table URI, version, its files): its record}; a version's record never changes."""
_records_lock = threading.Lock()

_RECOVERY = (
    "itemeval will not answer from a damaged store. The rows are still in the runs' "
    ".eval logs and, until they were committed, in the journal of the machine that "
    "ran them. Restore the object from the bucket's object versions or a backup; or "
    "delete it and drop it from the table with deltalake's repair (FSCK: "
    "DeltaTable('{table}').repair()), then re-run generate/grade, which re-create "
    "the missing rows"
)


def verify_delta(
    table: DeltaTable,
    storage_options: dict[str, str],
    partitions: Mapping[str, Collection[Any]] | None = None,
) -> None:
    """Refuse a version whose data files are not the ones its log committed: those of
    the `partitions` pinned ({column: values}) when given, as a read opens only
    those."""
    uri = table.table_uri.rstrip("/")
    version = table.version()
    fs, root = filesystem_for(uri, storage_options)
    listed = _listing(fs, root)
    committed = _committed(table)
    # the files' names (each holds a UUID) tell a table re-created at that URI apart
    key = (uri, version, hash(frozenset(committed)))
    with _records_lock:
        recorded = _records.get(key)
    if recorded is None:
        recorded = _recorded(fs, root, version)
        with _records_lock:
            _records[key] = recorded
    _check(uri, _committed(table, partitions), listed, recorded)


def record_delta(table: DeltaTable, storage_options: dict[str, str]) -> None:
    """After a commit: the ETag of every data file of the table's current version.

    A file an earlier record names keeps that ETag (a file is never rewritten in
    place), so damage done before this commit is still seen as damage."""
    uri = table.table_uri.rstrip("/")
    fs, root = filesystem_for(uri, storage_options)
    version = table.version()
    listed = _listing(fs, root)
    earlier = _recorded(fs, root, version)
    files = {}
    for path in _committed(table):
        etag = earlier.get(path) or (listed.get(path) or {}).get("etag")
        if etag:
            files[path] = etag
    document = json.dumps({"version": version, "files": files}, sort_keys=True)
    fs.pipe_file(f"{root}/{RECORDS}/{_record_name(version)}", document.encode())
    _remove_older(fs, root, version)


def _committed(
    table: DeltaTable, partitions: Mapping[str, Collection[Any]] | None = None
) -> dict[str, int]:
    """{data file's object key relative to the table: size} of the loaded version,
    in the pinned partitions."""
    adds = pa.table(table.get_add_actions(flatten=True))
    keep = [True] * adds.num_rows
    for column, values in (partitions or {}).items():
        wanted = {str(value) for value in values}
        found = adds.column(f"partition.{column}").to_pylist()
        keep = [k and str(v) in wanted for k, v in zip(keep, found)]
    paths = adds.column("path").to_pylist()
    sizes = adds.column("size_bytes").to_pylist()
    # the log holds a path URL-encoded once more than the object's key
    return {unquote(p): size for p, size, k in zip(paths, sizes, keep) if k}


def _listing(fs: Any, root: str) -> dict[str, dict[str, Any]]:
    """{path relative to the table: {"size", "etag"}} of every object under it."""
    found = fs.find(root, detail=True)
    prefix = root.rstrip("/") + "/"
    return {
        name[len(prefix) :]: {
            "size": info.get("size"),
            "etag": info.get("ETag"),
        }
        for name, info in found.items()
        if name.startswith(prefix)
    }


def _record_name(version: int) -> str:
    return f"v{version:020d}.json"


def _record_versions(fs: Any, root: str) -> dict[int, str]:
    try:
        names = fs.ls(f"{root}/{RECORDS}", detail=False)
    except FileNotFoundError:
        return {}
    versions = {}
    for name in names:
        stem = name.rsplit("/", 1)[-1]
        if stem.startswith("v") and stem.endswith(".json") and stem[1:-5].isdigit():
            versions[int(stem[1:-5])] = name
    return versions


def _recorded(fs: Any, root: str, version: int) -> dict[str, str]:
    """{path: ETag} from the newest record at or before `version`; {} for none."""
    versions = [v for v in _record_versions(fs, root) if v <= version]
    if not versions:
        return {}
    name = f"{root}/{RECORDS}/{_record_name(max(versions))}"
    try:
        document = json.loads(fs.cat_file(name))
        return dict(document["files"])
    except FileNotFoundError:
        return {}  # a newer writer removed it since the listing: sizes still count
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"{fs.unstrip_protocol(name)} is damaged ({exc}); delete it: the next "
            "commit writes a new one"
        ) from None


def _remove_older(fs: Any, root: str, version: int) -> None:
    versions = sorted(v for v in _record_versions(fs, root) if v <= version)
    older = versions[:-_KEPT_RECORDS]
    if older:
        fs.rm([f"{root}/{RECORDS}/{_record_name(v)}" for v in older])


def _check(
    uri: str,
    committed: Mapping[str, int],
    listed: Mapping[str, Mapping[str, Any]],
    recorded: Mapping[str, str],
) -> None:
    """Raise naming the first file missing, of the wrong size, or rewritten."""
    recovery = _RECOVERY.format(table=uri)
    missing = sorted(path for path in committed if path not in listed)
    if missing:
        raise StoreError(
            f"the Delta table {uri} is incomplete: {join_uri(uri, missing[0])} is "
            f"missing ({len(missing)} of {len(committed)} committed files); {recovery}"
        )
    for path in sorted(committed):
        size, etag = listed[path]["size"], listed[path]["etag"]
        if size != committed[path]:
            raise StoreError(
                f"{join_uri(uri, path)} is damaged ({size} bytes, {committed[path]} "
                f"committed in the table's log); {recovery}"
            )
        if path in recorded and etag is not None and etag != recorded[path]:
            raise StoreError(
                f"{join_uri(uri, path)} is damaged (it was rewritten after its "
                f"commit: its ETag is not the one recorded); {recovery}"
            )
