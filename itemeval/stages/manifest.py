"""Run manifests: what a run was asked to do, under which versions, and how it ended
(README "The study directory")."""

from __future__ import annotations

import json
import os
import platform
import re
import secrets
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..outcomes import ConditionRun, Outcome
from ..plan.pricing import total_usd
from ..records import GenerateCondition, GradeCondition, Template
from ..store.files import reserve_space, write_json_atomic
from ..version import tested_range

if TYPE_CHECKING:
    pass

if TYPE_CHECKING:
    from ..study.load import Study
RESERVE_PREFIX = ".reserve-"
RESERVE_MIN_BYTES = 256 * 1024
"""Held on the disk from a run's start to its end (at least 4x the first manifest's
size): the final manifest fits even when the run filled the disk."""
_PACKAGES = ("itemeval", "inspect-ai", "pyarrow", "pandas", "pydantic", "openai")
# A command line can carry a key (`--api-key sk-...`, `KEY=...`); mask anything that
# looks like one.
_SECRET = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|(?i:(?:api[_-]?key|token|secret)[=:])\S+)"
)


_command_line: list[str] | None = None


def set_command_line(argv: list[str]) -> None:
    """The CLI records what the user typed (sys.argv is someone else's when itemeval
    runs in-process)."""
    global _command_line
    _command_line = list(argv)


def command_line() -> list[str]:
    return redact(
        _command_line if _command_line is not None else ["itemeval", *sys.argv[1:]]
    )


def close_abandoned(manifests: Path) -> int:
    """Mark manifests still `running` as `interrupted`: the caller holds the lock, so
    their run is dead."""
    closed = 0
    for reserve in manifests.glob(f"{RESERVE_PREFIX}*") if manifests.is_dir() else []:
        reserve.unlink(missing_ok=True)
    for path in manifests.glob("*.json") if manifests.is_dir() else []:
        data = _running(path)
        if data is None:
            continue
        data.update(
            outcome="interrupted",
            ended_at=None,
            note="the process ended without finishing its manifest",
        )
        write_json_atomic(path, data)
        closed += 1
    return closed


def _running(path: Path) -> dict[str, Any] | None:
    """The manifest at `path` when it is still `running`; a damaged one is refused
    (exit 2)."""
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} is not a manifest itemeval can read (damaged or foreign); move it "
            "out of manifests/ (it is evidence of one run, not data) and run again"
        )
    return data if data.get("outcome") == "running" else None


def new_run_id(stage: str) -> str:
    now = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{stage}-{secrets.token_hex(3)}"


def package_versions() -> dict[str, str | None]:
    from importlib import metadata  # 0.05-0.1 s; only a run that writes a manifest

    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    # the inspect-ai releases this itemeval was tested on, beside the one it ran on
    versions["inspect-ai tested"] = tested_range()
    return versions


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def redact(argv: list[str]) -> list[str]:
    return [_SECRET.sub("***", arg) for arg in argv]


def _generate_entry(condition: GenerateCondition) -> dict[str, Any]:
    return {
        "id": condition.id,
        "slug": condition.slug,
        "model": condition.model,
        "payload": condition.payload,
        "requested_params": condition.params,
    }


def _grade_entry(condition: GradeCondition) -> dict[str, Any]:
    return {
        "id": condition.id,
        "slug": condition.slug,
        "kind": condition.kind,
        "payload": condition.payload,
    }


def _templates(templates: list[Template]) -> list[dict[str, Any]]:
    return [
        {
            "kind": t.kind,
            "ref": t.ref,
            "hash": t.hash,
            "source": t.source,
            "path": t.path,
        }
        for t in templates
    ]


@dataclass
class Manifest:
    """A run's manifest, written when the run starts and rewritten when it ends."""

    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    def write(self) -> None:
        write_json_atomic(self.path, self.data)

    @property
    def reserve(self) -> Path:
        """Disk space held back for the final write, so a run that filled the disk
        can still say how it ended."""
        return self.path.with_name(f"{RESERVE_PREFIX}{self.path.stem}")

    def hold_reserve(self) -> None:
        """Take the reserve; on a disk already too full this raises OSError before
        anything is spent."""
        reserve_space(
            self.reserve, max(RESERVE_MIN_BYTES, 4 * self.path.stat().st_size)
        )

    def finish(self, outcome: Outcome, **results: Any) -> None:
        self.reserve.unlink(missing_ok=True)
        self.data.update(outcome=outcome, ended_at=_now(), **results)
        self.write()


def study_record(study: Study) -> dict[str, Any]:
    """What every manifest of a study's runs says of the study itself: its config,
    datasets, templates, replications and condition grid."""
    return {
        "study": study.config.study,
        "config_path": str(study.loaded.path),
        "config_hash": study.loaded.text_hash,
        "datasets": [vars(d) for d in study.datasets],
        "templates": _templates([*study.prompts.values(), *study.rubrics.values()]),
        "replications": study.replications,
        "grid": {
            "generate": [_generate_entry(c) for c in study.generate],
            "grade": [_grade_entry(c) for c in study.grade],
        },
    }


@dataclass(frozen=True)
class Started:
    """What a run that starts now was asked to do: its stage and id, the conditions
    it selected, its options and the estimate it was approved on."""

    stage: str
    run_id: str
    generate: list[GenerateCondition]
    grade: list[GradeCondition]
    options: dict[str, Any]
    estimate: dict[str, Any] | None = None


def start_manifest(study: Study, run: Started) -> Manifest:
    return begin_manifest(study_record(study), study.paths.manifests, run)


def begin_manifest(record: dict[str, Any], manifests: Path, run: Started) -> Manifest:
    """Write the manifest of a run that starts now, in `manifests`; `record` is the
    study's (`study_record`)."""
    data = {
        "run_id": run.run_id,
        "stage": run.stage,
        "command": command_line(),
        "cwd": os.getcwd(),
        "started_at": _now(),
        "ended_at": None,
        "outcome": "running",
        "study": record["study"],
        "config_path": record["config_path"],
        "config_hash": record["config_hash"],
        "options": run.options,
        "datasets": record["datasets"],
        "templates": record["templates"],
        **_what_runs(record, run.generate, run.grade),
        "estimate": run.estimate,
    }
    manifest = Manifest(path=manifests / f"{run.run_id}.json", data=data)
    manifest.write()
    return manifest


def _what_runs(
    record: dict[str, Any],
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
) -> dict[str, Any]:
    """The manifest's models, seeds, replications, package versions, the study's grid
    and the conditions this run selected from it."""
    return {
        "models": sorted(
            {c.model for c in generate}
            | {c.grader_model for c in grade if c.grader_model}
        ),
        "seeds": sorted({c.params["seed"] for c in generate if "seed" in c.params}),
        "replications": record["replications"],
        "versions": package_versions(),
        "grid": record["grid"],
        "selected": {
            "generate": [c.id for c in generate],
            "grade": [c.id for c in grade],
        },
    }


def ended_record(conditions: list[ConditionRun]) -> dict[str, Any]:
    """What a finished run's manifest says of its conditions: each one's counts, the
    spend, and the distinct sampling configs inspect actually sent."""
    counts = {
        c.condition_id: {
            "planned": c.planned,
            "rows": c.rows,
            "errors": c.errors,
            "cache_hits": c.cache_hits,
            "usd": c.usd,
            "failure": c.failure,
        }
        for c in conditions
    }
    effective = {
        c.condition_id: sorted(c.effective_configs)
        for c in conditions
        if c.effective_configs
    }
    return {
        "per_condition": counts,
        "spend_usd": total_usd(c.usd for c in conditions),
        "effective_params": effective,
    }
