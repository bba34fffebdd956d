"""Human labels from a file (`itemeval labels CONFIG FILE --rater NAME`): labels given
outside the view — a spreadsheet, another tool — checked row by row against the stored
answers and the rubric's scale, then written as the view writes them (README "Labels").
Nothing is written when any row is wrong."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..results.labels import human_condition, label_row, pick_rubric, rubric_scale
from ..stages.label_writer import LabelWriter
from ..store import read_store
from ..study.grid import matches
from ..study.load import Study

COLUMNS = ("condition", "item_id", "epoch", "score")
"""A label file's columns: the generate condition (id, id prefix or slug), the item,
the replication (default 1) and the score on the rubric's scale."""


@dataclass(frozen=True)
class Imported:
    rater: str
    rubric: str
    labels: int
    replaced: int
    """Of `labels`, those that replaced an earlier label of the rater."""


def read_label_file(path: Path) -> list[dict[str, Any]]:
    """The rows of a .csv (with a header) or .jsonl label file."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such label file")
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ConfigError(
                    f"{path}: line {number} is not JSON ({exc})"
                ) from None
            if not isinstance(row, dict):
                raise ConfigError(f"{path}: line {number} is not a JSON object")
            rows.append(row)
        return rows
    if path.suffix.lower() != ".csv":
        raise ConfigError(f"{path}: a label file is .csv (with a header) or .jsonl")
    return list(csv.DictReader(text.splitlines()))


def import_labels(
    study: Study, path: Path, rater: str, rubric_ref: str | None = None
) -> Imported:
    """Check every row of the file, then write them all as `rater`'s labels."""
    rubric = pick_rubric(study, rubric_ref)
    condition = human_condition(rater, rubric)
    scale = rubric_scale(rubric)
    stored = _stored(study)
    rows = read_label_file(path)
    if not rows:
        raise ConfigError(f"{path}: no labels in the file")
    checked = [
        _checked(study, stored, row, i, path, scale) for i, row in enumerate(rows, 2)
    ]
    earlier = _labelled(study, condition.id)
    writer = LabelWriter(study)
    for solution, score in checked:
        writer.write(label_row(condition, solution, score, run_id=writer.run_id))
    keys = {(s["condition_id"], s["item_id"], int(s["epoch"])) for s, _ in checked}
    return Imported(rater, rubric.ref, len(checked), len(keys & earlier))


def _checked(
    study: Study,
    stored: dict[tuple[str, str, int], dict[str, Any]],
    row: dict[str, Any],
    line: int,
    path: Path,
    scale: Any,
) -> tuple[dict[str, Any], float]:
    """The stored answer a row labels and its score; a ConfigError naming the row."""
    where = f"{path}: row {line}"
    missing = [c for c in ("condition", "item_id", "score") if _blank(row.get(c))]
    if missing:
        raise ConfigError(
            f"{where}: no {', '.join(missing)} (columns: {', '.join(COLUMNS)})"
        )
    found = [c for c in study.generate if matches(c, str(row["condition"]))]
    if len(found) != 1:
        known = ", ".join(c.slug for c in study.generate)
        raise ConfigError(
            f"{where}: condition {row['condition']!r} names "
            f"{'no' if not found else 'more than one'} generate condition ({known})"
        )
    epoch = _number(row.get("epoch") or 1, where, "epoch")
    key = (found[0].id, str(row["item_id"]), int(epoch))
    if key not in stored:
        raise ConfigError(
            f"{where}: no stored answer of {found[0].slug} to item "
            f"{row['item_id']!r}, replication {int(epoch)}: run generate first, or "
            "check the item id"
        )
    score = _number(row["score"], where, "score")
    if not scale.low <= score <= scale.high:
        raise ConfigError(
            f"{where}: score {score:g} is off the rubric's scale "
            f"{scale.low}–{scale.high}"
        )
    return stored[key], score


def _number(value: Any, where: str, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: {name} {value!r} is not a number") from None
    if number != number:
        raise ConfigError(f"{where}: {name} is NaN")
    return number


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _stored(study: Study) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Every stored answer without error, by (condition, item, replication)."""
    columns = ["condition_id", "item_id", "epoch", "solution_hash", "error"]
    rows = read_store(study.paths, "solutions", columns).to_pylist()
    return {
        (r["condition_id"], r["item_id"], int(r["epoch"])): r
        for r in rows
        if r["error"] is None
    }


def _labelled(study: Study, condition_id: str) -> set[tuple[str, str, int]]:
    columns = ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
    rows = read_store(
        study.paths, "grades", columns, where={"grade_condition_id": [condition_id]}
    ).to_pylist()
    return {(r["gen_condition_id"], r["item_id"], int(r["epoch"])) for r in rows}
