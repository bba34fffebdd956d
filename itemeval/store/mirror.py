"""The files of a study on object storage that live beside its Delta tables: manifests, dataset locks and the
journal parts of shards, copied between this machine's working dir and the study's URI.

A machine works in its own dir (paths.root) and the URI is where every machine meets. A shard uploads its
journal parts when it ends, and a committer on any machine fetches the parts it does not have, replays
them (each chunk's MERGE marked, so a part merged twice changes nothing) and then deletes the uploaded copies.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..paths import StudyPaths
from .remote import filesystem_for, join_uri, storage_options_for

JOURNAL = "journal"


def _fs(paths: StudyPaths) -> tuple[Any, str]:
    assert paths.remote is not None
    return filesystem_for(paths.remote, storage_options_for(paths.remote))


def upload(paths: StudyPaths, files: Iterable[Path]) -> None:
    """Copy files of the working dir to the same place under the study's URI (one PUT each: readers see all or none)."""
    fs, root = _fs(paths)
    for path in files:
        if path.is_file():
            fs.put_file(str(path), join_uri(root, path.relative_to(paths.root).as_posix()))


def upload_parts(paths: StudyPaths, prefix: str) -> list[str]:
    """Upload this run's journal parts (names starting with `prefix`); their names."""
    parts = sorted(paths.journal.glob(f"{prefix}*.jsonl")) if paths.journal.is_dir() else []
    upload(paths, parts)
    return [part.name for part in parts]


def remote_parts(paths: StudyPaths) -> list[str]:
    """Names of the journal parts uploaded to the study's URI."""
    fs, root = _fs(paths)
    folder = join_uri(root, JOURNAL)
    if not fs.exists(folder):
        return []
    return sorted(name.rsplit("/", 1)[-1] for name in fs.ls(folder, detail=False) if name.endswith(".jsonl"))


def fetch_parts(paths: StudyPaths, names: Iterable[str]) -> list[str]:
    """Download the named uploaded parts this machine does not hold; the names fetched."""
    fs, root = _fs(paths)
    paths.journal.mkdir(parents=True, exist_ok=True)
    fetched = []
    for name in names:
        local = paths.journal / name
        if not local.exists():
            partial = local.with_suffix(".download")  # not a .jsonl until whole: replay never sees half a part
            fs.get_file(join_uri(root, JOURNAL, name), str(partial))
            partial.replace(local)
            fetched.append(name)
    return fetched


def drop_parts(paths: StudyPaths, names: Iterable[str]) -> None:
    """Delete uploaded parts once their rows are in the tables."""
    fs, root = _fs(paths)
    for name in names:
        fs.rm_file(join_uri(root, JOURNAL, name))


def fetch_file(paths: StudyPaths, path: Path) -> None:
    """Download one file of the study (the dataset locks) when this machine has none yet."""
    fs, root = _fs(paths)
    source = join_uri(root, path.relative_to(paths.root).as_posix())
    if not path.exists() and fs.exists(source):
        path.parent.mkdir(parents=True, exist_ok=True)
        fs.get_file(source, str(path))
