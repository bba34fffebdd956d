"""What the engine lends the layers below it, registered as this module loads (the
`itemeval.plugins` entry point, itemeval/plugins.py): inspect-ai's scorer families to
the scorer registry, and an inspect task as a dataset to the study's adapters.

Each entry imports its engine module when first called, so registering loads no
inspect-ai: a study that names none of them never does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..scorers.base import ScorerSpec
from ..scorers.registry import Families, Rows, register_families
from ..study.config import DatasetSpec, LoadedConfig
from ..study.sources import Adapter, RawDataset, register_adapter


def _user(name: str, config_dir: Path) -> ScorerSpec:
    from . import scorers

    return scorers.spec(name, config_dir)


def _model_graded(name: str) -> ScorerSpec:
    from . import graders

    return graders.model_graded_spec(name)


def _task_scorer() -> ScorerSpec:
    from . import dataset

    return dataset.task_scorer_spec()


def _task_scorer_params(
    params: dict[str, Any], config: Any, config_dir: Path | None
) -> dict[str, Any]:
    from . import dataset

    return dataset.task_scorer_params(params, config, config_dir)


def _check_reducer(scorer: str, reducer: str) -> None:
    from . import scorers

    scorers.check_reducer(scorer, reducer)


def _score(
    name: str,
    params: dict[str, Any],
    rows: Rows,
    config_dir: Path,
    cache: dict[str, Any] | None,
) -> list:
    from . import scorers

    return scorers.score_entry(name, params, rows, config_dir, cache)


def _load_task(
    spec: DatasetSpec, loaded: LoadedConfig, pinned: str | None
) -> RawDataset:
    from . import dataset

    return dataset.load_inspect(spec, loaded, pinned)


def _sample_fields(items: list, raw: RawDataset) -> list:
    from . import dataset

    return dataset.with_sample_fields(items, raw)


register_families(
    Families(
        user=_user,
        model_graded=_model_graded,
        task_scorer=_task_scorer,
        task_scorer_params=_task_scorer_params,
        check_reducer=_check_reducer,
        score=_score,
    )
)
register_adapter("inspect", Adapter(load=_load_task, finish=_sample_fields))
