"""A study as data frames for a notebook: its stores, the long table, every result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..results.options import ResultsOptions
    from ..study.load import Study

STORES = ("items", "solutions", "grades")


@dataclass(frozen=True)
class Frames:
    """One consistent reading of a study: each store read once, views built on it."""

    items: pd.DataFrame
    solutions: pd.DataFrame
    grades: pd.DataFrame
    long: pd.DataFrame
    """`itemeval export`'s table: a row per grade with its solution, item and facets."""
    results: dict[str, pd.DataFrame]
    """Each list of `itemeval results --json` (cells, marginals, comparisons, ...)."""
    reads: dict[str, int] = field(default_factory=dict)
    """How many times each store was read (1 each)."""

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every frame by name; the results' lists as `results_<name>`."""
        named = {name: getattr(self, name) for name in (*STORES, "long")}
        return named | {f"results_{k}": v for k, v in self.results.items()}

    def polars(self) -> dict[str, Any]:
        """The frames as polars DataFrames (needs `pip install polars`)."""
        polars = _optional("polars")
        return {
            name: polars.from_pandas(frame) for name, frame in self.tables().items()
        }

    def duckdb(self, connection: Any = None) -> Any:
        """A DuckDB connection (`pip install duckdb`) with every frame as a view."""
        duckdb = _optional("duckdb")
        connection = connection or duckdb.connect()
        for name, frame in self.tables().items():
            connection.register(name, frame)
        return connection


def _optional(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise ConfigError(
            f"frames: {name} is not installed; pip install {name}"
        ) from None


def frames(
    study: str | Path | Study,
    *,
    base_dir: str | Path | None = None,
    options: ResultsOptions | None = None,
) -> Frames:
    """The study behind a config path (or a loaded Study) as pandas DataFrames.

    `options` are `itemeval results`' options (reducer, CI method, --by, --compare); the
    default is the command's. A study on object storage is read through its snapshot.
    """
    from ..adaptive.until_decided import with_sequential
    from ..results.compute import study_results
    from ..results.options import ResultsOptions
    from ..store import read_store
    from ..store.memo import reading_once
    from .export import long_table, nullable_frame

    study = _loaded(study, base_dir)
    with reading_once() as tables:
        stores = {
            name: nullable_frame(read_store(study.paths, name)) for name in STORES
        }
        long = long_table(study)
        report = study_results(study, options or ResultsOptions())
        data = with_sequential(study, report.as_dict())
        reads = {store: 1 for (_, store) in tables}
    lists = {k: v for k, v in data.items() if isinstance(v, list)}
    return Frames(
        **stores,
        long=long.reset_index(drop=True),
        results={name: pd.DataFrame(rows) for name, rows in lists.items()},
        reads=reads,
    )


def _loaded(study: Any, base_dir: str | Path | None) -> Study:
    from ..study.load import Study, load_study

    if not isinstance(study, Study):
        study = load_study(study, base_dir)
    return replace(study, loaded=replace(study.loaded, reads="snapshot"))
