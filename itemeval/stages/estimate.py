"""`itemeval estimate`: project the calls, tokens and dollars of exactly the cells a
run would execute."""

from __future__ import annotations

from ..engine.batch.listing import held_by_open, held_note
from ..engine.cache_origins import where
from ..outcomes import recovered_note
from ..paths import StudyPaths
from ..plan import cascade_counts
from ..plan.cost import (
    Calls,
    ObservedLengths,
    at_batch_price,
    estimate_tokens,
    line_for,
    merge_lines,
    scorer_line,
)
from ..plan.estimates import Estimate, EstimateLine
from ..plan.options import EstimateOptions, GradeOptions
from ..plan.pricing import PriceTable, load_prices
from ..plan.stage_plan import StagePlan
from ..plan.state import observed_lengths
from ..records import GradeCondition, Item
from ..store.recovery import recover_if_idle
from ..study import cascade
from ..study.grid import generated
from ..study.load import Study
from . import generate as gen_stage
from .grade import stage as grade_stage
from .grade.judge import judge_prompt


def _cells_of(gen: StagePlan | None) -> frozenset[tuple[str, str, int]]:
    """The (condition, item, epoch) cells a generate plan runs."""
    if gen is None:
        return frozenset()
    return frozenset(
        (
            cell.metadata["condition_id"],
            cell.metadata["item_id"],
            cell.metadata["replication"],
        )
        for spec in gen.specs
        for cell in spec.cells
    )


def project_grading(
    paths: StudyPaths,
    items: list[Item],
    gen: StagePlan,
    grade: list[GradeCondition],
    prices: PriceTable,
    *,
    batch: bool = False,
) -> list[EstimateLine]:
    """Grading of the solutions the generate plan `gen` will generate: the rubric
    over a solution of the expected length; a judge's calls at its batch price in
    batch mode, as the grade plan prices them once the solutions exist."""
    gen_specs = gen.specs
    expected = {
        line.condition_id: line.output_tokens_expected / line.calls
        for line in gen.lines
        if line.calls
    }
    by_id = {item.id: item for item in items}
    observed = observed_lengths(paths, "grade")
    all_calls = sum(len(spec.cells) for spec in gen_specs)
    lines = []
    for condition in grade:
        if condition.is_verifiable:
            lines.append(scorer_line(condition, all_calls))
            continue
        tokens = sum(
            estimate_tokens(_grading_prompt(condition, by_id[cell.metadata["item_id"]]))
            + expected.get(spec.name, 0.0)
            for spec in gen_specs
            for cell in spec.cells
        )
        calls = all_calls
        if condition.is_cascade and all_calls:  # its judge: the undecided share
            share = cascade_counts.undecided_share(paths, condition).undecided
            calls = round(all_calls * share)
            tokens = tokens * calls / all_calls
        judged = _grader_lines(condition, calls, tokens, observed, prices)
        if batch and (condition.is_judge or condition.is_cascade):
            for line in judged:
                at_batch_price(line, prices.batch_factor(line.model))
        lines += judged
    return lines


def _grader_lines(
    condition: GradeCondition,
    calls: int,
    tokens: float,
    observed: ObservedLengths,
    prices: PriceTable,
) -> list[EstimateLine]:
    """A grader's calls, a line per model (a model-graded panel: each model
    grades)."""
    max_tokens = condition.judge_params.get(
        "max_tokens"
    ) or condition.scorer_params.get("max_tokens")
    return [
        line_for(
            Calls(
                "grade",
                condition.id,
                condition.slug,
                model,
                calls=calls,
                input_tokens=tokens,
                max_tokens=max_tokens,
            ),
            observed=observed,
            prices=prices,
        )
        for model in condition.models
    ]


def _grading_prompt(condition: GradeCondition, item: Item) -> str:
    """What a grader reads besides the solution: the rendered rubric, or a
    model-graded scorer's question and target."""
    if condition.is_model_graded:
        return (
            f"{item.input}\n{item.target}"
            + " " * 4 * grade_stage.MODEL_GRADED_TEMPLATE_TOKENS
        )
    return judge_prompt(condition, item, "")


def run_estimate(study: Study, options: EstimateOptions) -> Estimate:
    """No model calls, no network, no keys: read the config and the stores, and price
    the plan."""
    recovered, pending = recover_if_idle(study.paths)
    prices = load_prices(study.pricing_path)
    opts = options.grade_options()
    graded = grade_stage.inputs(study, opts)
    items = opts.chosen(study.items)
    gen = None
    if options.stage in ("all", "generate"):
        # imported answers are never generated
        conditions = generated(graded.generate)
        given = gen_stage.inputs(study)
        gen = gen_stage.plan(
            given, opts, prices=prices, conditions=conditions, items=items
        )
    lines: list[EstimateLine] = list(gen.lines) if gen is not None else []
    notes = _recovery_notes(recovered, pending)
    if gen is not None:
        notes += gen_stage.agent_note(list(gen.specs))
    if options.stage in ("all", "grade"):
        lines += _grading(graded, opts, gen, items, prices)
        paths = study.paths
        notes += [
            cascade_counts.estimate_note(c, cascade_counts.undecided_share(paths, c))
            for c in cascade.cascades(graded.grade)
        ]
    held = held_by_open(study.paths, _stages(options.stage))
    notes += [held_note(held)] if held else []
    return Estimate(
        lines=merge_lines(lines),
        notes=notes + _notes(lines, prices, where(study.config.study, study.paths)),
        open_batches=held,
    )


def _grading(
    graded: grade_stage.GradeInputs,
    opts: GradeOptions,
    gen: StagePlan | None,
    items: list[Item],
    prices: PriceTable,
) -> list[EstimateLine]:
    """The grade plan's lines, and the grading of what the generate plan `gen` will
    generate: cells it re-runs (`--force`) are left to `project_grading`, so none is
    counted twice."""
    work = grade_stage.plan(
        graded, opts, prices=prices, items=items, regenerated=_cells_of(gen)
    )
    lines = list(work.lines)
    if gen is not None:
        setting = graded.setting
        lines += project_grading(
            setting.paths,
            setting.items,
            gen,
            graded.grade,
            prices,
            batch=bool(setting.batch),
        )
    return lines


def _recovery_notes(recovered: dict[str, int], pending: int) -> list[str]:
    notes = [recovered_note(n, store) for store, n in recovered.items()]
    if pending:
        notes.append(
            f"{pending} rows of a running command are not in the stores yet; "
            "the estimate may count them"
        )
    return notes


def _stages(stage: str) -> tuple[str, ...]:
    return ("generate", "grade") if stage == "all" else (stage,)


def _notes(lines: list[EstimateLine], prices: PriceTable, origin: str) -> list[str]:
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
        from ..engine import cache_origins, response_cache

        whose = cache_origins.describe(response_cache.origins(lines), origin)
        notes.append(
            f"{cached:,} of these calls are in inspect's response cache ({whose}): "
            "priced at $0"
        )
    if unpriced:
        notes.append(
            f"no price for {', '.join(unpriced)}: its cost is unknown (add it "
            "with budget.pricing_path)"
        )
    return notes
