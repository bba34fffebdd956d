"""The long export: one row per grade, joined to its solution, its item and its
conditions' facet values."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..plan.generate_tasks import InputHashes
from ..records import SAMPLING_PARAMS, TRUNCATING_STOP_REASONS
from ..results.criteria import criteria_long
from ..store import mirror, read_store
from ..store.files import write_file_atomic
from ..store.recovery import locked
from ..study import cascade
from ..study.load import Study, extra_judges
from .pairwise_export import pairwise_long

_SOLUTION_COLUMNS = {
    "condition_id": "gen_condition_id",
    "item_id": "item_id",
    "epoch": "epoch",
    "condition_slug": "gen_condition_slug",
    "model": "model",
    "prompt_name": "prompt",
    "prompt_hash": "prompt_hash",
    "input_hash": "input_hash",
    "model_config_name": "model_config",
    "solver": "solver",
    **{param.column: param.column for param in SAMPLING_PARAMS},
    "solution": "solution",
    "turns": "turns",
    "tool_calls": "tool_calls",
    "tools_used": "tools_used",
    "limit_hit": "limit_hit",
    "solution_hash": "current_solution_hash",
    "stop_reason": "stop_reason",
    "input_tokens": "solution_input_tokens",
    "output_tokens": "solution_output_tokens",
    "reasoning_tokens": "solution_reasoning_tokens",
    "usd": "solution_usd",
    "cache_hit": "solution_cache_hit",
    "latency_s": "solution_latency_s",
    "created_at": "generated_at",
    "run_id": "solution_run_id",
    "log_file": "solution_log_file",
    "dataset_id": "dataset_id",
    "dataset_revision": "dataset_revision",
}
_GRADE_RENAMES = {
    "input_tokens": "grade_input_tokens",
    "output_tokens": "grade_output_tokens",
    "total_tokens": "grade_total_tokens",
    "cache_read_tokens": "grade_cache_read_tokens",
    "cache_write_tokens": "grade_cache_write_tokens",
    "reasoning_tokens": "grade_reasoning_tokens",
    "usd": "grade_usd",
    "cache_hit": "grade_cache_hit",
    "latency_s": "grade_latency_s",
    "run_id": "grade_run_id",
    "log_file": "grade_log_file",
    "created_at": "graded_at",
    "error": "grade_error",
}


@dataclass(frozen=True)
class ExportResult:
    parquet: Path
    csv: Path
    rows: int
    recovered: dict[str, int]
    shared: list[str] = field(default_factory=list)
    """A study on object storage: the copies written beside it (parquet, csv)."""
    pairwise_rows: int = 0
    """Verdicts in export/pairwise_long.parquet and .csv (written when there are
    any)."""


def long_table(study: Study) -> pd.DataFrame:
    """Every stored grade with its solution, item and facet values; `epoch` is the
    replication, as in the stores."""
    paths = study.paths
    grades = nullable_frame(read_store(paths, "grades")).rename(
        columns={**_GRADE_RENAMES, "solution_hash": "graded_solution_hash"}
    )
    solutions = nullable_frame(
        read_store(paths, "solutions", list(_SOLUTION_COLUMNS))
    ).rename(columns=_SOLUTION_COLUMNS)
    table = grades.merge(
        solutions, on=["gen_condition_id", "item_id", "epoch"], how="left"
    )
    table = table.merge(_items(study), on="item_id", how="left", suffixes=("", "_item"))
    table["truncated"] = table["stop_reason"].isin(TRUNCATING_STOP_REASONS) & table[
        "solution"
    ].fillna("").str.strip().ne("")
    table["stale"] = table["graded_solution_hash"] != table["current_solution_hash"]
    table["input_changed"] = _input_changed(study, table)
    table["decided_by"] = pd.array(  # a cascade's deciding stage, its score_metadata's
        [
            cascade.decided_by(meta) if kind == "cascade" else None
            for kind, meta in zip(table["grade_kind"], table["score_metadata"])
        ],
        dtype="string",
    )
    # A judge defined under `graders:` but run only with `grade --grader NAME` belongs
    # to the study too.
    draws = {
        c.id: c.draws
        for c in study.grade
        + extra_judges(study.config, study.rubrics, list(study.config.graders))
    }
    table["in_grid"] = (
        table["gen_condition_id"].isin({c.id for c in study.generate})
        & table["grade_condition_id"].isin(set(draws))
        # a replication above facets.replications (lowered since) is not counted,
        # nor a draw above its judge's draws
        & (table["epoch"] <= study.replications)
        & (table["draw"] <= table["grade_condition_id"].map(draws).fillna(1))
    )
    table.insert(0, "epoch", table.pop("epoch"))
    return table.sort_values(
        ["grade_condition_id", "gen_condition_id", "item_id", "epoch", "draw"],
        kind="stable",
    )


def _input_changed(study: Study, table: pd.DataFrame) -> pd.Series:
    """Whether each row's answer was written for an earlier version of its item (a
    recorded input hash other than the one its cell would send now)."""
    current = InputHashes(study.generate, study.items).column(
        table.rename(columns={"gen_condition_id": "condition_id"})
    )
    recorded = table["input_hash"]
    changed = recorded.notna() & current.notna() & (recorded != current)
    return changed.astype(bool)


def nullable_frame(table: pa.Table) -> pd.DataFrame:
    """Token counts stay integers with nulls (pandas would turn a nullable int column
    into floats), and flags with nulls stay booleans (not objects holding None)."""
    return table.to_pandas(
        types_mapper={pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}.get
    )


def _items(study: Study) -> pd.DataFrame:
    items = read_store(
        study.paths,
        "items",
        ["item_id", "input", "target", "grading_scheme", "metadata"],
    ).to_pandas()
    meta = pd.json_normalize(
        [json.loads(m) if m else {} for m in items.pop("metadata")], max_level=0
    )
    meta.columns = [f"meta_{c}" for c in meta.columns]
    return pd.concat([items.reset_index(drop=True), meta], axis=1)


def run_export(study: Study) -> ExportResult:
    """Write the long table as parquet and CSV under the study's export/ dir, each
    file replaced atomically."""
    paths = study.paths
    with locked(study.paths, "itemeval export") as recovered:
        table = long_table(study)
        paths.export.mkdir(parents=True, exist_ok=True)
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        parquet, csv = (
            paths.export / "grades_long.parquet",
            paths.export / "grades_long.csv",
        )
        write_file_atomic(parquet, lambda tmp: pq.write_table(arrow, tmp))
        write_file_atomic(csv, lambda tmp: table.to_csv(tmp, index=False))
        verdicts = pairwise_long(study)
        written = (
            _write_long(verdicts, paths.export / "pairwise_long")
            if not verdicts.empty
            else []
        )
        criteria = criteria_long(
            table,
            keep=("grade_condition_slug", "score", "parse_ok", "stale", "in_grid"),
        )
        if not criteria.empty:  # one row per (grade, criterion)
            crit = pa.Table.from_pandas(criteria, preserve_index=False)
            path = paths.export / "criteria_long.parquet"
            write_file_atomic(path, lambda tmp: pq.write_table(crit, tmp))
            written.append(path)
        shared = mirror.beside_the_study(paths, [parquet, csv, *written])
    return ExportResult(
        parquet, csv, len(table), recovered, shared, pairwise_rows=len(verdicts)
    )


def _write_long(table: pd.DataFrame, stem: Path) -> list[Path]:
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    parquet, csv = stem.with_suffix(".parquet"), stem.with_suffix(".csv")
    write_file_atomic(parquet, lambda tmp: pq.write_table(arrow, tmp))
    write_file_atomic(csv, lambda tmp: table.to_csv(tmp, index=False))
    return [parquet, csv]
