"""Dataset sources (local files, the Hugging Face Hub) turned into Items through the
config's mapping."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from ..errors import ConfigError
from ..hashing import canonical_json
from ..records import Item
from . import json_rows
from .config import DatasetSpec, Mapping
from .sources import (
    RawDataset,
)

_ID_TOKEN = re.compile(r"\{([^{}]+)\}")


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
        else canonical_json(jsonable(scheme)),
        metadata={column: jsonable(row.get(column)) for column in mapping.metadata},
        dataset_id=raw.key,
        dataset_revision=raw.revision,
        row=index,
    )


def _targets(value: Any) -> tuple[str, ...]:
    """One target, or several acceptable ones when the column holds a list; a blank
    target is none."""
    value = jsonable(value)
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
    value = jsonable(row.get(column))
    if isinstance(value, str):
        try:
            # CSV cells can only hold a list as JSON text
            value = json_rows.loads(
                value, f"benchmark.mapping.choices: dataset {raw.key} row {index + 1}"
            )
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
    return canonical_json(jsonable(value))


def jsonable(value: Any) -> Any:
    """Plain JSON types for values that came from parquet or the Hub (numpy scalars,
    arrays, dates)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return jsonable(value.tolist())
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
