"""`itemeval estimate`: project the calls, tokens and dollars of exactly the cells a run would execute."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import generate as gen_stage
from . import grade as grade_stage
from .cost import Estimate, EstimateLine, ObservedLengths, estimate_tokens, line_for
from .pricing import PriceTable, load_prices
from .records import GradeCondition, TaskSpec
from .store import read_store
from .study import Study, load_study


@dataclass(frozen=True)
class EstimateOptions:
    conditions: tuple[str, ...] = ()
    limit: int | None = None
    force: bool = False
    graders: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()
    stage: str = "all"  # all | generate | grade


def study_prices(study: Study) -> PriceTable:
    override = study.config.budget.pricing_path
    return load_prices(study.loaded.input_path(override) if override else None)


def _observed(study: Study, stage: str) -> ObservedLengths:
    if stage == "generate":
        rows = read_store(study.paths, "solutions", ["condition_id", "model", "error", "output_tokens"]).to_pandas()
        return ObservedLengths.from_rows(rows, "condition_id", "model")
    rows = read_store(study.paths, "grades", ["grade_condition_id", "grader_model", "error", "output_tokens",
                                              "grade_kind"]).to_pandas()
    return ObservedLengths.from_rows(rows[rows["grade_kind"] == "judge"], "grade_condition_id", "grader_model")


def lines_for_specs(stage: str, specs: list[TaskSpec], slugs: dict[str, str], study: Study,
                    prices: PriceTable) -> list[EstimateLine]:
    observed = _observed(study, stage)
    return [
        line_for(stage, spec.name, slugs[spec.name], spec.model, calls=len(spec.cells),
                 input_tokens=sum(estimate_tokens(cell.prompt) for cell in spec.cells),
                 max_tokens=spec.config.get("max_tokens"), observed=observed, prices=prices)
        for spec in specs
    ]


def estimate_generate(study: Study, conditions: list[Any], items: list[Any], *, force: bool,
                      prices: PriceTable) -> tuple[list[EstimateLine], list[TaskSpec]]:
    cells = gen_stage.plan_cells(study, conditions, items, force=force)
    specs = gen_stage.task_specs(study, conditions, cells)
    return lines_for_specs("generate", specs, {c.id: c.slug for c in conditions}, study, prices), specs


def estimate_grade_stored(study: Study, generate: list[Any], grade: list[GradeCondition], items: list[Any], *,
                          force: bool, prices: PriceTable,
                          regenerated: frozenset[tuple[str, str, int]] = frozenset()) -> list[EstimateLine]:
    """Grading of the solutions already stored: judges by their rendered prompts, scorers at no cost.

    Cells the generate plan re-runs (`--force`) are left to `project_grading`, so none is counted twice.
    """
    todo = grade_stage.pending(study, generate, grade, items, force=force)
    if regenerated and not todo.empty:
        keys = zip(todo["gen_condition_id"], todo["item_id"], todo["epoch"].astype(int))
        todo = todo[[key not in regenerated for key in keys]].reset_index(drop=True)
    specs = grade_stage.judge_specs(study, todo, [c for c in grade if c.kind == "judge"])
    return grade_stage.estimate_lines(study, todo, grade, specs, prices)


def project_grading(study: Study, gen_specs: list[TaskSpec], gen_lines: list[EstimateLine],
                    grade: list[GradeCondition], prices: PriceTable) -> list[EstimateLine]:
    """Grading of the solutions this plan will generate: the rubric over a solution of the expected length."""
    expected = {line.condition_id: line.output_tokens_expected / line.calls for line in gen_lines if line.calls}
    items = {item.id: item for item in study.items}
    observed = _observed(study, "grade")
    lines = []
    for condition in grade:
        calls, tokens = 0, 0.0
        for spec in gen_specs:
            for cell in spec.cells:
                calls += 1
                if condition.kind == "judge":
                    prompt = grade_stage.judge_prompt(condition, items[cell.metadata["item_id"]], "")
                    tokens += estimate_tokens(prompt) + expected.get(spec.name, 0.0)
        if condition.kind == "verifiable":
            lines.append(EstimateLine(stage="grade", condition_id=condition.id, slug=condition.slug,
                                      model=f"scorer:{condition.scorer}", calls=calls, basis="free"))
            continue
        lines.append(line_for("grade", condition.id, condition.slug, condition.grader_model, calls=calls,
                              input_tokens=tokens, max_tokens=condition.judge_params.get("max_tokens"),
                              observed=observed, prices=prices))
    return lines


def merge_lines(lines: list[EstimateLine]) -> list[EstimateLine]:
    """One line per (stage, condition), summing stored and projected work."""
    merged: dict[tuple[str, str], EstimateLine] = {}
    for line in lines:
        key = (line.stage, line.condition_id)
        if key not in merged:
            merged[key] = line
            continue
        into = merged[key]
        for name in ("calls", "input_tokens", "output_tokens_ceiling", "output_tokens_expected"):
            setattr(into, name, getattr(into, name) + getattr(line, name))
        for name in ("usd_ceiling", "usd_expected"):
            a, b = getattr(into, name), getattr(line, name)
            setattr(into, name, None if a is None or b is None else a + b)
    return list(merged.values())


def run_estimate(config_path: str | Path, base_dir: str | Path | None, options: EstimateOptions) -> Estimate:
    """No model calls, no network, no keys: read the config and the stores, and price the plan."""
    from .run import recover_if_idle

    study = load_study(config_path, base_dir)
    recovered, pending = recover_if_idle(study)
    prices = study_prices(study)
    items = study.items[: options.limit] if options.limit is not None else study.items
    grade_options = grade_stage.GradeOptions(conditions=options.conditions, graders=options.graders,
                                             rubrics=options.rubrics)
    generate, grade = grade_stage.select_conditions(study, grade_options)
    lines: list[EstimateLine] = []
    if options.stage in ("all", "generate"):
        gen_lines, gen_specs = estimate_generate(study, generate, items, force=options.force, prices=prices)
        lines += gen_lines
    if options.stage in ("all", "grade"):
        regenerated = frozenset(
            (cell.metadata["condition_id"], cell.metadata["item_id"], cell.metadata["replication"])
            for spec in gen_specs for cell in spec.cells
        ) if options.stage == "all" else frozenset()
        lines += estimate_grade_stored(study, generate, grade, items, force=options.force, prices=prices,
                                       regenerated=regenerated)
        if options.stage == "all":
            lines += project_grading(study, gen_specs, gen_lines, grade, prices)
    notes = [f"recovered {n} {store} rows from the journal of an interrupted run" for store, n in recovered.items()]
    if pending:
        notes.append(f"{pending} rows of a running command are not in the stores yet; the estimate may count them")
    return Estimate(lines=merge_lines(lines), notes=notes + _notes(lines, prices))


def _notes(lines: list[EstimateLine], prices: PriceTable) -> list[str]:
    dated = f" dated {prices.date}" if prices.date else ""
    notes = [f"prices: itemeval's packaged table{dated} plus budget.pricing_path; offline itemeval/* prices are demo prices"]
    unpriced = sorted({line.model for line in lines if not line.priced and line.calls})
    if unpriced:
        notes.append(f"no price for {', '.join(unpriced)}: its cost is unknown (add it with budget.pricing_path)")
    return notes
