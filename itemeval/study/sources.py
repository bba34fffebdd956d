"""Where a study's datasets come from (`benchmark.adapter`): local files (JSONL, JSON,
CSV, parquet), the Hugging Face Hub at a pinned commit, or an adapter registered from
above (an inspect task, by the engine)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .. import plugins
from ..errors import ConfigError
from ..hashing import bytes_hash
from ..records import Item
from ..textfiles import read_utf8
from . import json_rows
from .config import DatasetSpec, LoadedConfig

LOCAL_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")


@dataclass(frozen=True)
class RawDataset:
    """Rows of one dataset as loaded, with the revision they were loaded at."""

    key: str  # what dataset_locks.json and item.dataset_id use
    short_name: str  # what `{dataset}` renders to in id templates
    adapter: str
    revision: str
    rows: list[dict[str, Any]]


def read_local_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a local .jsonl/.json/.csv/.parquet file; a malformed file names the
    file and line."""
    if not path.is_file():
        raise ConfigError(f"benchmark.datasets: dataset file not found: {path}")
    suffix = path.suffix.lower()
    if suffix not in LOCAL_SUFFIXES:
        raise ConfigError(
            f"benchmark.datasets: {path}: unsupported file type {suffix!r} "
            f"(use {', '.join(LOCAL_SUFFIXES)})"
        )
    return _READERS[suffix](path)


def _dataset_text(path: Path) -> str:
    # A UTF-8 byte order mark (Excel's "CSV UTF-8") is no part of the first column's
    # name
    return read_utf8(path, "dataset").removeprefix("\ufeff")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    # not splitlines: U+2028 is JSON
    for number, line in enumerate(_dataset_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json_rows.loads(line, f"{path}: line {number}")
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{path}: line {number}: not valid JSON ({exc.msg})"
            ) from None
        if not isinstance(row, dict):
            raise ConfigError(
                f"{path}: line {number}: expected a JSON object, got "
                f"{type(row).__name__}"
            )
        rows.append(row)
    return rows


def _read_json(path: Path) -> list[dict[str, Any]]:
    try:
        data = json_rows.loads(_dataset_text(path), str(path))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})"
        ) from None
    if isinstance(data, dict):
        data = data.get("data", data.get("rows"))
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise ConfigError(
            f"{path}: expected a list of objects, or an object with a `data` "
            "or `rows` list of objects"
        )
    return data


def _read_csv(path: Path) -> list[dict[str, Any]]:
    with io.StringIO(_dataset_text(path), newline="") as handle:
        # strict: a quote never closed is an error, not a field that swallows every
        # line after it
        reader = csv.DictReader(handle, strict=True)
        rows = []
        try:
            for row in reader:
                rows.append(_csv_row(path, reader, row))
        except csv.Error as exc:
            raise ConfigError(
                f"{path}: line {reader.line_num}: not valid CSV ({exc}); a quoted "
                'field must end with a quote (a quote inside one is written "")'
            ) from None
    return rows


def _csv_row(path: Path, reader: csv.DictReader, row: dict) -> dict[str, Any]:
    if None in row:
        raise ConfigError(
            f"{path}: line {reader.line_num}: more fields than the header has"
        )
    if any(value is None for value in row.values()):
        missing = [name for name, value in row.items() if value is None]
        raise ConfigError(
            f"{path}: line {reader.line_num}: fewer fields than the header has "
            f"(no {', '.join(missing)})"
        )
    return dict(row)


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except (pa.ArrowInvalid, OSError) as exc:
        raise ConfigError(f"{path}: not a readable parquet file ({exc})") from None


_READERS: dict[str, Callable[[Path], list[dict[str, Any]]]] = {
    ".jsonl": _read_jsonl,
    ".json": _read_json,
    ".csv": _read_csv,
    ".parquet": _read_parquet,
}


def load_local(
    spec: DatasetSpec, loaded: LoadedConfig, pinned: str | None
) -> RawDataset:
    path = loaded.input_path(spec.id)
    rows = read_local_rows(path)
    revision = "sha256:" + bytes_hash(path.read_bytes())[:16]
    return RawDataset(
        key=spec.id, short_name=path.stem, adapter="local", revision=revision, rows=rows
    )


def _hf_modules() -> tuple[Any, Any]:
    try:
        import datasets
        import huggingface_hub
    except ImportError:
        raise ConfigError(
            "benchmark.adapter 'hf' needs the optional Hugging Face extra: pip "
            "install 'itemeval[hf]'"
        ) from None
    return datasets, huggingface_hub


def resolve_hf_commit(repo_id: str, revision: str | None) -> str:
    """The commit sha a branch, tag or commit of a Hub dataset points at now (the one
    network call)."""
    _, hub = _hf_modules()
    return hub.HfApi().dataset_info(repo_id, revision=revision).sha


def read_hf_rows(
    repo_id: str, name: str | None, split: str, commit: str
) -> list[dict[str, Any]]:
    datasets, _ = _hf_modules()
    return list(datasets.load_dataset(repo_id, name, split=split, revision=commit))


def load_hf(spec: DatasetSpec, loaded: LoadedConfig, pinned: str | None) -> RawDataset:
    _hf_modules()
    commit = pinned or resolve_hf_commit(spec.id, spec.revision)
    split = spec.split or "test"
    rows = read_hf_rows(spec.id, spec.name, split, commit)
    key = ":".join(part for part in (spec.id, spec.name, split) if part)
    return RawDataset(
        key=key, short_name=spec.id, adapter="hf", revision=commit, rows=rows
    )


Loader = Callable[[DatasetSpec, LoadedConfig, "str | None"], RawDataset]
"""A dataset source: (the dataset's entry, the config, the pinned revision or None)
-> its rows."""


@dataclass(frozen=True)
class Adapter:
    """A `benchmark.adapter`: how its datasets are read, and what it adds to the
    items mapped from them."""

    load: Loader
    finish: Callable[[list[Item], RawDataset], list[Item]] = lambda items, _: items
    """The mapped items completed from the source (an inspect sample's own
    fields)."""


ADAPTERS: dict[str, Adapter] = {
    "local": Adapter(load=load_local),
    "hf": Adapter(load=load_hf),
}
"""Adapters by `benchmark.adapter`. `inspect` (a task as a dataset) runs inspect-ai:
`engine/` registers it (`register_adapter`), loaded on first need."""


def register_adapter(name: str, adapter: Adapter) -> None:
    ADAPTERS[name] = adapter


def adapter(name: str) -> Adapter:
    """The adapter of that name, loading the plugins when it is not a built-in."""
    if name not in ADAPTERS:
        plugins.load()
    if name not in ADAPTERS:
        raise ConfigError(plugins.missing(f"benchmark.adapter {name!r}"))
    return ADAPTERS[name]
