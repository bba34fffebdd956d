"""The nouns of itemeval: items, conditions, the cells that run and the key columns
of every store. Read this first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

from .errors import ConfigError

SOLUTION_KEY = ("condition_id", "item_id", "epoch")
GRADE_KEY = ("grade_condition_id", "gen_condition_id", "item_id", "epoch", "draw")
"""A grade: one draw (1..`graders.NAME.draws`) of a grade condition on one answer."""
PAIRWISE_KEY = (
    "grade_condition_id",
    "condition_a",
    "condition_b",
    "item_id",
    "epoch",
    "order",
)
"""A pairwise verdict: condition_a < condition_b by id; order 1 shows A first, 2
shows B first."""
ITEM_KEY = ("item_id",)

TRUNCATING_STOP_REASONS = frozenset({"max_tokens", "model_length"})
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class SamplingParam:
    """One sampling setting of a generate condition: part of its id, a config key and
    a solutions column."""

    name: str
    """The key under `solvers:` / `facets.model_config`, and inspect's GenerateConfig
    field."""
    column: str
    """The solutions column holding the requested value (`effective_<column>`: what
    inspect sent)."""
    type: Literal["float", "int", "str", "bool"]
    doc: str
    bounds: dict[str, float] = field(default_factory=dict)
    """Pydantic bounds (ge, gt, le) a configured value must respect."""
    choices: tuple[str, ...] = ()
    """The allowed values of a string setting."""


SAMPLING_PARAMS: tuple[SamplingParam, ...] = (
    SamplingParam(
        "temperature",
        "temperature",
        "float",
        "Sampling temperature; part of the condition id.",
        bounds={"ge": 0},
    ),
    SamplingParam(
        "top_p",
        "top_p",
        "float",
        "Nucleus sampling; part of the condition id.",
        bounds={"gt": 0, "le": 1},
    ),
    SamplingParam(
        "max_tokens",
        "max_tokens",
        "int",
        "Most tokens a reply may have; also the ceiling the estimate uses.",
        bounds={"ge": 1},
    ),
    SamplingParam(
        "seed", "seed", "int", "Sampling seed, for providers that honour one."
    ),
    SamplingParam(
        "reasoning_effort",
        "reasoning_effort",
        "str",
        "Reasoning effort for reasoning models.",
        choices=REASONING_EFFORTS,
    ),
    # The usage column `reasoning_tokens` counts tokens spent, so the requested budget
    # needs its own name.
    SamplingParam(
        "reasoning_tokens",
        "reasoning_budget",
        "int",
        "Reasoning token budget for reasoning models.",
        bounds={"ge": 1},
    ),
    # The solutions column `logprobs` holds the logprobs themselves, so the request is
    # `logprobs_requested`.
    SamplingParam(
        "logprobs",
        "logprobs_requested",
        "bool",
        "Ask the provider for the generated tokens' logprobs (stored in the "
        "`logprobs` column).",
    ),
    SamplingParam(
        "top_logprobs",
        "top_logprobs",
        "int",
        "How many most likely alternatives to return per token (1-20); needs "
        "logprobs: true.",
        bounds={"ge": 1, "le": 20},
    ),
)
"""Every sampling setting, declared once: the config, the condition ids, the store
schema and the export read it."""

SAMPLING_PARAM_NAMES = tuple(param.name for param in SAMPLING_PARAMS)


@dataclass(frozen=True)
class Item:
    """One problem, as mapped from a dataset row (README "Concepts")."""

    id: str
    input: str
    target: str
    """The reference answer as templates render it: the one target, or a JSON list of
    several."""
    grading_scheme: str | None
    metadata: dict[str, Any]
    dataset_id: str
    dataset_revision: str
    row: int
    targets: tuple[str, ...] = ()
    """Every acceptable answer (one for a plain target; none when the target is "")."""
    choices: tuple[str, ...] = ()
    """The item's options, in order (option A first), when mapping.choices is set."""


@dataclass(frozen=True)
class Template:
    """A prompt or rubric: its reference as written in the config, its text and
    content hash."""

    ref: str  # "minimal" (local file) or "builtin:standard"
    kind: Literal["prompt", "rubric"]
    text: str
    hash: str
    source: Literal["local", "builtin"]
    path: str


@dataclass(frozen=True)
class AgentSpec:
    """How a non-plain condition produces its answer (README "Agents"): a solver with
    its tools and limits, everything that defines it part of the condition id."""

    name: str
    """The `facets.solver` level: an `agents:` key, or `task`."""
    solver: str
    """react, generate, chain_of_thought, self_critique, task or module:function."""
    args: dict[str, Any] = field(default_factory=dict)
    tools: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(name or module:function, args) per tool, in order."""
    limits: dict[str, float | int] = field(default_factory=dict)
    """inspect's sample limits: message_limit, token_limit, time_limit,
    working_limit."""
    sandbox: str | None = None
    source_hash: str | None = None
    """A hash of the user modules' source (solver and tools), or of the task's
    version; None when everything is inspect's own."""
    config_dir: str | None = None
    """Where user solvers and tools (and the task) are imported from; not part of
    the id."""
    task: tuple[str, dict[str, Any]] | None = None
    """`solver: task`: the inspect task (benchmark.task and task_args) whose solver
    runs."""

    @property
    def payload(self) -> dict[str, Any]:
        """What the condition id covers."""
        return {
            "name": self.name,
            "solver": self.solver,
            "args": self.args,
            "tools": [[name, args] for name, args in self.tools],
            "limits": self.limits,
            "sandbox": self.sandbox,
            "source_hash": self.source_hash,
        }

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(name.rpartition(":")[2] for name, _ in self.tools)


PLAIN_SOLVER = "plain"


@dataclass(frozen=True)
class GenerateCondition:
    """One solver model × prompt × model config (× solver), with its content-hashed
    id."""

    id: str
    slug: str
    model: str
    prompt: Template
    model_config_name: str
    params: dict[str, Any]  # resolved, non-null sampling params
    payload: dict[str, Any]
    kind: Literal["generated", "imported"] = "generated"
    """`imported`: answers read from inspect logs (`itemeval import`); never
    generated."""
    agent: AgentSpec | None = None
    """How the answer is produced when not by one plain call."""

    @property
    def solver(self) -> str:
        """The `facets.solver` level: `plain`, `task` or an `agents:` name."""
        return self.agent.name if self.agent is not None else PLAIN_SOLVER


GradeKind = Literal[
    "judge", "verifiable", "model_graded", "pairwise", "cascade", "human"
]
"""What grades a solution (the stored `grade_kind` column); `human` is one rater's
labels (results/labels.py)."""

PANEL_SEPARATOR = ","
"""A panel's models in `grader_model` (the stored column): joined by this, read back
as a tuple by GradeCondition.models."""


def panel(models: str | list[str] | tuple[str, ...]) -> str | None:
    """`grader_model` of a grader model or a panel of them; None for none."""
    return PANEL_SEPARATOR.join([models] if isinstance(models, str) else models) or None


@dataclass(frozen=True)
class GradeCondition:
    """A judge (grader × rubric), a verifiable scorer, a model-graded inspect
    scorer or a cascade (scorers, then a judge) over stored solutions."""

    id: str
    slug: str
    kind: GradeKind
    payload: dict[str, Any]
    # judge conditions
    grader_name: str | None = None
    grader_model: str | None = None
    rubric: Template | None = None
    judge_params: dict[str, Any] = field(default_factory=dict)
    # verifiable conditions
    scorer: str | None = None
    scorer_params: dict[str, Any] = field(default_factory=dict)
    reference: str | None = None
    """The item column a verifiable entry compares with instead of the target."""
    # pairwise conditions: which pairs, asked in how many orders (not part of the id)
    baseline: str | None = None
    orders: int = 2
    draws: int = 1
    """How many times a judge grades each answer (`graders.NAME.draws`): samples of
    one judge, like replications of a model, so not part of the id."""
    # cascade conditions: the verifiable stages run before the judge (study/cascade.py)
    stages: tuple[GradeCondition, ...] = ()

    @property
    def models(self) -> tuple[str, ...]:
        """The models it calls: a judge's grader model, every model of a model-graded
        scorer's panel; none for a verifiable scorer."""
        return tuple(m for m in (self.grader_model or "").split(PANEL_SEPARATOR) if m)

    @property
    def is_verifiable(self) -> bool:
        """Scored in this process by a pure function: no model call, no cost."""
        return self.kind == "verifiable"

    @property
    def is_judge(self) -> bool:
        """A grader model reading a rendered rubric."""
        return self.kind == "judge"

    @property
    def is_model_graded(self) -> bool:
        """An inspect model-graded scorer replaying the solution to its models."""
        return self.kind == "model_graded"

    @property
    def is_pairwise(self) -> bool:
        """A grader model choosing the better of two conditions' answers."""
        return self.kind == "pairwise"

    @property
    def is_cascade(self) -> bool:
        """Verifiable stages first, a judge on what they leave undecided."""
        return self.kind == "cascade"


@dataclass(frozen=True)
class Cell:
    """One sample to run: its id, the rendered prompt, and metadata linking it back
    to its store row."""

    sample_id: str
    prompt: str
    metadata: dict[str, Any]
    preamble: tuple[tuple[str, str], ...] = ()
    """(role, text) turns sent before `prompt`: a system message and few-shot turns."""

    def config(self, task: dict[str, Any]) -> dict[str, Any]:
        """The generate config this cell is sent with: its task's, with a judge's
        later draw's seed (`draw_seed`)."""
        seed = draw_seed(self.metadata)
        return task if seed is None else {**task, "seed": seed}


def draw_seed(metadata: dict[str, Any]) -> int | None:
    """The seed a judge's later draw is sent with: its number, so two draws of one
    answer are two different requests where the provider takes a seed, and no
    provider-side cache of identical requests answers one with the other (README
    "Draws"). None for draw 1, sent as before draws existed, and for every other
    cell."""
    draw = int(metadata.get("draw", 1))
    return None if draw == 1 else draw


@dataclass(frozen=True)
class TaskSpec:
    """One inspect task: a condition's model, sampling config and the cells it still
    has to run."""

    name: str
    model: str
    config: dict[str, Any]
    cells: Sequence[Cell]
    # None: no response cache; else the scope that keeps conditions apart
    cache_scope: str | None
    metadata: dict[str, Any]
    scorer: dict[str, Any] | None = None
    """A model-graded scorer entry ({name, params}): the task replays each cell's
    stored solution (metadata `solution`, `targets`) and inspect's scorer makes the
    model calls, instead of one generate() per cell."""
    agent: AgentSpec | None = None
    """The condition's solver when not one plain call (engine/agents.py builds it)."""


@dataclass(frozen=True)
class Shard:
    """One of `count` disjoint parts of a run's cells (`--shard K/N`); `by` is "cell"
    or "model"."""

    index: int
    count: int
    by: str = "cell"

    @classmethod
    def parse(cls, text: str, by: str = "cell") -> Shard:
        """Parse "K/N" with 0 <= K < N; anything else is a ConfigError saying what is
        expected."""
        index, slash, count = text.partition("/")
        if not (
            slash and index.isdigit() and count.isdigit() and int(index) < int(count)
        ):
            raise ConfigError(
                f"--shard {text!r}: expected K/N with 0 <= K < N, e.g. 0/4 "
                "(the first of four shards)"
            )
        if by not in ("cell", "model"):
            raise ConfigError(f"--shard-by {by!r}: use cell or model")
        return cls(int(index), int(count), by)

    @property
    def tag(self) -> str:
        return f"shard-{self.index}-of-{self.count}"
