"""The files of a study on object storage that live beside its Delta tables: manifests,
dataset locks and the journal parts of shards, copied between this machine's working dir
and the study's URI.

A machine works in its own dir (paths.root) and the URI is where every machine meets.
While a shard runs, its parts are uploaded every UPLOAD_INTERVAL_S as `<part>.partial`,
which no committer takes: a shard that dies is retried (on any node) from what was
uploaded. When it ends, they are uploaded whole as `<part>`, and a committer on any
machine fetches the finished parts it does not have, replays them (each chunk's MERGE
marked, so a part merged twice changes nothing) and then deletes the uploaded copies.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..paths import StudyPaths
from .remote import filesystem_for, join_uri, storage_options_for

JOURNAL = "journal"
PARTIAL = ".partial"
UPLOAD_INTERVAL_S = 10.0
"""How often a running shard's parts are uploaded (ITEMEVAL_UPLOAD_S): what a retry
on another node loses at most."""


def _fs(paths: StudyPaths) -> tuple[Any, str]:
    assert paths.remote is not None
    return filesystem_for(paths.remote, storage_options_for(paths.remote))


def upload(paths: StudyPaths, files: Iterable[Path]) -> None:
    """Copy files of the working dir to the same place under the study's URI (one PUT
    each: readers see all or none)."""
    fs, root = _fs(paths)
    for path in files:
        if path.is_file():
            fs.put_file(
                str(path), join_uri(root, path.relative_to(paths.root).as_posix())
            )


def beside_the_study(paths: StudyPaths, files: Iterable[Path]) -> list[str]:
    """For a study on object storage: copy what `export` or `report` wrote in this
    machine's working dir to the same place under the study's URI, where the team
    looks; their URIs. A local study's files are beside it already: []."""
    if paths.remote is None:
        return []
    files = list(files)
    upload(paths, files)
    return [join_uri(paths.remote, p.relative_to(paths.root).as_posix()) for p in files]


def upload_parts(paths: StudyPaths, prefix: str) -> list[str]:
    """Upload the finished journal parts whose names start with `prefix` for a
    committer to take, and delete their `.partial` copies; their names."""
    parts = (
        sorted(paths.journal.glob(f"{prefix}*.jsonl")) if paths.journal.is_dir() else []
    )
    upload(paths, parts)
    fs, root = _fs(paths)
    for part in parts:
        partial = join_uri(root, JOURNAL, part.name + PARTIAL)
        if fs.exists(partial):
            fs.rm_file(partial)
    return [part.name for part in parts]


def fetch_own_parts(paths: StudyPaths, prefix: str) -> list[str]:
    """Download a shard's parts that an earlier attempt (on any node) uploaded,
    finished or `.partial`, so the shard resumes from them; the names fetched."""
    fs, root = _fs(paths)
    folder = join_uri(root, JOURNAL)
    names = (
        [name.rsplit("/", 1)[-1] for name in fs.ls(folder, detail=False)]
        if fs.exists(folder)
        else []
    )
    return fetch_parts(paths, sorted(n for n in names if n.startswith(prefix)))


class PartUploader:
    """Uploads a running shard's journal parts (names starting with `prefix`) as
    `.partial` every interval."""

    def __init__(
        self, paths: StudyPaths, prefix: str, interval_s: float | None = None
    ) -> None:
        self.paths, self.prefix = paths, prefix
        self.interval_s = (
            interval_s
            if interval_s is not None
            else float(os.environ.get("ITEMEVAL_UPLOAD_S") or UPLOAD_INTERVAL_S)
        )
        self._sizes: dict[Path, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="itemeval-upload", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.upload_changed()
            # the object store is unreachable for now: the next round, or the final
            # upload, tries
            except OSError:
                continue

    def upload_changed(self) -> None:
        fs, root = _fs(self.paths)
        for part in sorted(self.paths.journal.glob(f"{self.prefix}*.jsonl")):
            size = part.stat().st_size
            if size and self._sizes.get(part) != size:
                fs.put_file(str(part), join_uri(root, JOURNAL, part.name + PARTIAL))
                self._sizes[part] = size

    def close(self) -> list[str]:
        """Stop, then upload every part whole for a committer; their names."""
        self._stop.set()
        self._thread.join()
        return upload_parts(self.paths, self.prefix)


def remote_parts(paths: StudyPaths) -> list[str]:
    """Names of the journal parts uploaded to the study's URI."""
    fs, root = _fs(paths)
    folder = join_uri(root, JOURNAL)
    if not fs.exists(folder):
        return []
    return sorted(
        name.rsplit("/", 1)[-1]
        for name in fs.ls(folder, detail=False)
        if name.endswith(".jsonl")
    )


def fetch_parts(paths: StudyPaths, names: Iterable[str]) -> list[str]:
    """Download the named uploaded parts this machine does not hold (a `.partial` one
    under its finished name); the local names fetched."""
    fs, root = _fs(paths)
    paths.journal.mkdir(parents=True, exist_ok=True)
    fetched = []
    for name in names:
        local = paths.journal / name.removesuffix(PARTIAL)
        if not local.exists():
            # not a .jsonl until whole: replay never sees half a part
            partial = local.with_suffix(".download")
            fs.get_file(join_uri(root, JOURNAL, name), str(partial))
            partial.replace(local)
            fetched.append(local.name)
    return fetched


def drop_parts(paths: StudyPaths, names: Iterable[str]) -> None:
    """Delete uploaded parts once their rows are in the tables."""
    fs, root = _fs(paths)
    for name in names:
        fs.rm_file(join_uri(root, JOURNAL, name))


def fetch_file(paths: StudyPaths, path: Path) -> None:
    """Download one file of the study (the dataset locks) when this machine has none
    yet."""
    fs, root = _fs(paths)
    source = join_uri(root, path.relative_to(paths.root).as_posix())
    if not path.exists() and fs.exists(source):
        path.parent.mkdir(parents=True, exist_ok=True)
        fs.get_file(source, str(path))


class SharedFolder:
    """A folder under the study's URI that every machine of the study sees
    (`<URI>/<name>/`): each file is put whole (one PUT, so a reader sees all of it or
    none), listed and read back."""

    def __init__(self, paths: StudyPaths, name: str) -> None:
        fs, root = _fs(paths)
        self._fs, self._root = fs, join_uri(root, name)

    def put(self, path: Path, name: str | None = None) -> None:
        """Upload a local file, under its own name unless `name` is given."""
        self._fs.put_file(str(path), f"{self._root}/{name or path.name}")

    def names(self) -> list[str]:
        """The file names in the folder, sorted; none when it does not exist yet."""
        if not self._fs.exists(self._root):
            return []
        return sorted(
            entry.rsplit("/", 1)[-1] for entry in self._fs.ls(self._root, detail=False)
        )

    def read(self, name: str) -> bytes:
        return self._fs.cat_file(f"{self._root}/{name}")
