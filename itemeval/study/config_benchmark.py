"""The study config's `benchmark:` section: where the items come from and how a
dataset's columns become items."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .agent_config import Strict


class DatasetSpec(Strict):
    id: str = Field(
        min_length=1,
        description=(
            "local: a .jsonl/.json/.csv/.parquet path relative to the "
            "config dir; hf: `org/name` on the Hub."
        ),
    )
    split: str | None = Field(
        default=None,
        description="hf only: the split to load (default `test`).",
    )
    name: str | None = Field(
        default=None,
        description="hf only: the dataset config name.",
    )
    revision: str | None = Field(
        default=None,
        description=(
            "hf only: a branch, tag or commit; resolved to a commit and "
            "pinned in dataset_locks.json."
        ),
    )
    limit: int | None = Field(
        default=None,
        ge=0,
        description="Keep only the first N rows of this dataset.",
    )


class Mapping(Strict):
    input: str = Field(
        min_length=1,
        description=(
            "Column holding the problem text (required, non-blank in every row)."
        ),
    )
    target: str | None = Field(
        default=None,
        description=(
            "Column holding the reference answer, or a list of acceptable "
            'answers; "" when not mapped.'
        ),
    )
    choices: str | None = Field(
        default=None,
        description=(
            "Column holding the item's options as a list of texts (a JSON "
            "list in CSV), for choice scorers."
        ),
    )
    id: str | None = Field(
        default=None,
        description=(
            "A column, or a template like `{dataset}:{row}` over columns, "
            "`{row}` and `{dataset}`; default `{row}`."
        ),
    )
    grading_scheme: str | None = Field(
        default=None,
        description=(
            "Column holding rubric/points text; non-strings are stored as "
            "canonical JSON."
        ),
    )
    metadata: list[str] = Field(
        default=[],
        description=(
            "Columns copied into each item's metadata and available to templates."
        ),
    )


def _task_defaults(benchmark: dict[str, Any]) -> dict[str, Any]:
    """`benchmark:` of an inspect task: the task as its one dataset, a default mapping.

    Raw YAML in, raw YAML out (pydantic validates it next): every error names its key.
    """
    task = benchmark.get("task")
    if not isinstance(task, str) or not task:
        raise ValueError(
            "adapter 'inspect' needs `task:` (module:function, file.py@fn or a name)"
        )
    if "datasets" in benchmark:
        raise ValueError(
            "adapter 'inspect' takes its dataset from `task:`; drop `datasets:`"
        )
    limit = benchmark.get("limit")
    rest = {k: v for k, v in benchmark.items() if k != "limit"}
    return {
        "mapping": {"input": "input", "target": "target", "id": "id"},
        **rest,
        "datasets": [{"id": task, "limit": limit}],
    }


class Benchmark(Strict):
    adapter: Literal["local", "hf", "inspect"] = Field(
        default="local",
        description=(
            "Where the datasets come from: local files, the Hugging Face "
            "Hub (`pip install 'itemeval[hf]'`), or an inspect task's "
            "dataset (`task:`)."
        ),
    )
    datasets: list[DatasetSpec] = Field(
        min_length=1,
        description=(
            "One or more datasets; item ids must be unique across all of them."
        ),
    )
    mapping: Mapping = Field(
        description="How dataset columns become items.",
    )
    task: str | None = Field(
        default=None,
        description=(
            "inspect only: `module.path:function`, `file.py@function` or "
            "a registry name."
        ),
    )
    task_args: dict[str, Any] = Field(
        default={},
        description="inspect only: the task's arguments.",
    )

    @model_validator(mode="before")
    @classmethod
    def _inspect_defaults(cls, data: Any) -> Any:
        """An inspect task is the one dataset; its samples' fields the default
        mapping."""
        if isinstance(data, dict) and data.get("adapter") == "inspect":
            return _task_defaults(data)
        if isinstance(data, dict) and ("task" in data or "task_args" in data):
            raise ValueError("`task:` and `task_args:` need `adapter: inspect`")
        return data
