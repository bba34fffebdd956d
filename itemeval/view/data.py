"""What the view's pages show, as plain values from the stores: the items table with its
filters, built once per store version and queried per request."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..results.cells import graded_frame
from ..results.compute import grade_conditions
from ..store.backend import is_shared
from ..study.load import Study

PER_PAGE = 50
SORTS = ("id", "score", "-score", "spread")


def store_version(study: Study) -> tuple | None:
    """What changes whenever a store is written (a local store's version link, the
    journal's parts); None for a study on object storage, which is read fresh every
    time."""
    paths = study.paths
    if is_shared(paths):
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
    """One value per store version: the pages re-read the stores only when a command
    wrote them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}
        self._values: dict[str, tuple[Any, Any]] = {}

    def get(self, name: str, study: Study, build: Callable[[], Any]) -> Any:
        with self._lock:
            building = self._building.setdefault(name, threading.Lock())
        with building:  # a second request for the same value waits for the first's
            version = store_version(study)
            held = self._values.get(name)
            if held is not None and version is not None and held[0] == version:
                return held[1]
            value = build()
            self._values[name] = (version, value)
            return value


@dataclass
class ItemTable:
    """The items page's data as integer-coded arrays, so a query is a few vectorised
    passes.

    `cells`: per (generate condition, grade condition, item) the mean score, parse
    failures and errors; `disagree`: per (generate condition, item) whether two grade
    conditions disagree on one of its answers; `failed`: per (generate condition, item)
    solutions stored with an error. Conditions are coded by their position in `gen_ids`
    / `grade_ids`, items by their row in `items`."""

    cells: pd.DataFrame
    disagree: pd.DataFrame
    items: pd.DataFrame
    failed: pd.DataFrame
    gen_ids: dict[str, int] = field(default_factory=dict)
    grade_ids: dict[str, int] = field(default_factory=dict)
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
    grade = grade_conditions(study)
    frame = graded_frame(study, grade)
    flags = frame.assign(
        parse_failure=(frame["status"] == "parse_failure").astype(int),
        error=(frame["status"] == "error").astype(int),
    )
    keys = ["gen_condition_id", "grade_condition_id", "item_id"]
    cells = flags.groupby(keys, sort=False).agg(
        score=("score", "mean"),
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
    codes = _Codes(
        {c.id: n for n, c in enumerate(study.generate)},
        {c.id: n for n, c in enumerate(grade)},
        {item_id: n for n, item_id in enumerate(items["item_id"])},
    )
    items["id_rank"] = items["item_id"].rank(method="first").astype(int).to_numpy()
    return ItemTable(
        codes.encode(cells.reset_index()),
        codes.encode(_disagreements(frame)),
        items,
        codes.encode(_failed(study)),
        codes.gen,
        codes.grade,
        keys_seen,
    )


@dataclass(frozen=True)
class _Codes:
    gen: dict[str, int]
    grade: dict[str, int]
    item: dict[str, int]

    def encode(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Condition and item ids as integer codes (-1: not in the current grid)."""
        frame = frame.rename(columns={"condition_id": "gen_condition_id"})
        columns = {
            "gen_condition_id": ("gen", self.gen),
            "item_id": ("item", self.item),
        }
        columns["grade_condition_id"] = ("grade", self.grade)
        for column, (name, mapping) in columns.items():
            if column in frame:
                coded = frame.pop(column).map(mapping).fillna(-1)
                frame[name] = coded.astype(np.int64).to_numpy()
        return frame[frame["item"] >= 0].reset_index(drop=True)


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
    """An answer's grade conditions disagree when one passes and another fails it, each
    read against the middle of its own observed scale (so a 0/1 scorer and a 1-10
    judge are comparable)."""
    scored = frame[frame["status"] == "scored"]
    if scored.empty:
        return pd.DataFrame(columns=["gen_condition_id", "item_id", "disagree"])
    scale = scored.groupby("grade_condition_id")["score"].agg(["min", "max"])
    # a grader that gave one score only has no scale of its own: it is read on
    # everyone's
    flat = scale["min"] == scale["max"]
    scale.loc[flat, "min"] = scored["score"].min()
    scale.loc[flat, "max"] = scored["score"].max()
    # mapped from a categorical column the middles come back categorical: as floats
    # they compare with the scores
    middles = (scale["min"] + scale["max"]) / 2
    middle = scored["grade_condition_id"].map(middles).astype(float)
    passed = scored.assign(passed=(scored["score"] > middle).astype(int))
    per_answer = passed.groupby(["gen_condition_id", "item_id", "epoch"])["passed"]
    split = (per_answer.max() != per_answer.min()).rename("disagree").reset_index()
    return (
        split.groupby(["gen_condition_id", "item_id"])["disagree"].any().reset_index()
    )


def query_items(table: ItemTable, query: ItemQuery) -> tuple[pd.DataFrame, int]:
    """One page of items matching the query, with their mean score and flags; and how
    many matched."""
    n = len(table.items)
    gen = table.gen_ids.get(query.condition, -2) if query.condition else None
    grade = table.grade_ids.get(query.grade, -2) if query.grade else None
    cells = _chosen(table.cells, gen=gen, grade=grade)
    item, score = cells["item"].to_numpy(), _on_one_scale(table.cells, cells)
    scored = ~np.isnan(score)
    count = np.bincount(item[scored], minlength=n)
    total = np.bincount(item[scored], weights=score[scored], minlength=n)
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    np.fmin.at(low, item[scored], score[scored])
    np.fmax.at(high, item[scored], score[scored])
    split = _chosen(table.disagree, gen=gen)
    failed = _chosen(table.failed, gen=gen)
    columns = {
        "score": np.where(count > 0, total / np.maximum(count, 1), np.nan),
        "spread": high - low,
        "parse_failures": _per_item(cells, "parse_failures", n),
        "errors": _per_item(cells, "errors", n) + _per_item(failed, "failed", n),
        "disagree": _per_item(split, "disagree", n) > 0,
    }
    chosen = np.flatnonzero(_mask(table.items, columns, query))
    chosen = chosen[_order(table.items, columns, chosen, query.sort)]
    start = (max(query.page, 1) - 1) * PER_PAGE
    page = chosen[start : start + PER_PAGE]
    rows = table.items.iloc[page].drop(columns="id_rank").reset_index(drop=True)
    for name, values in columns.items():
        rows[name] = values[page]
    return rows, len(chosen)


def mixes_scales(table: ItemTable, query: ItemQuery) -> bool:
    """Whether the page's scores come from grade conditions of different ranges (all
    graders chosen): each is then rescaled to 0-1 before they are averaged."""
    return not query.grade and len(_ranges(table.cells).drop_duplicates()) > 1


def _ranges(cells: pd.DataFrame) -> pd.DataFrame:
    """Per grade condition, the lowest and highest mean it gave anywhere."""
    scored = cells[cells["score"].notna()]
    return scored.groupby("grade")["score"].agg(["min", "max"])


def _on_one_scale(every: pd.DataFrame, cells: pd.DataFrame) -> np.ndarray:
    """The cells' scores, each grade condition's rescaled to 0-1 by its `_ranges`,
    when the chosen cells cross several ranges (a 0-3 judge, a 0/1 scorer and labels
    were averaged as one number)."""
    score = cells["score"].to_numpy(float)
    bounds = _ranges(every)
    if cells["grade"].nunique() < 2 or len(bounds.drop_duplicates()) < 2:
        return score
    low = bounds["min"].reindex(cells["grade"]).to_numpy(float)
    width = (bounds["max"] - bounds["min"]).reindex(cells["grade"]).to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(width > 0, (score - low) / width, 0.0)


def _chosen(frame: pd.DataFrame, *, gen: int | None = None, grade: int | None = None):
    if gen is not None:
        frame = frame[frame["gen"].to_numpy() == gen]
    if grade is not None:
        frame = frame[frame["grade"].to_numpy() == grade]
    return frame


def _per_item(frame: pd.DataFrame, column: str, n: int) -> np.ndarray:
    weights = frame[column].to_numpy(float)
    return np.bincount(frame["item"].to_numpy(), weights=weights, minlength=n)


def _mask(items: pd.DataFrame, columns: dict[str, np.ndarray], query: ItemQuery):
    mask = np.ones(len(items), dtype=bool)
    with np.errstate(invalid="ignore"):
        if query.score_min is not None:
            mask &= columns["score"] >= query.score_min
        if query.score_max is not None:
            mask &= columns["score"] <= query.score_max
    if query.parse_failure:
        mask &= columns["parse_failures"] > 0
    if query.error:
        mask &= columns["errors"] > 0
    if query.disagree:
        mask &= columns["disagree"]
    column = "meta." + (query.meta_key or "")
    if query.meta_key and column in items:
        mask &= (items[column].astype(str) == (query.meta_value or "")).to_numpy()
    return mask


def _order(
    items: pd.DataFrame, columns: dict[str, np.ndarray], chosen: np.ndarray, sort: str
) -> np.ndarray:
    """Positions into `chosen` in the sort's order; ties and missing scores by item id,
    last."""
    rank = items["id_rank"].to_numpy()[chosen]
    if sort == "id":
        return np.argsort(rank, kind="stable")
    values = columns["spread" if sort == "spread" else "score"][chosen]
    if sort in ("-score", "spread"):
        values = -values
    return np.lexsort((rank, values, np.isnan(values)))
