"""Where every artifact of a study lives: on disk, and for a study on object storage,
at its URI too."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
WORK_DIR_ENV = "ITEMEVAL_WORK_DIR"


def uri_scheme(location: str | os.PathLike[str]) -> str | None:
    """The lower-cased scheme of a URI; None for a plain path."""
    match = _SCHEME.match(os.fspath(location))
    return match.group("scheme").lower() if match else None


def is_remote(location: str | os.PathLike[str]) -> bool:
    """Whether `location` is an object-store URI (s3://, gs://, az://, abfs://,
    memory://...), not a local path."""
    scheme = uri_scheme(location)
    return scheme is not None and scheme != "file"


def work_dir(uri: str) -> Path:
    """This machine's working dir for a study on object storage: its lock, journal,
    logs and manifests before they are uploaded. `ITEMEVAL_WORK_DIR` sets where; by
    default under ~/.cache/itemeval/work."""
    base = Path(
        os.environ.get(WORK_DIR_ENV) or Path.home() / ".cache" / "itemeval" / "work"
    )
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", uri.split("://", 1)[1]).strip("_")[-80:]
    return base / f"{readable}-{hashlib.sha256(uri.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class StudyPaths:
    """All paths of one study directory, `<output_dir>/<study>/` (README "The study
    directory").

    For a study on object storage (`remote`, its URI), `root` is this machine's working
    dir, and the stores are Delta Lake tables at `<remote>/<store>` (README "Studies on
    object storage").
    """

    root: Path
    remote: str | None = None
    reads: str = "table"
    """For a remote study: "snapshot" reads the stores through the published
    plain-parquet snapshot (the read-only commands), "table" the Delta tables
    themselves (planning, which must see every commit)."""

    def remote_store(self, name: str) -> str:
        assert self.remote is not None
        return f"{self.remote}/{name}"

    @property
    def items(self) -> Path:
        return self.root / "items.parquet"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions.parquet"

    @property
    def grades(self) -> Path:
        return self.root / "grades.parquet"

    @property
    def pairwise(self) -> Path:
        return self.root / "pairwise.parquet"

    @property
    def manifests(self) -> Path:
        return self.root / "manifests"

    @property
    def dataset_locks(self) -> Path:
        return self.root / "dataset_locks.json"

    @property
    def logs_generate(self) -> Path:
        return self.root / "logs" / "generate"

    @property
    def logs_grade(self) -> Path:
        return self.root / "logs" / "grade"

    @property
    def export(self) -> Path:
        return self.root / "export"

    @property
    def journal(self) -> Path:
        return self.root / "journal"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def store(self, name: str) -> Path:
        return {
            "items": self.items,
            "solutions": self.solutions,
            "grades": self.grades,
            "pairwise": self.pairwise,
        }[name]
