"""Durable file writes: flushed to the disk, then renamed into place so a reader
never sees half a file."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path


def fsync_path(path: Path) -> None:
    """Flush a file's or a directory's content to the disk (a directory's: its new
    entries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Replace `path` with the file `write` makes at the temp path it is given, once
    that is on the disk.

    The temp file sits beside `path` under a hidden name (`.name.tmp-<pid>`), so the
    final `os.replace` is one rename on one file system: readers see the old file or the
    new one.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        fsync_path(tmp)
        os.replace(tmp, path)
    # a full disk or an interrupt: leave the old file, and no half-written temp beside
    # it
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename, creating its directory first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file_atomic(path, lambda tmp: tmp.write_bytes(data))


def write_json_atomic(path: Path, data: object) -> None:
    """Replace `path` with `data` as indented, key-sorted JSON (non-JSON values as
    their str)."""
    text = (
        json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        + "\n"
    )
    write_bytes_atomic(path, text.encode("utf-8"))


def reserve_space(path: Path, size: int) -> None:
    """Hold `size` bytes of the disk in the file `path`; deleting it later frees room
    for a last small write.

    A disk that is already too full raises OSError (ENOSPC) here, before anything is
    spent.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "wb") as handle:
            try:
                os.posix_fallocate(handle.fileno(), 0, size)
            except (
                AttributeError,
                OSError,
            ) as exc:  # no fallocate here (macOS, some file systems): real bytes
                if isinstance(exc, OSError) and exc.errno not in (
                    errno.EOPNOTSUPP,
                    errno.EINVAL,
                    errno.ENOSYS,
                ):
                    raise
                handle.write(bytes(size))
                handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
