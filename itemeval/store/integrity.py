"""What a local store version committed, so a damaged or incomplete version is refused.

Each version directory holds `_integrity.json`: every part file's size and CRC-32. On
open, the part names are checked; a part's size and checksum are checked the first time
this process reads it (cached by inode, size and mtime).

The versions directory holds `_integrity_since.json`, the first version committed with
a manifest: from it on, a version without one is damaged, not unchecked (issue 49:
deleting the one file turned every check off). A store written before manifests existed
has neither file and is read as before; its next commit writes both.
"""

from __future__ import annotations

import json
import os
import threading
import zlib
from pathlib import Path

from ..errors import StoreError
from .files import fsync_path

NAME = "_integrity.json"
"""Readers skip names starting with `_` (pyarrow, DuckDB, polars): this is no part."""
SINCE = "_integrity_since.json"
_CHUNK = 1 << 20
_verified: set[tuple[str, int, int, int]] = set()
_verified_lock = threading.Lock()


def checksum(path: Path) -> int:
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def read_manifest(version: Path) -> dict[str, dict[str, int]] | None:
    """{part name: {"size", "crc32"}} of a version; None for a version from before."""
    try:
        data = json.loads((version / NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, OSError) as exc:
        raise StoreError(
            f"{version / NAME} is damaged ({exc}); {_RECOVERY.format(version=version)}"
        ) from None
    return data.get("parts", {}) if isinstance(data, dict) else {}


def required_since(versions: Path) -> int | None:
    """The first version of the store committed with a manifest; None for a store
    from before manifests."""
    try:
        data = json.loads((versions / SINCE).read_text(encoding="utf-8"))
        return int(data["version"])
    except FileNotFoundError:
        return None
    except (ValueError, OSError, KeyError, TypeError) as exc:
        raise StoreError(
            f"{versions / SINCE} is damaged ({exc}); it says which versions of the "
            "store must have an integrity record. Restore it, or move the store aside "
            "and re-run: generate/grade re-create missing rows"
        ) from None


def check_present(shown: Path, version: Path, number: int) -> None:
    """Refuse a version without a manifest where the store says it must have one."""
    since = required_since(version.parent)
    if since is not None and number >= since:
        raise StoreError(
            f"{shown} has lost its integrity record ({version / NAME} is missing, "
            f"and every version from v{since:06d} on was committed with one), so "
            "its parts cannot be checked; " + _RECOVERY.format(version=version)
        )


def mark_required(versions: Path, number: int) -> None:
    """Record, once, that versions from `number` on carry a manifest."""
    if (versions / SINCE).exists():
        return
    target = versions / SINCE
    target.write_text(json.dumps({"version": number}), encoding="utf-8")
    fsync_path(target)


def write_manifest(
    version: Path, previous: dict[str, dict[str, int]] | None, names: list[str]
) -> None:
    """Record every part of a new version: a part linked from the previous version keeps
    its entry (its bytes are the same file), a new one is measured now."""
    known = previous or {}
    parts = {}
    for name in sorted(names):
        path = version / name
        entry = known.get(name)
        size = path.stat().st_size
        if entry is None or entry.get("size") != size:
            entry = {"size": size, "crc32": checksum(path)}
        parts[name] = entry
    target = version / NAME
    target.write_text(json.dumps({"parts": parts}, sort_keys=True), encoding="utf-8")
    fsync_path(target)


_RECOVERY = (
    "itemeval will not answer from a damaged store. The rows are still in the run's "
    ".eval logs and, until they were committed, in journal/; the previous version "
    "beside {version} may be intact. Move the damaged store aside (or restore it from "
    "a backup) and re-run: generate/grade re-create missing rows"
)


def check_names(
    shown: Path, version: Path, manifest: dict[str, dict[str, int]], names: list[str]
) -> None:
    """Refuse a version missing a committed part or holding an extra one."""
    missing = sorted(set(manifest) - set(names))
    extra = sorted(set(names) - set(manifest))
    if missing or extra:
        what = f"missing {missing[0]}" if missing else f"an extra part {extra[0]}"
        raise StoreError(
            f"{shown} is incomplete ({what}; {len(missing)} missing, {len(extra)} "
            f"extra of {len(manifest)} committed); {_RECOVERY.format(version=version)}"
        )


def check_part(
    shown: Path, version: Path, manifest: dict[str, dict[str, int]], name: str
) -> None:
    """Refuse a part whose bytes are not the ones committed (once per file, process)."""
    path = version / name
    stat = os.stat(path)
    if stat.st_size != manifest[name]["size"]:
        raise StoreError(
            f"{shown / name} is damaged ({stat.st_size} bytes, "
            f"{manifest[name]['size']} committed); {_RECOVERY.format(version=version)}"
        )
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _verified_lock:
        if key in _verified:
            return
    if checksum(path) != manifest[name]["crc32"]:
        raise StoreError(
            f"{shown / name} is damaged (its checksum differs from the one committed); "
            f"{_RECOVERY.format(version=version)}"
        )
    with _verified_lock:
        _verified.add(key)
