"""The study config: strict pydantic models of the YAML, and the loaded config that
resolves its paths (`config_load.load_config` reads one)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import (
    ConfigDict,
    Field,
    create_model,
    field_validator,
    model_validator,
)

from ..paths import StudyPaths, is_remote, work_dir
from ..records import REASONING_EFFORTS, SAMPLING_PARAMS, SamplingParam
from .agent_config import (  # noqa: F401 - re-exported: the config's names
    AGENT_SOLVERS,
    BUILTIN_SOLVERS,
    DEFAULT_MESSAGE_LIMIT,
    MAX_TIMEOUT_S,
    AgentEntry,
    ToolEntry,
)
from .agent_config import (
    Strict as _Strict,
)
from .analysis import Analysis

MAX_REPLICATIONS = 10_000
"""More is a typo (`1e9` planned 4·10⁹ cells and a 30 GiB allocation), not a study."""
MAX_DRAWS = 100
"""A judge's draws per answer; more is a typo, as with replications."""
STUDY_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
ReasoningEffort = Literal[REASONING_EFFORTS]  # type: ignore[valid-type]


class DatasetSpec(_Strict):
    id: str = Field(min_length=1)
    """local: a .jsonl/.json/.csv/.parquet path relative to the config dir; hf:
    `org/name` on the Hub."""
    split: str | None = None
    """hf only: the split to load (default `test`)."""
    name: str | None = None
    """hf only: the dataset config name."""
    revision: str | None = None
    """hf only: a branch, tag or commit; resolved to a commit and pinned in
    dataset_locks.json."""
    limit: int | None = Field(default=None, ge=0)
    """Keep only the first N rows of this dataset."""


class Mapping(_Strict):
    input: str = Field(min_length=1)
    """Column holding the problem text (required, non-blank in every row)."""
    target: str | None = None
    """Column holding the reference answer, or a list of acceptable answers; "" when
    not mapped."""
    choices: str | None = None
    """Column holding the item's options as a list of texts (a JSON list in CSV), for
    choice scorers."""
    id: str | None = None
    """A column, or a template like `{dataset}:{row}` over columns, `{row}` and
    `{dataset}`; default `{row}`."""
    grading_scheme: str | None = None
    """Column holding rubric/points text; non-strings are stored as canonical JSON."""
    metadata: list[str] = []
    """Columns copied into each item's metadata and available to templates."""


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


class Benchmark(_Strict):
    adapter: Literal["local", "hf", "inspect"] = "local"
    """Where the datasets come from: local files, the Hugging Face Hub
    (`pip install 'itemeval[hf]'`), or an inspect task's dataset (`task:`)."""
    datasets: list[DatasetSpec] = Field(min_length=1)
    """One or more datasets; item ids must be unique across all of them."""
    mapping: Mapping
    """How dataset columns become items."""
    task: str | None = None
    """inspect only: `module.path:function`, `file.py@function` or a registry name."""
    task_args: dict[str, Any] = {}
    """inspect only: the task's arguments."""

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


def _sampling_field(param: SamplingParam) -> tuple[Any, Any]:
    kind: Any = {"float": float, "int": int, "bool": bool}.get(param.type) or Literal[
        param.choices
    ]  # type: ignore[valid-type]
    return Optional[kind], Field(default=None, description=param.doc, **param.bounds)


SamplingParams = create_model(
    "SamplingParams",
    __base__=_Strict,
    __doc__="The sampling settings, one field per entry of SAMPLING_PARAMS.",
    **{param.name: _sampling_field(param) for param in SAMPLING_PARAMS},
)


class CallLimits(_Strict):
    max_retries: int = Field(default=3, ge=0)
    """inspect's retries per call for 429/5xx/timeouts (inspect alone would retry
    forever)."""
    timeout: float = Field(default=600.0, gt=0, le=MAX_TIMEOUT_S)
    """Seconds a call may take in total, retries included, before it becomes an error
    row."""
    attempt_timeout: float = Field(default=180.0, gt=0, le=MAX_TIMEOUT_S)
    """Seconds one attempt may take before it is abandoned and retried."""
    max_connections: int | None = Field(default=None, ge=1)
    """Concurrent calls per model (inspect's default when unset)."""

    def inspect_limits(self) -> dict[str, Any]:
        """These limits as GenerateConfig fields; inspect takes whole seconds, so
        timeouts round up."""
        limits = {
            "max_retries": self.max_retries,
            "timeout": math.ceil(self.timeout),
            "attempt_timeout": math.ceil(self.attempt_timeout),
            "max_connections": self.max_connections,
        }
        return {key: value for key, value in limits.items() if value is not None}


class Solvers(SamplingParams, CallLimits):  # type: ignore[misc,valid-type]
    models: list[str] = Field(min_length=1)
    """inspect model ids, e.g. `openai/gpt-4.1-mini` or the offline
    `itemeval/arith-good`."""
    on_empty: Literal["skip", "rerun", "grade"] = "skip"
    """A blank completion without error: not graded (skip), re-generated next run
    (rerun), or graded."""
    on_input_change: Literal["rerun", "keep"] = "rerun"
    """A stored answer whose item (or an inspect sample's turns) now renders to
    another input than it was written for: pending again and re-generated (rerun),
    or kept and graded, flagged as answering an earlier version (keep)."""


class ModelConfigFacet(SamplingParams):  # type: ignore[misc,valid-type]
    name: str = Field(min_length=1)
    """Names this model config in ids and slugs; its params override `solvers.*`."""


class ScorerEntry(_Strict):
    name: str
    """A scorer: itemeval's (numeric, multiple_choice, exact_match, risk,
    numeric_risk), inspect-ai's by name (match, includes, pattern, answer, choice,
    f1, exact, multi_scorer, model_graded_qa, model_graded_fact), or a user's inspect
    @scorer as `module.path:function`."""
    params: dict[str, Any] = {}
    """Scorer parameters, validated at load time against the scorer's own signature."""
    reference: str | None = None
    """An item column (in `benchmark.mapping.metadata`) compared with instead of the
    target; part of the grade condition's identity."""


class MetricEntry(_Strict):
    name: str
    """A built-in metric (accuracy, f1_macro, f1_micro, precision_macro, recall_macro,
    balanced_accuracy, pearson, spearman, kendall_tau, corpus_bleu, chrf) or a user
    metric `module.path:function`."""
    params: dict[str, Any] = {}
    """The metric's settings (corpus_bleu, chrf: sacrebleu's; a user metric: its
    keyword arguments)."""
    scorer: str | None = None
    """The `facets.scorer` entry (its name) whose answers the metric reads; default:
    every verifiable grade condition that can feed it."""


class Facets(_Strict):
    prompt: list[str] = Field(min_length=1)
    """Prompt templates: bare NAME = `<prompts_dir>/NAME.md`, `builtin:NAME` =
    packaged."""
    model_config_: list[ModelConfigFacet] = Field(
        default_factory=lambda: [ModelConfigFacet(name="default")],
        alias="model_config",
        min_length=1,
    )
    """Named sampling settings crossed with every model and prompt."""
    grader: list[str] = []
    """Names in `graders:`, or a model id containing '/'."""
    rubric: list[str] = Field(
        default_factory=lambda: ["builtin:standard"], min_length=1
    )
    """Rubric templates for the judges, resolved like prompts from `rubrics_dir`."""
    scorer: Union[None, str, list[Union[str, ScorerEntry]]] = None
    """Verifiable scorers; each entry is its own grade condition."""
    replications: int = Field(default=1, ge=1, le=MAX_REPLICATIONS)
    """How many times every (generate condition × item) is run; stored as `epoch`."""
    solver: list[str] = Field(default_factory=lambda: ["plain"], min_length=1)
    """How each answer is produced: `plain` (one call), `task` (the inspect task's
    own solver) or a name in `agents:`."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        allow_inf_nan=False,
    )


class Grader(CallLimits):
    model: str = Field(min_length=1)
    """The judge's inspect model id."""
    temperature: float | None = Field(default=None, ge=0)
    """The judge's sampling temperature (default 0); part of the id when set to
    another value."""
    draws: int = Field(default=1, ge=1, le=MAX_DRAWS)
    """How many times the judge grades each stored answer, each draw an independent
    sample (its own cache scope and seed); `results` reduces them per answer. Not
    part of the id: raising it asks only the new draws."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Most tokens a judge reply may have; part of the grade condition id."""
    reasoning_effort: ReasoningEffort | None = None
    """Reasoning effort for reasoning judges; part of the id."""
    reasoning_tokens: int | None = Field(default=None, ge=1)
    """Reasoning token budget for reasoning judges; part of the id."""
    kind: Literal["pointwise", "pairwise"] = "pointwise"
    """`pairwise`: the judge says which of two stored answers is better (README
    "Pairwise judges")."""
    baseline: str | None = None
    """pairwise: a generate condition (slug or id) every other one is compared with;
    default all pairs."""
    orders: Literal[1, 2] = 2
    """pairwise: 2 asks each pair in both orders; 1 once, in an order fixed by the
    pair's key."""
    rubric: str | None = None
    """pairwise: its rubric (default `builtin:pairwise`), with {answer_a} and
    {answer_b}."""

    @model_validator(mode="after")
    def _pairwise_keys(self) -> Grader:
        """baseline, orders and rubric mean something only to a pairwise judge."""
        if self.kind != "pairwise":
            named = [
                k
                for k in ("baseline", "orders", "rubric")
                if k in self.model_fields_set
            ]
            if named:
                raise ValueError(f"{', '.join(named)} need kind: pairwise")
        elif self.draws != 1:
            # a verdict's key has no draw: the pairwise store would hold one of them
            raise ValueError("draws need kind: pointwise")
        return self


class Budget(_Strict):
    confirm_above_usd: float | None = Field(default=5.0, ge=0)
    """Above this projected spend, generate/grade ask (or need --yes)."""
    max_usd: float | None = Field(default=None, gt=0)
    """Hard cap on one run's spend; never exceeded."""
    batch: Union[bool, int] = False
    """Passed to inspect's batch mode where the provider has one: true, or the
    requests per batch (1 or more; `false` is off, not 0)."""
    pricing_path: str | None = None
    """A pricing JSON overriding the packaged table, relative to the config dir."""

    @field_validator("batch", mode="before")
    @classmethod
    def _batch_size(cls, value: Any) -> Any:
        # strict: "yes" is no boolean, and 0 or -3 no size (0 would silently mean
        # live calls at the full price, -3 a batch per request)
        if isinstance(value, bool) or (isinstance(value, int) and value >= 1):
            return value
        raise ValueError(
            "expected true, false or the requests per batch (a whole number, 1 or more)"
        )


class StudyConfig(_Strict):
    study: str = Field(pattern=STUDY_NAME_PATTERN)
    """The study's name; outputs go to `<output_dir>/<study>/`, output_dir relative
    to the config file."""
    output_dir: str = "studies"
    """Relative to the working dir (or -C/--base-dir)."""
    prompts_dir: str = "prompts"
    """Relative to the config file's dir."""
    rubrics_dir: str = "rubrics"
    """Relative to the config file's dir."""
    cache: Union[bool, Literal["study"]] = True
    """inspect's local response cache, both stages: true (shared by every study on the
    machine), study (entries of this study's own) or false."""
    benchmark: Benchmark
    """The datasets and how their rows become items."""
    solvers: Solvers
    """Solver models and their default sampling params."""
    facets: Facets
    """The experimental factors crossed into conditions."""
    graders: dict[str, Grader] = {}
    """Named LLM judges, used by facets.grader or `grade --grader NAME`."""
    agents: dict[str, AgentEntry] = {}
    """Named solvers (agents with tools, solver chains), used by facets.solver."""
    sandbox: str | None = None
    """The sandbox agents' tools run in (`local`; `docker` where installed); an
    agents: entry may set its own."""
    crossing: Literal["full"] = "full"
    """How facets are crossed; `full` is the only crossing."""
    budget: Budget = Budget()
    """Spend gate, hard cap, batch mode and prices."""
    metrics: list[Union[str, MetricEntry]] = []
    """Global metrics `results` computes per cell with an item-bootstrap CI."""
    families: dict[str, str] = {}
    """Model id -> model family, for a judge's self-preference (`results --judges`);
    a model not named here is of its provider's family (`openai/gpt-4o`: openai).
    Part of no id."""
    analysis: Optional[Analysis] = None
    """The declared analysis `itemeval preregister` freezes (study/analysis.py); part
    of no id."""


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config with every path it names resolved."""

    config: StudyConfig
    path: Path
    text_hash: str
    base_dir: Path
    reads: str = "table"
    """How a study on object storage is read (StudyPaths.reads): the read-only
    commands use "snapshot"."""

    @property
    def config_dir(self) -> Path:
        return self.path.parent

    @property
    def study(self) -> StudyPaths:
        if is_remote(self.config.output_dir):
            uri = f"{self.config.output_dir.rstrip('/')}/{self.config.study}"
            return StudyPaths(work_dir(uri), remote=uri, reads=self.reads)
        return StudyPaths(
            (self.base_dir / self.config.output_dir / self.config.study).resolve()
        )

    def input_path(self, relative: str) -> Path:
        """Inputs (datasets, templates, pricing) are relative to the config file."""
        return (self.config_dir / relative).resolve()
