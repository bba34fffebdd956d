"""Load a whole study: the config, its templates, its items and the condition grid
they cross into."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..paths import StudyPaths
from ..records import GenerateCondition, GradeCondition, Item, Template
from ..scorers.criteria import split_front_matter
from ..store import dataset_locks
from . import chat, pairwise
from .agents import agent_specs
from .cascade import cascade_conditions
from .config import LoadedConfig, StudyConfig
from .config_load import load_config
from .grid import check_logprobs, generate_conditions, verifiable_conditions
from .imported import imported_conditions
from .items import check_unique, dataset_key, map_rows
from .judges import judge_conditions
from .offline_models import check_offline_model
from .pairwise import is_pairwise
from .prompts import PROMPT_FIELDS, RUBRIC_FIELDS, check_template, load_template
from .sources import adapter


@dataclass(frozen=True)
class DatasetInfo:
    key: str
    adapter: str
    revision: str
    rows: int


@dataclass(frozen=True)
class Study:
    """Everything a stage needs to know about a study before it touches a store."""

    loaded: LoadedConfig
    prompts: dict[str, Template]
    rubrics: dict[str, Template]
    items: list[Item]
    datasets: list[DatasetInfo]
    generate: list[GenerateCondition]
    grade: list[GradeCondition]
    warnings: list[str] = field(default_factory=list)
    pairwise: list[GradeCondition] = field(default_factory=list)
    """Pairwise judges of `facets.grader`: they write pairwise.parquet, never
    grades.parquet."""

    @property
    def config(self) -> StudyConfig:
        return self.loaded.config

    @property
    def paths(self) -> StudyPaths:
        return self.loaded.study

    @property
    def replications(self) -> int:
        return self.config.facets.replications

    @property
    def pricing_path(self) -> Path | None:
        """The study's pricing override file (`budget.pricing_path`), resolved; None
        when it has none."""
        override = self.config.budget.pricing_path
        return self.loaded.input_path(override) if override else None


def load_study(
    path: str | Path, base_dir: str | Path | None = None, *, pin: bool = False
) -> Study:
    """Validate everything a run depends on; with `pin`, record unpinned dataset
    revisions in dataset_locks.json."""
    loaded = load_config(path, base_dir)
    try:
        return _study(loaded, pin=pin)
    except ConfigError as exc:  # a grid, template or dataset fault: name the config
        name = str(loaded.path)
        if exc.args and isinstance(exc.args[0], str) and name not in exc.args[0]:
            exc.args = (f"{name}: {exc.args[0]}", *exc.args[1:])
        raise


def _study(loaded: LoadedConfig, *, pin: bool) -> Study:
    """The study of a loaded config: its templates, items and conditions."""
    _check_offline_models(loaded.config)
    warnings: list[str] = []
    prompts = _templates(loaded, "prompt", loaded.config.facets.prompt, warnings)
    rubrics = _templates(loaded, "rubric", loaded.config.facets.rubric, warnings)
    items, datasets = _items(loaded, pin=pin)
    config = loaded.config
    pointwise = [g for g in config.facets.grader if not is_pairwise(config, g)]
    grade = judge_conditions(config, rubrics, pointwise) + verifiable_conditions(
        config, loaded.config_dir
    )
    grade += cascade_conditions(loaded)
    agents = agent_specs(config, loaded.config_dir, _task_version(config, datasets))
    generate = generate_conditions(config, prompts, agents)
    generate += imported_conditions(loaded.study)
    listed = [g for g in config.facets.grader if is_pairwise(config, g)]
    pairwise = pairwise_conditions(loaded, generate, listed, warnings)
    check_logprobs(generate, grade, loaded.config_dir)
    if config.metrics:  # checked at load: a metric that cannot be computed is exit 2
        from .metrics import plan_metrics

        plan_metrics(config.metrics, grade, loaded.config_dir)
    return Study(
        loaded=loaded,
        prompts=prompts,
        rubrics=rubrics,
        items=items,
        datasets=datasets,
        generate=generate,
        grade=grade,
        warnings=warnings,
        pairwise=pairwise,
    )


def _task_version(config: StudyConfig, datasets: list[DatasetInfo]) -> str | None:
    """What pins an inspect task's own solver: its dataset revision (the task's
    version or source hash, and its samples)."""
    if config.benchmark.adapter != "inspect" or not datasets:
        return None
    return ";".join(info.revision for info in datasets)


def _check_offline_models(config: StudyConfig) -> None:
    """Every `itemeval/<name>` the study names is an offline model (a misspelled one
    would run, answer at a made-up rate, and cost "unknown")."""
    for k, model in enumerate(config.solvers.models):
        check_offline_model(model, f"solvers.models[{k}]")
    for name, grader in config.graders.items():
        check_offline_model(grader.model, f"graders.{name}.model")
    for name in config.facets.grader:
        if "/" in name and name not in config.graders:
            check_offline_model(name, "facets.grader")


def _templates(
    loaded: LoadedConfig, kind: str, refs: list[str], warnings: list[str]
) -> dict[str, Template]:
    config = loaded.config
    folder = loaded.input_path(
        config.prompts_dir if kind == "prompt" else config.rubrics_dir
    )
    metadata = tuple(config.benchmark.mapping.metadata)
    known = (PROMPT_FIELDS if kind == "prompt" else RUBRIC_FIELDS) + metadata
    templates = {}
    for index, ref in enumerate(refs):
        where = f"facets.{kind}[{index}]"
        template = load_template(
            ref,
            kind,  # type: ignore[arg-type]
            folder,
            field=where,
        )
        if kind == "prompt":  # front matter checked now, not when a call is built
            chat.check_prompt(template, field=where)
        if kind == "rubric":  # criteria front matter, checked at load
            split_front_matter(template.text, f"{where} ({template.path})")
        warnings.extend(check_template(template, known, field=where))
        templates[ref] = template
    return templates


def _items(loaded: LoadedConfig, *, pin: bool) -> tuple[list[Item], list[DatasetInfo]]:
    benchmark = loaded.config.benchmark
    lock_path = loaded.study.dataset_locks
    locks = dataset_locks.read_locks(lock_path)
    items: list[Item] = []
    infos: list[DatasetInfo] = []
    for spec in benchmark.datasets:
        key = dataset_key(spec, benchmark.adapter)
        pinned = locks.datasets.get(key)
        source = adapter(benchmark.adapter)
        raw = source.load(spec, loaded, pinned.revision if pinned else None)
        dataset_locks.check_revision(lock_path, locks, raw.key, raw.revision)
        mapped = source.finish(map_rows(raw, benchmark.mapping, spec.limit), raw)
        if not mapped:
            raise ConfigError(f"benchmark.datasets: dataset {raw.key} has no rows")
        items.extend(mapped)
        infos.append(
            DatasetInfo(
                key=raw.key,
                adapter=raw.adapter,
                revision=raw.revision,
                rows=len(mapped),
            )
        )
    check_unique(items)
    if pin:
        dataset_locks.pin(
            lock_path,
            locks,
            {info.key: (info.adapter, info.revision) for info in infos},
        )
    return items, infos


def extra_judges(
    config: StudyConfig, rubrics: dict[str, Template], grader_names: list[str]
) -> list[GradeCondition]:
    """Judge conditions for graders named on the command line that `facets.grader`
    does not list."""
    listed = set(config.facets.grader)
    wanted = [
        name
        for name in grader_names
        if name not in listed and not is_pairwise(config, name)
    ]
    return judge_conditions(config, rubrics, wanted) if wanted else []


def extra_pairwise(
    loaded: LoadedConfig, generate: list[GenerateCondition], grader_names: list[str]
) -> list[GradeCondition]:
    """Pairwise conditions for pairwise graders named on the command line that
    `facets.grader` does not list."""
    listed = set(loaded.config.facets.grader)
    wanted = [
        name
        for name in grader_names
        if name not in listed and is_pairwise(loaded.config, name)
    ]
    return pairwise_conditions(loaded, generate, wanted, [])


def pairwise_conditions(
    loaded: LoadedConfig,
    generate: list[GenerateCondition],
    names: list[str],
    warnings: list[str],
) -> list[GradeCondition]:
    """One condition per pairwise grader, over its own rubric (default
    builtin:pairwise)."""
    folder = loaded.input_path(loaded.config.rubrics_dir)
    conditions = []
    for name in names:
        grader = loaded.config.graders[name]
        where = f"graders.{name}.rubric"
        rubric = load_template(
            grader.rubric or pairwise.DEFAULT_RUBRIC, "rubric", folder, field=where
        )
        warnings.extend(pairwise.check_rubric(rubric, field=where))
        baseline = pairwise.resolve_baseline(name, grader.baseline, generate)
        if len(generate) < 2:
            warnings.append(
                f"graders.{name}: a pairwise judge compares generate conditions two "
                f"by two, and the study has {len(generate)}: it judges nothing until "
                "there is a second (another model, prompt or model config)"
            )
        conditions.append(pairwise.pairwise_condition(name, grader, rubric, baseline))
    return conditions
