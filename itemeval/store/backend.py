"""Which backend holds a study's stores, chosen once per study: local parquet parts in
the study directory, or Delta Lake tables on object storage (README "Studies on
object storage"). Nothing outside `store/` asks which one it is; it asks the backend.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..paths import StudyPaths
from . import local

if TYPE_CHECKING:
    from .mirror import PartUploader, SharedFolder

App = tuple[str, int]
"""An app transaction (id, version) a Delta commit records, so the same journal chunk
is never merged twice."""


@dataclass(frozen=True)
class LocalBackend:
    """The stores as immutable parquet versions in the study directory. Its files are
    already where every command reads them, so mirroring does nothing."""

    paths: StudyPaths

    shared = False
    """Whether other machines share the stores (and what lives beside them)."""

    @property
    def location(self) -> str:
        """Where the study lives, as notes name it: its directory."""
        return str(Path(self.paths.root).resolve())

    def upsert(
        self, store: str, rows: pa.Table | Iterable[Mapping[str, Any]], app: App | None
    ) -> int:
        # a local store needs no app mark: the study lock orders its writers
        return local.upsert(self.paths, store, rows)

    def read(
        self,
        store: str,
        columns: Sequence[str] | None,
        where: Mapping[str, Collection[Any]] | None,
    ) -> pa.Table:
        return local.read_store(self.paths, store, columns, where=where)

    def verify(self, store: str) -> int:
        return local.verify_store(self.paths, store)

    def check(self, store: str) -> None:
        local.check_store(self.paths, store)

    def fetch_shared(self) -> None:
        return None

    def fetch_uploaded_parts(self) -> list[str]:
        return []

    def drop_uploaded_parts(self, names: Sequence[str]) -> None:
        return None

    def publish(self, since: float) -> None:
        return None

    def shard_uploader(self, prefix: str) -> PartUploader | None:
        return None

    def shared_folder(self, name: str) -> SharedFolder | None:
        return None

    def lease(self, command: str, run_id: str | None) -> AbstractContextManager:
        # the study lock (a flock in the study dir) already excludes every writer
        return contextlib.nullcontext()

    def check_lease(self) -> None:
        return None

    def lease_holder(self) -> dict[str, Any] | None:
        return None


@dataclass(frozen=True)
class DeltaBackend:
    """The stores as Delta Lake tables at the study's URI, written by keyed MERGE; the
    dataset locks, manifests, journal parts and batch ledger mirrored beside them."""

    paths: StudyPaths
    uri: str

    shared = True

    @property
    def location(self) -> str:
        return self.uri

    def _options(self) -> dict[str, str]:
        from .remote import storage_options_for

        return storage_options_for(self.uri)

    def upsert(
        self, store: str, rows: pa.Table | Iterable[Mapping[str, Any]], app: App | None
    ) -> int:
        from .delta import upsert_delta

        app_id, app_version = app if app is not None else (None, None)
        return upsert_delta(
            f"{self.uri}/{store}",
            store,
            rows,
            storage_options=self._options(),
            app_id=app_id,
            app_version=app_version,
        )

    def read(
        self,
        store: str,
        columns: Sequence[str] | None,
        where: Mapping[str, Collection[Any]] | None,
    ) -> pa.Table:
        options = self._options()
        if self.paths.reads == "snapshot":
            from .snapshot import read_snapshot

            return read_snapshot(
                self.uri, store, columns, where=where, storage_options=options
            )
        from .delta import read_delta

        return read_delta(
            f"{self.uri}/{store}", store, columns, where=where, storage_options=options
        )

    def verify(self, store: str) -> int:
        return self.read(store, None, None).num_rows

    def check(self, store: str) -> None:
        # a Delta table's files are checked as a read opens them (delta_integrity)
        return None

    def fetch_shared(self) -> None:
        from . import mirror

        mirror.fetch_file(self.paths, self.paths.dataset_locks)

    def fetch_uploaded_parts(self) -> list[str]:
        from . import mirror

        uploaded = mirror.remote_parts(self.paths)
        mirror.fetch_parts(self.paths, uploaded)
        return uploaded

    def drop_uploaded_parts(self, names: Sequence[str]) -> None:
        from . import mirror

        if names:
            mirror.drop_parts(self.paths, names)

    def publish(self, since: float) -> None:
        from . import mirror
        from .snapshot import publish_snapshot

        paths = self.paths
        publish_snapshot(self.uri, storage_options=self._options())
        manifests = (
            [p for p in paths.manifests.glob("*.json") if p.stat().st_mtime >= since]
            if paths.manifests.is_dir()
            else []
        )
        mirror.upload(paths, [paths.dataset_locks, *manifests])

    def shard_uploader(self, prefix: str) -> PartUploader | None:
        from . import mirror

        mirror.fetch_file(self.paths, self.paths.dataset_locks)
        mirror.fetch_own_parts(self.paths, prefix)
        return mirror.PartUploader(self.paths, prefix)

    def shared_folder(self, name: str) -> SharedFolder | None:
        from .mirror import SharedFolder

        return SharedFolder(self.paths, name)

    def lease(self, command: str, run_id: str | None) -> AbstractContextManager:
        from .lease import study_lease

        return study_lease(self.uri, self._options(), command, run_id)

    def check_lease(self) -> None:
        from .lease import check_lease

        check_lease(self.uri, self._options())

    def lease_holder(self) -> dict[str, Any] | None:
        from .lease import read_lease

        holder = read_lease(self.uri, self._options())
        if holder is None:
            return None
        # in the words of the local lock's holder, which `status` shows
        return {**holder.model_dump(), "started_at": holder.acquired_at}


Backend = LocalBackend | DeltaBackend


@lru_cache(maxsize=64)
def backend_for(paths: StudyPaths) -> Backend:
    """The study's backend: chosen here, once, from where its config puts it."""
    if paths.remote is None:
        return LocalBackend(paths)
    return DeltaBackend(paths, paths.remote)


def upsert(
    paths: StudyPaths,
    store: str,
    rows: pa.Table | Iterable[Mapping[str, Any]],
    *,
    app: App | None = None,
) -> int:
    """Insert or replace `rows` by key in one atomic step; returns the number of
    distinct keys written.

    On object storage it is a keyed MERGE; `app` makes a repeat of the same commit a
    no-op (a local store needs no such mark: the study lock orders its writers)."""
    return backend_for(paths).upsert(store, rows, app)


def read_store(
    paths: StudyPaths,
    store: str,
    columns: Sequence[str] | None = None,
    *,
    where: Mapping[str, Collection[Any]] | None = None,
) -> pa.Table:
    """The store's rows (see local.read_store); for a study on object storage, from
    its Delta table or, for the read-only commands, from the snapshot `latest.json`
    names."""
    from . import memo

    backend = backend_for(paths)
    # itemeval.frames: one full read per store, every view served from it
    if memo.active():
        key = (backend.location, store)
        return memo.served(key, lambda: backend.read(store, None, None), columns, where)
    return backend.read(store, columns, where)


def check_store(paths: StudyPaths, store: str) -> None:
    """Refuse a damaged store before anything is read from it."""
    backend_for(paths).check(store)


def verify_store(paths: StudyPaths, store: str) -> int:
    return backend_for(paths).verify(store)


def location(paths: StudyPaths) -> str:
    """Where the study's stores live, as notes and cache scopes name it: its URI on
    object storage, else its directory."""
    return backend_for(paths).location


def is_shared(paths: StudyPaths) -> bool:
    """Whether the study's stores live on object storage, shared between machines."""
    return backend_for(paths).shared


# ---- mirroring: what a study on object storage keeps beside its tables. A local
# study's files are already where every command reads them, so these do nothing there.


def fetch_shared(paths: StudyPaths) -> None:
    """Before a write: the dataset locks as the object store has them."""
    backend_for(paths).fetch_shared()


def fetch_uploaded_parts(paths: StudyPaths) -> list[str]:
    """The journal parts shards uploaded, fetched into the local journal; their
    names."""
    return backend_for(paths).fetch_uploaded_parts()


def drop_uploaded_parts(paths: StudyPaths, names: Sequence[str]) -> None:
    """Delete uploaded journal parts once they are merged."""
    backend_for(paths).drop_uploaded_parts(names)


def publish(paths: StudyPaths, *, since: float) -> None:
    """After a write: publish the stores' snapshot, and upload the dataset locks and
    the manifests written since `since`."""
    backend_for(paths).publish(since)


def shard_uploader(paths: StudyPaths, prefix: str) -> PartUploader | None:
    """A shard of a study on object storage: fetch the dataset locks and whatever an
    earlier attempt of this shard uploaded (it resumes from there, on any node), then
    keep uploading its parts (named `prefix`...) while it runs; close it at the end."""
    return backend_for(paths).shard_uploader(prefix)


def shared_folder(paths: StudyPaths, name: str) -> SharedFolder | None:
    """A folder of files other machines of the study see too (`<URI>/<name>/`); None
    for a local study, whose folder is already where every run reads it."""
    return backend_for(paths).shared_folder(name)


def study_lease(
    paths: StudyPaths, command: str, run_id: str | None = None
) -> AbstractContextManager:
    """The study lock across machines, taken inside this machine's: for a study on
    S3, its lease (store/lease.py); nothing elsewhere."""
    return backend_for(paths).lease(command, run_id)


def check_lease(paths: StudyPaths) -> None:
    """A shard: refuse to run while a writer outside its launch holds the lease."""
    backend_for(paths).check_lease()


def lease_holder(paths: StudyPaths) -> dict[str, Any] | None:
    """Who holds the study's lease on S3 (any machine), for `status`; None when
    nobody does, or off S3."""
    return backend_for(paths).lease_holder()
