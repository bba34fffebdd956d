"""The estimate of an agent condition's cells (README "Agents"): a ceiling from its
limits' worst case, and, once some of its cells are stored (a run or `--pilot N`),
the expected spend from the trajectories they took."""

from __future__ import annotations

import math

from ..records import AgentSpec, Cell, TaskSpec
from .estimates import DEFAULT_MAX_TOKENS, EstimateLine, worst_case_input_tokens
from .observed import ObservedLengths
from .pricing import Price, PriceTable

TOOL_OUTPUT_TOKENS = 16_384
"""The most one message other than a reply can add to an agent's context: inspect
cuts a tool's output at 16 KiB by default, and no tokenizer makes a token of less
than a byte."""


def worst_case(
    agent: AgentSpec, prompt_tokens: int, max_tokens: int
) -> tuple[int, int, int]:
    """(calls, input tokens, output tokens) one agent cell can use at most.

    A message limit M bounds the calls by M and every call's context by the prompt
    plus M messages, each at most a full reply or a full tool output. A token limit T
    (inspect counts every call's input and output) bounds what the calls before the
    last used by T; the last call, checked only after it returns, adds a context of
    at most T plus a tool output, and a full reply. With both, each figure's smaller
    bound.
    """
    bounds = []
    limit = agent.limits.get("message_limit")
    if limit is not None:
        calls = int(limit)
        per_message = max(max_tokens, TOOL_OUTPUT_TOKENS)
        bounds.append(
            (calls, calls * (prompt_tokens + calls * per_message), calls * max_tokens)
        )
    limit = agent.limits.get("token_limit")
    if limit is not None:
        tokens = int(limit)
        calls = max(1, math.ceil(tokens / max(prompt_tokens, 1))) + 1
        bounds.append(
            (
                calls,
                2 * tokens + prompt_tokens + TOOL_OUTPUT_TOKENS,
                tokens + max_tokens,
            )
        )
    # each bound holds alone, so each figure's smallest does too
    calls, inputs, outputs = zip(*bounds)
    return min(calls), min(inputs), min(outputs)


def agent_line(
    spec: TaskSpec,
    slug: str,
    paid: list[Cell],
    *,
    observed: ObservedLengths,
    prices: PriceTable,
) -> EstimateLine:
    """The estimate line of an agent condition's `paid` cells (those the cache does
    not answer): `calls` counts their calls at most (their mean once observed)."""
    assert spec.agent is not None
    max_tokens = spec.config.get("max_tokens") or DEFAULT_MAX_TOKENS
    ceilings = [
        worst_case(spec.agent, _prompt_tokens(cell), max_tokens) for cell in paid
    ]
    calls = sum(c for c, _, _ in ceilings)
    in_ceiling, out_ceiling = (
        sum(i for _, i, _ in ceilings),
        sum(o for *_, o in ceilings),
    )
    per_cell = observed.per_cell.get(spec.name)
    line = EstimateLine(
        stage="generate",
        condition_id=spec.name,
        slug=slug,
        model=spec.model,
        calls=calls if per_cell is None else math.ceil(per_cell[2] * len(paid)),
        input_tokens=in_ceiling,
        output_tokens_ceiling=out_ceiling,
        output_tokens_expected=out_ceiling,
        basis="ceiling" if per_cell is None else "condition",
    )
    price = prices.lookup(spec.model)
    if price is None:
        line.priced = False
        line.usd_ceiling = line.usd_expected = None if paid else 0.0
        return line
    line.usd_ceiling = price.cost(in_ceiling, out_ceiling)
    line.usd_expected = line.usd_ceiling
    if per_cell is not None:
        _observed_usd(line, price, per_cell, observed, len(paid))
    return line


def _observed_usd(
    line: EstimateLine,
    price: Price,
    per_cell: tuple[float, float, float],
    observed: ObservedLengths,
    cells: int,
) -> None:
    """Expected spend from the stored cells' mean tokens (never above the ceiling),
    and its 95% bounds from their spread, the input scaled as the output."""
    mean_in, mean_out, _ = per_cell
    line.input_tokens = int(round(mean_in * cells))  # shown: what the cells send
    expected_out = min(mean_out * cells, line.output_tokens_ceiling)
    line.output_tokens_expected = int(round(expected_out))
    line.usd_expected = min(
        price.cost(line.input_tokens, line.output_tokens_expected),
        line.usd_ceiling or math.inf,
    )
    ceiling_per_cell = max(line.output_tokens_ceiling // max(cells, 1), 1)
    bounds = observed.interval(line.condition_id, cells, ceiling_per_cell)
    if bounds is None or not mean_out:
        return
    ratio = mean_in / mean_out
    line.usd_low, line.usd_high = (
        min(price.cost(int(round(b * ratio)), int(round(b))), line.usd_ceiling)
        for b in bounds
    )


def _prompt_tokens(cell: Cell) -> int:
    """The worst case of what the cell sends before its first reply."""
    text = "\n".join([*(t for _, t in cell.preamble), cell.prompt])
    return worst_case_input_tokens(text)
