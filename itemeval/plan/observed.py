"""What the store shows of earlier replies: mean output lengths per condition and model
(the estimate's expected figure), their spread (a projection's interval), and an agent
condition's tokens and turns per cell."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class ObservedLengths:
    """Mean output tokens seen in the store, per condition and per model, for the
    expected figure; per condition also the standard deviation and count, for the
    interval of a projection."""

    by_condition: dict[str, float]
    by_model: dict[str, float]
    spread: dict[str, tuple[float, int]] = field(default_factory=dict)
    """condition id -> (standard deviation of output tokens, replies observed)."""
    per_cell: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """Agent condition id -> mean (input tokens, output tokens, turns) of its stored
    cells: an agent's row sums all its calls (plan/agent_cost.py)."""

    @classmethod
    def from_rows(
        cls, rows: pd.DataFrame, condition_column: str, model_column: str
    ) -> ObservedLengths:
        ok = rows[rows["error"].isna() & rows["output_tokens"].notna()]
        by_condition = ok.groupby(condition_column)["output_tokens"]
        spread = {
            key: (float(sd), int(n))
            for key, sd, n in zip(
                by_condition.std().index,
                by_condition.std().fillna(0.0),
                by_condition.count(),
            )
        }
        return cls(
            by_condition=by_condition.mean().to_dict(),
            by_model=ok.groupby(model_column)["output_tokens"].mean().to_dict(),
            spread=spread,
            per_cell=_per_cell(ok, condition_column),
        )

    def interval(
        self, condition_id: str, calls: int, ceiling: int
    ) -> tuple[float, float] | None:
        """95% bounds on the output tokens of `calls` more calls: the mean's
        uncertainty (from the replies seen) plus the calls' own spread around it.
        None without at least two of the condition's replies, or when every one had
        the same length: their spread says nothing of the replies to come, and a
        zero-width interval would claim the run's cost to the cent."""
        if condition_id not in self.spread or self.spread[condition_id][1] < 2:
            return None
        sd, seen = self.spread[condition_id]
        if sd == 0:
            return None
        mean = min(self.by_condition[condition_id], ceiling)
        half = 1.96 * sd * math.sqrt(calls * calls / seen + calls)
        return max(0.0, calls * mean - half), min(
            float(calls * ceiling), calls * mean + half
        )

    def expected(
        self, condition_id: str, model: str, ceiling: int
    ) -> tuple[float, str]:
        if condition_id in self.by_condition:
            return min(self.by_condition[condition_id], ceiling), "condition"
        if model in self.by_model:
            return min(self.by_model[model], ceiling), "model"
        return float(ceiling), "ceiling"


def _per_cell(
    rows: pd.DataFrame, condition_column: str
) -> dict[str, tuple[float, float, float]]:
    """Mean input tokens, output tokens and turns per stored agent cell."""
    if "turns" not in rows or "input_tokens" not in rows:
        return {}
    agents = rows[rows["turns"].notna()]
    means = agents.groupby(condition_column)[
        ["input_tokens", "output_tokens", "turns"]
    ].mean()
    return {
        key: (float(r.input_tokens), float(r.output_tokens), float(r.turns))
        for key, r in means.iterrows()
    }
