"""`itemeval import`: inspect logs upserted as the solutions of imported conditions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.logs import LogImport, log_files, read_log
from ..errors import ConfigError
from ..paths import StudyPaths
from ..plan.pricing import call_usd, load_prices
from ..stages.manifest import Started, new_run_id, start_manifest
from ..stages.solution_rows import solution_row
from ..store import read_store, upsert
from ..store.backend import is_shared
from ..store.items import write_items
from ..store.recovery import locked
from ..study.imported import KIND, newest_rows, record_imports
from ..study.load import Study

# ---- the command ---------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    """What `itemeval import` did per condition, with every sample matching no item."""

    logs: list[str]
    conditions: list[dict[str, Any]]
    unmatched: list[dict[str, Any]]
    rows_written: int
    unchanged: int
    manifest: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "logs": self.logs,
            "conditions": self.conditions,
            "unmatched": self.unmatched,
            "rows_written": self.rows_written,
            "unchanged": self.unchanged,
            "manifest": self.manifest,
        }


def run_import(
    study: Study, locations: list[str], *, id_field: str | None = None
) -> ImportResult:
    """Upsert inspect logs' samples as imported conditions' solutions; no model call."""
    if is_shared(study.paths):
        raise ConfigError(
            "import: a study on object storage cannot import logs yet; import into a "
            "local copy of the study"
        )
    files = log_files(locations)
    found = [
        read_log(f, {i.id: i for i in study.items}, id_field=id_field) for f in files
    ]
    conditions = {f.condition.id: f.condition for f in found}
    run_id = new_run_id("import")
    with locked(study.paths, "import"):
        manifest = start_manifest(
            study,
            Started(
                stage="import",
                run_id=run_id,
                generate=list(conditions.values()),
                grade=[],
                options={"logs": files, "id_field": id_field},
            ),
        )
        rows, unchanged = _write(study, found, run_id)
        result = ImportResult(
            logs=files,
            conditions=_summary(found, rows),
            unmatched=[
                {"log": f.path, "sample_ids": f.unmatched} for f in found if f.unmatched
            ],
            rows_written=len(rows),
            unchanged=unchanged,
            manifest=str(manifest.path),
        )
        manifest.finish("completed", imported=result.as_dict())
    return result


def _write(
    study: Study, found: list[LogImport], run_id: str
) -> tuple[list[dict[str, Any]], int]:
    """Upsert the answers the store lacks and record the conditions; returns the rows
    written and how many answers were already stored (or older)."""
    write_items(study.paths, study.items)
    conditions = {f.condition.id: f.condition for f in found}
    stored = _stored(study.paths, list(conditions))
    prices = load_prices(study.pricing_path)
    rows, unchanged = newest_rows(_rows(found, prices, run_id), stored)
    if rows:
        upsert(study.paths, "solutions", rows)
    logs: dict[str, set[str]] = {}
    for f in found:
        logs.setdefault(f.condition.id, set()).add(f.path)
    record_imports(study.paths, conditions.values(), logs)
    return rows, unchanged


def _rows(found: list[LogImport], prices: Any, run_id: str) -> list[dict[str, Any]]:
    """Solutions rows of the logs' answers, priced like a run of their model."""
    rows = []
    for log in found:
        price = prices.lookup(log.model)
        for answer in log.answers:
            result = answer.result
            usd = call_usd(price, result.usage, cache_hit=result.cache_hit)
            row = solution_row(
                log.condition, answer.item, answer.epoch, result, run_id=run_id, usd=usd
            )
            rows.append({**row, "created_at": answer.created_at})
    return rows


def _stored(
    paths: StudyPaths, ids: list[str]
) -> dict[tuple[str, str, int], dict[str, Any]]:
    columns = ["condition_id", "item_id", "epoch", "sample_uuid", "created_at", "error"]
    table = read_store(paths, "solutions", columns, where={"condition_id": ids})
    return {
        (row["condition_id"], row["item_id"], int(row["epoch"])): row
        for row in table.to_pylist()
    }


def _summary(
    found: list[LogImport], written: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    per: dict[str, dict[str, Any]] = {}
    for f in found:
        entry = per.setdefault(
            f.condition.id,
            {
                "condition_id": f.condition.id,
                "slug": f.condition.slug,
                "model": f.condition.model,
                "kind": KIND,
                "samples": 0,
                "rows_written": 0,
            },
        )
        entry["samples"] += len(f.answers)
    for row in written:
        per[row["condition_id"]]["rows_written"] += 1
    return list(per.values())
