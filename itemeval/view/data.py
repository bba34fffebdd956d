"""What the view's pages show, as plain values from the stores: the items table with its filters, built
once per store version and queried per request."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..results import grade_conditions, graded_frame
from ..study import Study

PER_PAGE = 50
SORTS = ("id", "score", "-score", "spread")


def store_version(study: Study) -> tuple | None:
    """What changes whenever a store is written (a local store's version link, the journal's parts); None
    for a study on object storage, which is read fresh every time."""
    paths = study.paths
    if paths.remote is not None:
        return None
    links = []
    for path in (paths.solutions, paths.grades, paths.items):
        try:
            links.append(os.readlink(path))
        except OSError:
            links.append(None)
    journal = (
        sorted((p.name, p.stat().st_size) for p in paths.journal.glob("*.jsonl"))
        if paths.journal.is_dir()
        else []
    )
    return (*links, tuple(journal))


class VersionCache:
    """One value per store version: the pages re-read the stores only when a command wrote them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, tuple[Any, Any]] = {}

    def get(self, name: str, study: Study, build: Callable[[], Any]) -> Any:
        version = store_version(study)
        with self._lock:
            held = self._values.get(name)
            if held is not None and version is not None and held[0] == version:
                return held[1]
        value = build()
        with self._lock:
            self._values[name] = (version, value)
        return value


@dataclass
class ItemTable:
    """Per (generate condition, grade condition, item): mean score, scored, parse failures and errors;
    per (generate condition, item): whether two grade conditions disagree on one of its answers."""

    cells: pd.DataFrame
    disagree: pd.DataFrame
    items: pd.DataFrame
    failed: pd.DataFrame
    """Per (gen_condition_id, item_id): solutions stored with an error (generate failures)."""
    metadata_keys: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemQuery:
    condition: str | None = None
    grade: str | None = None
    score_min: float | None = None
    score_max: float | None = None
    parse_failure: bool = False
    error: bool = False
    disagree: bool = False
    meta_key: str | None = None
    meta_value: str | None = None
    sort: str = "id"
    page: int = 1


def item_table(study: Study) -> ItemTable:
    frame = graded_frame(study, grade_conditions(study))
    flags = frame.assign(
        parse_failure=(frame["status"] == "parse_failure").astype(int),
        error=(frame["status"] == "error").astype(int),
    )
    keys = ["gen_condition_id", "grade_condition_id", "item_id"]
    cells = flags.groupby(keys, sort=False).agg(
        score=("score", "mean"),
        scored=("score", "count"),
        parse_failures=("parse_failure", "sum"),
        errors=("error", "sum"),
    )
    items = pd.DataFrame(
        {
            "item_id": [item.id for item in study.items],
            "input": [item.input[:160] for item in study.items],
            "target": [item.target[:60] for item in study.items],
        }
    )
    keys_seen = sorted({key for item in study.items for key in item.metadata})
    for key in keys_seen:
        items["meta." + key] = [_text(item.metadata.get(key)) for item in study.items]
    return ItemTable(
        cells.reset_index(), _disagreements(frame), items, _failed(study), keys_seen
    )


def _failed(study: Study) -> pd.DataFrame:
    from ..store import read_store

    stored = read_store(
        study.paths,
        "solutions",
        ["condition_id", "item_id", "error"],
        where={"condition_id": [c.id for c in study.generate]},
    ).to_pandas()
    failed = stored[stored["error"].notna()]
    return (
        failed.groupby(["condition_id", "item_id"])
        .size()
        .rename("failed")
        .reset_index()
    )


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _disagreements(frame: pd.DataFrame) -> pd.DataFrame:
    """An answer's grade conditions disagree when one passes and another fails it, each read against the
    middle of its own observed scale (so a 0/1 scorer and a 1-10 judge are comparable)."""
    scored = frame[frame["status"] == "scored"]
    if scored.empty:
        return pd.DataFrame(columns=["gen_condition_id", "item_id", "disagree"])
    scale = scored.groupby("grade_condition_id")["score"].agg(["min", "max"])
    # a grader that gave one score only has no scale of its own: it is read on everyone's
    flat = scale["min"] == scale["max"]
    scale.loc[flat, "min"] = scored["score"].min()
    scale.loc[flat, "max"] = scored["score"].max()
    middle = scored["grade_condition_id"].map((scale["min"] + scale["max"]) / 2)
    passed = scored.assign(passed=(scored["score"] > middle).astype(int))
    per_answer = passed.groupby(["gen_condition_id", "item_id", "epoch"])["passed"]
    split = (per_answer.max() != per_answer.min()).rename("disagree").reset_index()
    return (
        split.groupby(["gen_condition_id", "item_id"])["disagree"].any().reset_index()
    )


def query_items(table: ItemTable, query: ItemQuery) -> tuple[pd.DataFrame, int]:
    """One page of items matching the query, with their mean score and flags; and how many matched."""
    cells = table.cells
    if query.condition:
        cells = cells[cells["gen_condition_id"] == query.condition]
    if query.grade:
        cells = cells[cells["grade_condition_id"] == query.grade]
    per_item = cells.groupby("item_id", sort=False).agg(
        score=("score", "mean"),
        spread=("score", lambda s: s.max() - s.min() if len(s) else np.nan),
        parse_failures=("parse_failures", "sum"),
        errors=("errors", "sum"),
    )
    disagree = table.disagree
    if query.condition:
        disagree = disagree[disagree["gen_condition_id"] == query.condition]
    split = disagree.groupby("item_id")["disagree"].any()
    failed = table.failed
    if query.condition:
        failed = failed[failed["condition_id"] == query.condition]
    failed = failed.groupby("item_id")["failed"].sum()
    rows = table.items.set_index("item_id").join(per_item).join(split).join(failed)
    rows["errors"] = rows["errors"].fillna(0) + rows["failed"].fillna(0)
    rows["disagree"] = rows["disagree"].fillna(False).astype(bool)
    rows = rows[_mask(rows, query)]
    rows = _sorted(rows, query.sort)
    start = (max(query.page, 1) - 1) * PER_PAGE
    return rows.iloc[start : start + PER_PAGE].reset_index(), len(rows)


def _mask(rows: pd.DataFrame, query: ItemQuery) -> pd.Series:
    mask = pd.Series(True, index=rows.index)
    if query.score_min is not None:
        mask &= rows["score"] >= query.score_min
    if query.score_max is not None:
        mask &= rows["score"] <= query.score_max
    if query.parse_failure:
        mask &= rows["parse_failures"].fillna(0) > 0
    if query.error:
        mask &= rows["errors"].fillna(0) > 0
    if query.disagree:
        mask &= rows["disagree"]
    column = "meta." + (query.meta_key or "")
    if query.meta_key and column in rows:
        mask &= rows[column].astype(str) == (query.meta_value or "")
    return mask


def _sorted(rows: pd.DataFrame, sort: str) -> pd.DataFrame:
    if sort == "score":
        return rows.sort_values("score", na_position="last", kind="stable")
    if sort == "-score":
        return rows.sort_values(
            "score", ascending=False, na_position="last", kind="stable"
        )
    if sort == "spread":
        return rows.sort_values(
            "spread", ascending=False, na_position="last", kind="stable"
        )
    return rows.sort_index(kind="stable")
