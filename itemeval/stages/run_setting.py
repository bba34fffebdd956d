"""What a run's lifecycle reads of its study, resolved once at the command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..paths import StudyPaths
from ..records import Item
from ..study.load import Study
from .manifest import study_record


@dataclass(frozen=True)
class RunSetting:
    """A study as one run sees it: where it writes, what it may spend, the dataset
    revisions it pins, the items it stores and what its manifest records."""

    name: str
    """The study's name (`study:`)."""
    paths: StudyPaths
    pricing_path: Path | None
    max_usd: float | None
    """`budget.max_usd`: the cap when the run is given none."""
    confirm_above_usd: float | None
    batch: bool | int
    """`budget.batch`."""
    pins: dict[str, tuple[str, str]]
    """Dataset key -> (adapter, revision) the run pins in dataset_locks.json."""
    items: list[Item]
    """The study's items (the items store holds them)."""
    record: dict[str, Any]
    """The study as its manifests record it (`manifest.study_record`)."""


def run_setting(study: Study) -> RunSetting:
    budget = study.config.budget
    return RunSetting(
        name=study.config.study,
        paths=study.paths,
        pricing_path=study.pricing_path,
        max_usd=budget.max_usd,
        confirm_above_usd=budget.confirm_above_usd,
        batch=budget.batch,
        pins={d.key: (d.adapter, d.revision) for d in study.datasets},
        items=study.items,
        record=study_record(study),
    )
