"""Dataset sources (local files, the Hugging Face Hub) turned into Items through the
config's mapping."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import ConfigError
from ..hashing import bytes_hash, canonical_json
from ..records import Item
from ..textfiles import read_utf8
from .config import DatasetSpec, LoadedConfig, Mapping

LOCAL_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
_ID_TOKEN = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class RawDataset:
    """Rows of one dataset as loaded, with the revision they were loaded at."""

    key: str  # what dataset_locks.json and item.dataset_id use
    short_name: str  # what `{dataset}` renders to in id templates
    adapter: str
    revision: str
    rows: list[dict[str, Any]]


# ---- local files
# -------------------------------------------------------------------------------


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
    for number, line in enumerate(
        _dataset_text(path).split("\n"), start=1
    ):  # not splitlines: U+2028 is JSON
        if not line.strip():
            continue
        try:
            row = json.loads(line)
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
        data = json.loads(_dataset_text(path))
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


# ---- the Hugging Face Hub (optional extra)
# ------------------------------------------------------


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


ADAPTERS: dict[str, Callable[[DatasetSpec, LoadedConfig, str | None], RawDataset]] = {
    "local": load_local,
    "hf": load_hf,
}
"""Loaders by `benchmark.adapter`; `inspect` (a task) is inspect_dataset's."""


def dataset_key(spec: DatasetSpec, adapter: str) -> str:
    """The name a dataset is pinned under, known before it is loaded."""
    if adapter == "hf":
        return ":".join(
            part for part in (spec.id, spec.name, spec.split or "test") if part
        )
    return spec.id


# ---- mapping rows to items
# ------------------------------------------------------------------------


def map_rows(raw: RawDataset, mapping: Mapping, limit: int | None) -> list[Item]:
    rows = raw.rows if limit is None else raw.rows[:limit]
    if rows:
        _check_columns(raw, mapping, rows[0])
    return [_map_row(raw, mapping, row, index) for index, row in enumerate(rows)]


def _check_columns(raw: RawDataset, mapping: Mapping, first: dict[str, Any]) -> None:
    wanted = [
        ("input", mapping.input),
        ("target", mapping.target),
        ("grading_scheme", mapping.grading_scheme),
        ("choices", mapping.choices),
    ]
    wanted += [("metadata", column) for column in mapping.metadata]
    if mapping.id and "{" not in mapping.id:
        wanted.append(("id", mapping.id))
    wanted += [("id", column) for column in _id_columns(mapping.id)]
    for field, column in wanted:
        if column is not None:
            _require_column(raw, first, f"benchmark.mapping.{field}", column)


def _require_column(
    raw: RawDataset, row: dict[str, Any], field: str, column: str
) -> None:
    if column not in row:
        raise ConfigError(
            f"{field}: column {column!r} not in dataset {raw.key}; its columns "
            f"are: {', '.join(map(str, row))}"
        )


def _id_columns(template: str | None) -> list[str]:
    if not template or "{" not in template:
        return []
    return [
        name for name in _ID_TOKEN.findall(template) if name not in ("row", "dataset")
    ]


def _row_name(mapping: Mapping, row: dict[str, Any], index: int) -> str:
    """How messages name a dataset row: 1-based, as editors number lines, with its id
    column's value if any."""
    plain_id = mapping.id if mapping.id and "{" not in mapping.id else None
    value = row.get(plain_id) if plain_id else None
    return f"row {index + 1}" + (f" (id {value!r})" if value not in (None, "") else "")


def _map_row(
    raw: RawDataset, mapping: Mapping, row: dict[str, Any], index: int
) -> Item:
    text = _as_text(row.get(mapping.input))
    if not text.strip():
        raise ConfigError(
            f"benchmark.mapping.input: dataset {raw.key} "
            f"{_row_name(mapping, row, index)} has a blank {mapping.input!r}; "
            "every item needs a non-blank input (drop or fix the row)"
        )
    targets = _targets(row.get(mapping.target)) if mapping.target else ()
    scheme = row.get(mapping.grading_scheme) if mapping.grading_scheme else None
    return Item(
        id=_item_id(raw, mapping.id, row, index),
        input=text,
        target=_target_text(targets),
        targets=targets,
        choices=_choices(raw, mapping.choices, row, index) if mapping.choices else (),
        grading_scheme=scheme
        if scheme is None or isinstance(scheme, str)
        else canonical_json(_jsonable(scheme)),
        metadata={column: _jsonable(row.get(column)) for column in mapping.metadata},
        dataset_id=raw.key,
        dataset_revision=raw.revision,
        row=index,
    )


def _targets(value: Any) -> tuple[str, ...]:
    """One target, or several acceptable ones when the column holds a list; a blank
    target is none."""
    value = _jsonable(value)
    if isinstance(value, list):
        return tuple(_as_text(v) for v in value if _as_text(v) != "")
    text = _as_text(value)
    return (text,) if text != "" else ()


def _target_text(targets: tuple[str, ...]) -> str:
    """What `{target}` renders and the items store keeps: the target itself, or a
    JSON list of several."""
    if len(targets) == 1:
        return targets[0]
    return canonical_json(list(targets)) if targets else ""


def _choices(
    raw: RawDataset, column: str, row: dict[str, Any], index: int
) -> tuple[str, ...]:
    value = _jsonable(row.get(column))
    if isinstance(value, str):
        try:
            value = json.loads(value)  # CSV cells can only hold a list as JSON text
        except json.JSONDecodeError:
            pass
    if not isinstance(value, list) or not value:
        raise ConfigError(
            f"benchmark.mapping.choices: dataset {raw.key} row {index + 1} has "
            f"{column!r} = {value!r}; "
            "it must be a non-empty list of option texts (in CSV, a JSON list "
            'such as ["Paris", "Rome"])'
        )
    return tuple(_as_text(v) for v in value)


def _item_id(
    raw: RawDataset, template: str | None, row: dict[str, Any], index: int
) -> str:
    template = template or "{row}"
    if "{" not in template:
        return _id_text(raw, template, row, index)
    values = {"row": index, "dataset": raw.short_name}

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        return (
            _as_text(values[name])
            if name in values
            else _id_text(raw, name, row, index)
        )

    return _ID_TOKEN.sub(substitute, template)


def _id_text(raw: RawDataset, column: str, row: dict[str, Any], index: int) -> str:
    """An id column's value as text; a missing or blank one is an error, never an id
    of ''."""
    text = _as_text(row.get(column))
    if not text.strip():
        raise ConfigError(
            f"benchmark.mapping.id: dataset {raw.key} row {index + 1} has no "
            "value in id "
            f"column {column!r} (null or blank); every item needs an id (fix "
            "or drop the row)"
        )
    return text


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float, bool)):
        return str(value)
    return canonical_json(_jsonable(value))


def _jsonable(value: Any) -> Any:
    """Plain JSON types for values that came from parquet or the Hub (numpy scalars,
    arrays, dates)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    return str(value)


def check_unique(items: Iterable[Item]) -> None:
    """Item ids must be unique across every dataset of the study."""
    seen: dict[str, Item] = {}
    for item in items:
        first = seen.get(item.id)
        if first is not None:
            where = (
                f"datasets {first.dataset_id} (row {first.row + 1}) and "
                f"{item.dataset_id} (row {item.row + 1})"
                if first.dataset_id != item.dataset_id
                else f"dataset {item.dataset_id} (rows {first.row + 1} and "
                f"{item.row + 1})"
            )
            raise ConfigError(
                f"benchmark.mapping.id: duplicate item id {item.id!r} in {where}; "
                'map `id` to a unique column or use a template like "{dataset}:{row}"'
            )
        seen[item.id] = item
