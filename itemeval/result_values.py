"""What `itemeval results` computes, as values: the console, the report and `--json`
render these.

Every number is as `--json` shows it: a Python number, None where undefined (never
NaN or a numpy scalar), so a renderer needs no cleaning of its own. The typed rows are
the figures results computes itself; lists built by their own modules (agreement,
which human_results extends, corrected means, criteria, metrics, pairwise) stay rows
of a mapping each, in the order and with the keys those modules give them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

import numpy as np

Record = Mapping[str, Any]


@dataclass(frozen=True)
class Cell:
    """One (generate condition × grade condition): its item-mean and interval, and
    its grades by status."""

    gen_condition_id: str
    grade_condition_id: str
    items: int
    grades: int
    pending: int
    errors: int
    parse_failures: int
    parse_failure_rate: float | None
    mean: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    reducer: str
    ci_method: str


@dataclass(frozen=True)
class Marginal:
    """One level of a `--by` facet (per grade condition, or over all of them when the
    facet is a grade facet: grade_condition_id None)."""

    facet: str
    level: Any
    grade_condition_id: str | None
    items: int
    mean: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class Comparison:
    """`--compare`: A − B under one grade condition, on the items both have."""

    grade_condition_id: str
    a: str
    b: str
    n: int
    diff: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    correlation: float | None
    test: str
    p: float | None
    p_adjusted: float | None
    """Holm over every comparison of the run."""


@dataclass(frozen=True)
class Calibration:
    """A probability scorer's P(positive option) against the outcome, per cell."""

    gen_condition_id: str
    grade_condition_id: str
    n: int
    ece: float | None
    ece_equal_mass: float | None
    brier: float | None
    auc: float | None
    reliability: list[dict[str, float]]


@dataclass(frozen=True)
class Headline:
    """Per grade condition: the best generate condition, its lead over the next and
    the sentence that says it (headline.py)."""

    grade_condition_id: str
    best: str
    best_mean: float | None
    runner_up: str | None
    runner_up_mean: float | None
    n: int
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    test: str | None
    p: float | None
    p_adjusted: float | None
    detectable: bool
    text: str


@dataclass(frozen=True)
class Decided:
    """A cascade cell's graded solutions that one stage decided (cascade_counts);
    `none`: no stage gave a verdict."""

    gen_condition_id: str
    grade_condition_id: str
    decided_by: str
    n: int


@dataclass(frozen=True)
class ResultsReport:
    study: str
    reducer: str
    ci_method: str
    cells: tuple[Cell, ...] = ()
    marginals: tuple[Marginal, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    agreement: tuple[Record, ...] = ()
    calibration: tuple[Calibration, ...] = ()
    corrected: tuple[Record, ...] = ()
    """Judge means corrected by human labels (itemeval.human_results)."""
    pairwise: tuple[Record, ...] = ()
    strengths: tuple[Record, ...] = ()
    criteria: tuple[Record, ...] = ()
    """Per (cell, criterion) of grades with several criteria (SPEC §20)."""
    criteria_agreement: tuple[Record, ...] = ()
    """Agreement of two grade conditions on each criterion both scored."""
    metrics: tuple[Record, ...] = ()
    """Global metrics per cell and per --by level, when the study declares any."""
    cascades: tuple[Decided, ...] = ()
    """Per cascade cell: how many graded solutions each stage decided."""
    slugs: dict[str, str] = field(default_factory=dict)
    headline: tuple[Headline, ...] = ()
    """Per grade condition: the best generate condition and its lead (headline.py)."""
    cell_facets: dict[str, dict[str, str]] = field(default_factory=dict)
    """Generate condition id -> {facet: level} of the facets that vary (cell_names)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, in the field order above."""
        return clean(asdict(self))


def clean(value: Any) -> Any:
    """JSON-ready: numpy scalars as Python numbers, NaN (undefined) as None, tuples
    as lists."""
    if isinstance(value, dict):
        return {key: clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


Row = TypeVar("Row")


def typed(kind: type[Row], rows: list[dict[str, Any]]) -> tuple[Row, ...]:
    """Rows computed as mappings, as values of `kind` (cleaned, so as --json shows
    them); a row must have exactly the fields of `kind`."""
    names = [f.name for f in fields(kind)]  # type: ignore[arg-type]
    for row in rows:
        if list(row) != names:  # the JSON's keys are the fields, in this order
            raise TypeError(f"{kind.__name__}: row keys {list(row)} != {names}")
    return tuple(kind(**{name: clean(row[name]) for name in names}) for row in rows)


def records(rows: list[dict[str, Any]]) -> tuple[Record, ...]:
    """Rows another module builds, cleaned as --json shows them."""
    return tuple(clean(row) for row in rows)
