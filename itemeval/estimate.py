"""`itemeval estimate`: project the calls, tokens and dollars of exactly the cells a
run would execute."""

from __future__ import annotations

from dataclasses import dataclass

from . import cascade, cascade_counts, pairwise_grade, plan
from . import generate as gen_stage
from . import grade as grade_stage
from .cache_lookup import cached_sample_ids  # noqa: I001
from .cost import (
    Estimate,
    EstimateLine,
    estimate_tokens,
    line_for,
    lines_for_specs,
    merge_lines,
    scorer_line,
)
from .grid import generated
from .pricing import PriceTable, load_prices
from .records import GenerateCondition, GradeCondition, Item, TaskSpec
from .recovery import recover_if_idle
from .state import observed_lengths
from .study import Study


@dataclass(frozen=True)
class EstimateOptions:
    conditions: tuple[str, ...] = ()
    limit: int | None = None
    ids: tuple[str, ...] = ()
    sample: int | None = None
    seed: int = 0
    stratify: str | None = None
    force: bool = False
    graders: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()
    stage: str = "all"  # all | generate | grade


def estimate_generate(
    study: Study,
    conditions: list[GenerateCondition],
    items: list[Item],
    *,
    force: bool,
    prices: PriceTable,
) -> tuple[list[EstimateLine], list[TaskSpec]]:
    conditions = generated(conditions)  # imported answers are never generated
    cells = gen_stage.plan_cells(study, conditions, items, force=force)
    specs = gen_stage.task_specs(study, conditions, cells)
    lines = lines_for_specs(
        "generate",
        specs,
        {c.id: c.slug for c in conditions},
        observed=observed_lengths(study, "generate"),
        prices=prices,
        cached_sample_ids=cached_sample_ids,
    )
    return lines, specs


def estimate_grade_stored(
    study: Study,
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
    items: list[Item],
    *,
    force: bool,
    prices: PriceTable,
    regenerated: frozenset[tuple[str, str, int]] = frozenset(),
) -> list[EstimateLine]:
    """Grading of the solutions already stored: judges by their rendered prompts,
    scorers at no cost.

    Cells the generate plan re-runs (`--force`) are left to `project_grading`, so none
    is counted twice.
    """
    todo = grade_stage.pending(study, generate, grade, items, force=force)
    if regenerated and not todo.empty:
        keys = zip(todo["gen_condition_id"], todo["item_id"], todo["epoch"].astype(int))
        todo = todo[[key not in regenerated for key in keys]].reset_index(drop=True)
    # a cascade's scorers cost nothing and run now: its judge is priced on exactly
    # the stored solutions they leave undecided
    todo, _ = grade_stage.settle_cascades(study, todo, grade, run_id="")
    specs = grade_stage.judge_specs(
        study, todo, [c for c in grade if c.kind != "verifiable"]
    )
    return grade_stage.estimate_lines(study, todo, grade, specs, prices)


def estimate_pairwise_stored(
    study: Study,
    options: grade_stage.GradeOptions,
    generate: list[GenerateCondition],
    items: list[Item],
    *,
    force: bool,
    prices: PriceTable,
) -> list[EstimateLine]:
    """Pairwise verdicts on the answers already stored, by their rendered prompts."""
    pairs = grade_stage.select_pairwise(study, options)
    if not pairs:
        return []
    todo = pairwise_grade.pending(study, generate, pairs, items, force=force)
    specs = pairwise_grade.task_specs(
        study,
        todo,
        pairs,
    )
    return pairwise_grade.estimate_lines(study, specs, pairs, prices)


def project_grading(
    study: Study,
    gen_specs: list[TaskSpec],
    gen_lines: list[EstimateLine],
    grade: list[GradeCondition],
    prices: PriceTable,
) -> list[EstimateLine]:
    """Grading of the solutions this plan will generate: the rubric over a solution
    of the expected length."""
    expected = {
        line.condition_id: line.output_tokens_expected / line.calls
        for line in gen_lines
        if line.calls
    }
    items = {item.id: item for item in study.items}
    observed = observed_lengths(study, "grade")
    all_calls = sum(len(spec.cells) for spec in gen_specs)
    lines = []
    for condition in grade:
        if condition.kind == "verifiable":
            lines.append(scorer_line(condition, all_calls))
            continue
        tokens = sum(
            estimate_tokens(_grading_prompt(condition, items[cell.metadata["item_id"]]))
            + expected.get(spec.name, 0.0)
            for spec in gen_specs
            for cell in spec.cells
        )
        calls = all_calls
        if condition.kind == "cascade" and all_calls:  # its judge: the undecided share
            share = cascade_counts.undecided_share(study, condition).undecided
            calls = round(all_calls * share)
            tokens = tokens * calls / all_calls
        max_tokens = condition.judge_params.get(
            "max_tokens"
        ) or condition.scorer_params.get("max_tokens")
        for model in (condition.grader_model or "").split(
            ","
        ):  # a model-graded panel: each model grades
            lines.append(
                line_for(
                    "grade",
                    condition.id,
                    condition.slug,
                    model,
                    calls=calls,
                    input_tokens=tokens,
                    max_tokens=max_tokens,
                    observed=observed,
                    prices=prices,
                )
            )
    return lines


def _grading_prompt(condition: GradeCondition, item: Item) -> str:
    """What a grader reads besides the solution: the rendered rubric, or a
    model-graded scorer's question and target."""
    if condition.kind == "model_graded":
        return (
            f"{item.input}\n{item.target}"
            + " " * 4 * grade_stage.MODEL_GRADED_TEMPLATE_TOKENS
        )
    return grade_stage.judge_prompt(condition, item, "")


def run_estimate(study: Study, options: EstimateOptions) -> Estimate:
    """No model calls, no network, no keys: read the config and the stores, and price
    the plan."""
    recovered, pending = recover_if_idle(study)
    prices = load_prices(study.pricing_path)
    items = plan.choose_items(
        study.items,
        limit=options.limit,
        sample=options.sample,
        seed=options.seed,
        stratify=options.stratify,
        ids=options.ids,
    )
    grade_options = grade_stage.GradeOptions(
        conditions=options.conditions, graders=options.graders, rubrics=options.rubrics
    )
    generate, grade = grade_stage.select_conditions(study, grade_options)
    lines: list[EstimateLine] = []
    gen_lines: list[EstimateLine] = []
    gen_specs: list[TaskSpec] = []
    if options.stage in ("all", "generate"):
        gen_lines, gen_specs = estimate_generate(
            study, generate, items, force=options.force, prices=prices
        )
        lines += gen_lines
    if options.stage in ("all", "grade"):
        regenerated = frozenset(
            (
                cell.metadata["condition_id"],
                cell.metadata["item_id"],
                cell.metadata["replication"],
            )
            for spec in gen_specs
            for cell in spec.cells
        )
        lines += estimate_grade_stored(
            study,
            generate,
            grade,
            items,
            force=options.force,
            prices=prices,
            regenerated=regenerated,
        )
        lines += estimate_pairwise_stored(
            study, grade_options, generate, items, force=options.force, prices=prices
        )
        if options.stage == "all":
            lines += project_grading(study, gen_specs, gen_lines, grade, prices)
    notes = [
        f"recovered {n} {store} rows from the journal of an interrupted run"
        for store, n in recovered.items()
    ]
    if pending:
        notes.append(
            f"{pending} rows of a running command are not in the stores yet; "
            "the estimate may count them"
        )
    if options.stage in ("all", "grade"):
        notes += [
            cascade_counts.estimate_note(c, cascade_counts.undecided_share(study, c))
            for c in cascade.cascades(grade)
        ]
    return Estimate(lines=merge_lines(lines), notes=notes + _notes(lines, prices))


def _notes(lines: list[EstimateLine], prices: PriceTable) -> list[str]:
    dated = f" dated {prices.date}" if prices.date else ""
    notes = [
        f"prices: itemeval's packaged table{dated} plus budget.pricing_path; "
        "offline itemeval/* prices are demo prices"
    ]
    unpriced = sorted(
        {line.model for line in lines if not line.priced and line.calls > line.cached}
    )
    cached = sum(line.cached for line in lines)
    if cached:
        notes.append(
            f"{cached:,} of these calls are in inspect's response cache: priced at $0"
        )
    if unpriced:
        notes.append(
            f"no price for {', '.join(unpriced)}: its cost is unknown (add it "
            "with budget.pricing_path)"
        )
    return notes
