"""Estimate calls, tokens and dollars of the cells a run would execute, from their
prompts and observed reply lengths."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from ..records import Cell, GradeCondition, TaskSpec
from .agent_cost import agent_line
from .estimates import (
    CHARS_PER_TOKEN,
    DEFAULT_MAX_TOKENS,
    MESSAGE_OVERHEAD_TOKENS,
    EstimateLine,
    worst_case_input_tokens,
)
from .observed import ObservedLengths
from .pricing import Price, PriceTable, total_usd


def estimate_tokens(text: str | None) -> int:
    return math.ceil(len(text or "") / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS


def _cell_tokens(cell: Cell) -> int:
    """A cell's input: its prompt and every system or few-shot turn sent before it."""
    return sum(
        estimate_tokens(text) for text in (*(t for _, t in cell.preamble), cell.prompt)
    )


@dataclass(frozen=True)
class Calls:
    """Calls of one condition (to one model) in one stage, as a line prices them."""

    stage: str
    condition_id: str
    slug: str
    model: str
    calls: int
    input_tokens: float
    """What all the calls send, in total."""
    max_tokens: int | None


def line_for(
    work: Calls, *, observed: ObservedLengths, prices: PriceTable
) -> EstimateLine:
    """The estimate of `work`: its calls' tokens, and their USD when its model is
    priced."""
    stage, condition_id, slug, model = (
        work.stage,
        work.condition_id,
        work.slug,
        work.model,
    )
    calls, input_tokens, max_tokens = work.calls, work.input_tokens, work.max_tokens
    ceiling = max_tokens or DEFAULT_MAX_TOKENS
    expected, basis = observed.expected(condition_id, model, ceiling)
    line = EstimateLine(
        stage=stage,
        condition_id=condition_id,
        slug=slug,
        model=model,
        calls=calls,
        input_tokens=int(round(input_tokens)),
        output_tokens_ceiling=calls * ceiling,
        output_tokens_expected=int(round(calls * expected)),
        basis=basis,
    )
    price = prices.lookup(model)
    if price is None:
        # Unknown, never $0 -- but nothing to run costs nothing, priced or not.
        line.priced = False
        line.usd_ceiling = line.usd_expected = None if calls else 0.0
    else:
        # bounds only from the condition's own replies
        own = basis == "condition" and calls
        bounds = observed.interval(condition_id, calls, ceiling) if own else None
        _set_usd(line, price, bounds)
    return line


def _set_usd(
    line: EstimateLine, price: Price, bounds: tuple[float, float] | None
) -> None:
    """The line's USD at `price`: ceiling, expected, and low and high from the
    bounds on its output tokens when there are any."""
    line.usd_ceiling = price.cost(line.input_tokens, line.output_tokens_ceiling)
    line.usd_expected = price.cost(line.input_tokens, line.output_tokens_expected)
    if bounds is not None:
        line.usd_low, line.usd_high = (
            price.cost(line.input_tokens, int(round(b))) for b in bounds
        )


def worst_case_usd(price: Price, prompt: str, max_tokens: int | None) -> float:
    """The most one call can cost: every prompt byte a token, and a full-length
    reply."""
    return price.cost(worst_case_input_tokens(prompt), max_tokens or DEFAULT_MAX_TOKENS)


def lines_for_specs(
    stage: str,
    specs: Sequence[TaskSpec],
    slugs: dict[str, str],
    *,
    observed: ObservedLengths,
    prices: PriceTable,
    cached_sample_ids: Callable[[TaskSpec], frozenset[str]] = lambda spec: frozenset(),
) -> list[EstimateLine]:
    """One line per task spec: its calls, the tokens of its rendered prompts and its
    reply ceiling; the calls inspect's response cache already answers
    (`cached_sample_ids`, passed in by the stages so cost stays below inspect's
    adapters) count at $0."""

    lines = []
    for spec in specs:
        if spec.agent is not None:  # its calls are known only by its limits
            lines.append(_agent_line(spec, slugs[spec.name], observed, prices))
            continue
        cached = cached_sample_ids(spec)
        paid = [cell for cell in spec.cells if cell.sample_id not in cached]
        work = Calls(
            stage,
            spec.name,
            slugs[spec.name],
            spec.model,
            calls=len(paid),
            input_tokens=sum(map(_cell_tokens, paid)),
            max_tokens=spec.config.get("max_tokens"),
        )
        line = line_for(work, observed=observed, prices=prices)
        line.calls += len(cached)
        line.cached = len(cached)
        if cached:
            line.usd_uncached_expected = _uncached_usd(
                stage, spec, observed=observed, prices=prices
            )
        if spec.config.get("batch"):
            at_batch_price(line, prices.batch_factor(spec.model))
        lines.append(line)
    return lines


def _agent_line(
    spec: TaskSpec, slug: str, observed: ObservedLengths, prices: PriceTable
) -> EstimateLine:
    return agent_line(spec, slug, list(spec.cells), observed=observed, prices=prices)


def _uncached_usd(
    stage: str, spec: TaskSpec, *, observed: ObservedLengths, prices: PriceTable
) -> float | None:
    """The expected USD of every cell of the spec, as if the cache answered none."""
    work = Calls(
        stage,
        spec.name,
        spec.name,
        spec.model,
        calls=len(spec.cells),
        input_tokens=sum(map(_cell_tokens, spec.cells)),
        max_tokens=spec.config.get("max_tokens"),
    )
    return line_for(work, observed=observed, prices=prices).usd_expected


def at_batch_price(line: EstimateLine, factor: float) -> None:
    """Price a line's calls as batch calls (`factor` of the live price), keeping the
    live figure beside them."""
    line.usd_live_expected = line.usd_expected
    for name in (
        "usd_expected",
        "usd_ceiling",
        "usd_low",
        "usd_high",
        "usd_uncached_expected",
    ):
        value = getattr(line, name)
        setattr(line, name, None if value is None else value * factor)


def scorer_line(condition: GradeCondition, calls: int) -> EstimateLine:
    """A verifiable scorer's line: its calls cost nothing."""
    return EstimateLine(
        stage="grade",
        condition_id=condition.id,
        slug=condition.slug,
        model=f"scorer:{condition.scorer}",
        calls=calls,
        basis="free",
    )


def merge_lines(lines: list[EstimateLine]) -> list[EstimateLine]:
    """One line per (stage, condition), summing stored and projected work."""
    merged: dict[tuple[str, str], EstimateLine] = {}
    for line in lines:
        key = (line.stage, line.condition_id)
        if key not in merged:
            merged[key] = line
            continue
        into = merged[key]
        for name in (
            "calls",
            "cached",
            "input_tokens",
            "output_tokens_ceiling",
            "output_tokens_expected",
        ):
            setattr(into, name, getattr(into, name) + getattr(line, name))
        # a part without an interval counts at its expected figure
        for name in (
            "usd_low",
            "usd_high",
        ):
            if getattr(into, name) is not None or getattr(line, name) is not None:
                setattr(
                    into,
                    name,
                    total_usd(
                        [
                            into.usd_expected
                            if getattr(into, name) is None
                            else getattr(into, name),
                            line.usd_expected
                            if getattr(line, name) is None
                            else getattr(line, name),
                        ]
                    ),
                )
        for name in ("usd_ceiling", "usd_expected"):
            setattr(into, name, total_usd([getattr(into, name), getattr(line, name)]))
    return list(merged.values())
