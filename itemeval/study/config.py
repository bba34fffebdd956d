"""The study config: strict pydantic models of the YAML, and the loaded config that
resolves its paths (`config_load.load_config` reads one)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import (
    ConfigDict,
    Field,
    field_validator,
)

from ..paths import StudyPaths, is_remote, work_dir
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

# re-exported: their home was here, and callers import them from here
from .config_benchmark import Benchmark, DatasetSpec, Mapping  # noqa: F401
from .config_calls import CallLimits, SamplingParams  # noqa: F401
from .config_judges import MAX_DRAWS, Grader, ReasoningEffort  # noqa: F401

MAX_REPLICATIONS = 10_000
"""More is a typo (`1e9` planned 4·10⁹ cells and a 30 GiB allocation), not a study."""
STUDY_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class Solvers(SamplingParams, CallLimits):  # type: ignore[misc,valid-type]
    models: list[str] = Field(
        min_length=1,
        description=(
            "inspect model ids, e.g. `openai/gpt-4.1-mini` or the offline "
            "`itemeval/arith-good`."
        ),
    )
    on_empty: Literal["skip", "rerun", "grade"] = Field(
        default="skip",
        description=(
            "A blank completion without error: not graded (skip), "
            "re-generated next run (rerun), or graded."
        ),
    )
    on_input_change: Literal["rerun", "keep"] = Field(
        default="rerun",
        description=(
            "A stored answer whose item (or an inspect sample's turns) "
            "now renders to another input than it was written for: "
            "pending again and re-generated (rerun), or kept and graded, "
            "flagged as answering an earlier version (keep)."
        ),
    )


class ModelConfigFacet(SamplingParams):  # type: ignore[misc,valid-type]
    name: str = Field(
        min_length=1,
        description=(
            "Names this model config in ids and slugs; its params override `solvers.*`."
        ),
    )


class ScorerEntry(_Strict):
    name: str = Field(
        description=(
            "A scorer: itemeval's (numeric, multiple_choice, exact_match, "
            "risk, numeric_risk), inspect-ai's by name (match, includes, "
            "pattern, answer, choice, f1, exact, multi_scorer, "
            "model_graded_qa, model_graded_fact), or a user's inspect "
            "@scorer as `module.path:function`."
        ),
    )
    params: dict[str, Any] = Field(
        default={},
        description=(
            "Scorer parameters, validated at load time against the "
            "scorer's own signature."
        ),
    )
    reference: str | None = Field(
        default=None,
        description=(
            "An item column (in `benchmark.mapping.metadata`) compared "
            "with instead of the target; part of the grade condition's "
            "identity."
        ),
    )


class MetricEntry(_Strict):
    name: str = Field(
        description=(
            "A built-in metric (accuracy, f1_macro, f1_micro, "
            "precision_macro, recall_macro, balanced_accuracy, pearson, "
            "spearman, kendall_tau, corpus_bleu, chrf) or a user metric "
            "`module.path:function`."
        ),
    )
    params: dict[str, Any] = Field(
        default={},
        description=(
            "The metric's settings (corpus_bleu, chrf: sacrebleu's; a "
            "user metric: its keyword arguments)."
        ),
    )
    scorer: str | None = Field(
        default=None,
        description=(
            "The `facets.scorer` entry (its name) whose answers the "
            "metric reads; default: every verifiable grade condition that "
            "can feed it."
        ),
    )


class Facets(_Strict):
    prompt: list[str] = Field(
        min_length=1,
        description=(
            "Prompt templates: bare NAME = `<prompts_dir>/NAME.md`, "
            "`builtin:NAME` = packaged."
        ),
    )
    model_config_: list[ModelConfigFacet] = Field(
        default_factory=lambda: [ModelConfigFacet(name="default")],
        alias="model_config",
        min_length=1,
        description="Named sampling settings crossed with every model and prompt.",
    )
    grader: list[str] = Field(
        default=[],
        description="Names in `graders:`, or a model id containing '/'.",
    )
    rubric: list[str] = Field(
        default_factory=lambda: ["builtin:standard"],
        min_length=1,
        description=(
            "Rubric templates for the judges, resolved like prompts from `rubrics_dir`."
        ),
    )
    scorer: Union[None, str, list[Union[str, ScorerEntry]]] = Field(
        default=None,
        description="Verifiable scorers; each entry is its own grade condition.",
    )
    replications: int = Field(
        default=1,
        ge=1,
        le=MAX_REPLICATIONS,
        description=(
            "How many times every (generate condition × item) is run; "
            "stored as `epoch`."
        ),
    )
    solver: list[str] = Field(
        default_factory=lambda: ["plain"],
        min_length=1,
        description=(
            "How each answer is produced: `plain` (one call), `task` (the "
            "inspect task's own solver) or a name in `agents:`."
        ),
    )

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        allow_inf_nan=False,
    )


class Budget(_Strict):
    confirm_above_usd: float | None = Field(
        default=5.0,
        ge=0,
        description=("Above this projected spend, generate/grade ask (or need --yes)."),
    )
    max_usd: float | None = Field(
        default=None,
        gt=0,
        description="Hard cap on one run's spend; never exceeded.",
    )
    batch: Union[bool, int] = Field(
        default=False,
        description=(
            "Passed to inspect's batch mode where the provider has one: "
            "true, or the requests per batch (1 or more; `false` is off, "
            "not 0)."
        ),
    )
    pricing_path: str | None = Field(
        default=None,
        description=(
            "A pricing JSON overriding the packaged table, relative to the config dir."
        ),
    )

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
    study: str = Field(
        pattern=STUDY_NAME_PATTERN,
        description=(
            "The study's name; outputs go to `<output_dir>/<study>/`, "
            "output_dir relative to the config file."
        ),
    )
    output_dir: str = Field(
        default="studies",
        description="Relative to the working dir (or -C/--base-dir).",
    )
    prompts_dir: str = Field(
        default="prompts",
        description="Relative to the config file's dir.",
    )
    rubrics_dir: str = Field(
        default="rubrics",
        description="Relative to the config file's dir.",
    )
    cache: Union[bool, Literal["study"]] = Field(
        default=True,
        description=(
            "inspect's local response cache, both stages: true (shared by "
            "every study on the machine), study (entries of this study's "
            "own) or false."
        ),
    )
    benchmark: Benchmark = Field(
        description="The datasets and how their rows become items.",
    )
    solvers: Solvers = Field(
        description="Solver models and their default sampling params.",
    )
    facets: Facets = Field(
        description="The experimental factors crossed into conditions.",
    )
    graders: dict[str, Grader] = Field(
        default={},
        description=(
            "Named LLM judges, used by facets.grader or `grade --grader NAME`."
        ),
    )
    agents: dict[str, AgentEntry] = Field(
        default={},
        description=(
            "Named solvers (agents with tools, solver chains), used by facets.solver."
        ),
    )
    sandbox: str | None = Field(
        default=None,
        description=(
            "The sandbox agents' tools run in (`local`; `docker` where "
            "installed); an agents: entry may set its own."
        ),
    )
    crossing: Literal["full"] = Field(
        default="full",
        description="How facets are crossed; `full` is the only crossing.",
    )
    budget: Budget = Field(
        default=Budget(),
        description="Spend gate, hard cap, batch mode and prices.",
    )
    metrics: list[Union[str, MetricEntry]] = Field(
        default=[],
        description=(
            "Global metrics `results` computes per cell with an item-bootstrap CI."
        ),
    )
    families: dict[str, str] = Field(
        default={},
        description=(
            "Model id -> model family, for a judge's self-preference "
            "(`results --judges`); a model not named here is of its "
            "provider's family (`openai/gpt-4o`: openai). Part of no id."
        ),
    )
    analysis: Optional[Analysis] = Field(
        default=None,
        description=(
            "The declared analysis `itemeval preregister` freezes "
            "(study/analysis.py); part of no id."
        ),
    )


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
