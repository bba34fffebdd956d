"""What `itemeval results` computes, as values: the console, the report and `--json`
render these.

Every number is as `--json` shows it: a Python number, None where undefined (never
NaN or a numpy scalar), so a renderer needs no cleaning of its own. The typed rows are
built once, in `results.study_results`, from the rows each figure's module computes;
a row's fields are its JSON keys, in the JSON's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, is_dataclass
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
    scale: str | None = None
    """The scale of the level's scores ("0–1", "up to 3"); None when not known."""


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
    """Holm over the comparisons of the grade condition."""
    facet: str | None = None
    """Set when A and B are levels of this generate facet (`--compare A B --by
    model`), each item averaged over the other facets; None: generate conditions."""


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
    """Holm-adjusted over every pair of the grade condition's generate conditions."""
    pairs: int
    """How many pairs that is: k(k-1)/2 for k scored conditions."""
    detectable: bool
    facet: str | None
    """Set on the row of the facet that varies most: `best` and `runner_up` are
    levels of it, each item averaged over the other facets."""
    text: str
    doubt: str | None = None
    """Why the grade condition's judge is doubted (results/judges.py judge_doubts:
    test-retest ICC under 0.75, or a preference for its own family), else None."""


@dataclass(frozen=True)
class Decided:
    """A cascade cell's graded solutions that one stage decided (cascade_counts);
    `none`: no stage gave a verdict."""

    gen_condition_id: str
    grade_condition_id: str
    decided_by: str
    n: int


@dataclass(frozen=True)
class AgreementRow:
    """Two grade conditions over the same solutions (results/agreement.py), with the
    human-label figures results/human.py adds: kinds, bias and bootstrap intervals."""

    a: str
    b: str
    n: int
    exact: float | None
    spearman: float | None
    kappa_quadratic: float | None
    alpha_interval: float | None
    threshold: float | None
    threshold_b: float | None
    """b's pass mark in `confusion` (a's is `threshold`): each grader's own scale's
    midpoint by default, so a 0/1 grader beside a 0-3 one can pass at all."""
    confusion: dict[str, int]
    kind_a: str | None
    kind_b: str | None
    bias: float | None
    bias_ci_low: float | None
    bias_ci_high: float | None
    kappa_ci_low: float | None
    kappa_ci_high: float | None
    exact_ci_low: float | None
    exact_ci_high: float | None
    alpha_ci_low: float | None
    alpha_ci_high: float | None
    spearman_ci_low: float | None
    spearman_ci_high: float | None
    common_scale: bool
    """Whether A and B score on one scale. When they do not (a 0/1 scorer beside a
    0–3 judge), exact agreement and bias are left out (None): they would compare
    numbers that mean different things; rho, kappa and the confusion still apply."""


@dataclass(frozen=True)
class Corrected:
    """A judge's mean corrected by human labels, prediction-powered
    (results/human.py)."""

    gen_condition_id: str
    grade_condition_id: str
    rater: str
    human_condition_id: str
    n_labelled: int
    n_judged: int
    judge_mean: float | None
    mean: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    method: str
    design: str
    """uniform or active; labels_saved, labels_only_se: see results/active_labels"""
    labels_saved: int
    labels_only_se: float | None


@dataclass(frozen=True)
class PairRow:
    """A pairwise judge's verdicts on one pair of conditions (results/pairwise.py)."""

    grade_condition_id: str
    a: str
    b: str
    n: int
    wins_a: int
    wins_b: int
    ties: int
    win_rate: float | None
    ci_low: float | None
    ci_high: float | None
    flip_rate: float | None
    both_orders: int
    first_position_rate: float | None
    length_corr: float | None
    length_p: float | None
    flags: list[str]
    win_rate_lc: float | None = None
    """A's win rate at equal answer length (stats/length_control.py)."""
    win_rate_lc_ci_low: float | None = None
    win_rate_lc_ci_high: float | None = None


@dataclass(frozen=True)
class Strength:
    """A generate condition's Bradley–Terry strength under one pairwise judge."""

    grade_condition_id: str
    gen_condition_id: str
    strength: float | None
    ci_low: float | None
    ci_high: float | None
    elo: float | None


@dataclass(frozen=True)
class CriterionCell:
    """One criterion of one cell: the mean over items of each item's mean value."""

    gen_condition_id: str
    grade_condition_id: str
    criterion: str
    items: int
    mean: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class CriterionAgreement:
    """Two grade conditions' agreement on one criterion both scored."""

    a: str
    b: str
    criterion: str
    n: int
    exact: float | None
    spearman: float | None
    kappa_quadratic: float | None
    alpha_interval: float | None


_OPTIONAL = ("facet", "level", "source_hash", "class", "a", "b", "p", "p_adjusted")
"""A metric row's keys beyond the nine every row has, in the JSON's order; a row
shows only those it has."""
_PAIRED = ("p", "p_adjusted")
"""Keys an A − B row always has, null when no resample defines the figure."""


@dataclass(frozen=True)
class MetricRow:
    """A global metric (results/metrics.py) of a cell; of a `--by` level (`facet`,
    `level`; no generate condition); or A − B of a `--compare` pair (`a`, `b`, `p`,
    `p_adjusted`).
    `label`: the class of a per-class metric (precision[b]); `source_hash`: a user
    metric's code."""

    gen_condition_id: str | None
    grade_condition_id: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    items: int
    ci_method: str
    facet: str | None = None
    level: Any = None
    source_hash: str | None = None
    label: str | None = None
    a: str | None = None
    b: str | None = None
    p: float | None = None
    """A − B rows: the paired bootstrap's p-value (stats/metric_differences.py)."""
    p_adjusted: float | None = None
    """Holm over the pairs of its grade condition, per metric and class."""

    @property
    def name(self) -> str:
        """precision[b] for a per-class row."""
        return self.metric if self.label is None else f"{self.metric}[{self.label}]"

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> MetricRow:
        return cls(
            **{("label" if k == "class" else k): clean(v) for k, v in row.items()}
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["class"] = data.pop("label")
        return {
            k: v
            for k, v in data.items()
            if k not in _OPTIONAL or v is not None or (k in _PAIRED and self.a)
        }


@dataclass(frozen=True)
class ResultsReport:
    study: str
    reducer: str
    ci_method: str
    cells: tuple[Cell, ...] = ()
    marginals: tuple[Marginal, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    agreement: tuple[AgreementRow, ...] = ()
    calibration: tuple[Calibration, ...] = ()
    corrected: tuple[Corrected, ...] = ()
    """Judge means corrected by human labels (results/human.py)."""
    pairwise: tuple[PairRow, ...] = ()
    strengths: tuple[Strength, ...] = ()
    criteria: tuple[CriterionCell, ...] = ()
    """Per (cell, criterion) of grades with several criteria."""
    criteria_agreement: tuple[CriterionAgreement, ...] = ()
    """Agreement of two grade conditions on each criterion both scored."""
    metrics: tuple[MetricRow, ...] = ()
    """Global metrics per cell and per --by level, when the study declares any."""
    cascades: tuple[Decided, ...] = ()
    """Per cascade cell: how many graded solutions each stage decided."""
    slugs: dict[str, str] = field(default_factory=dict)
    headline: tuple[Headline, ...] = ()
    """Per grade condition: the best generate condition and its lead (headline.py)."""
    cell_facets: dict[str, dict[str, str]] = field(default_factory=dict)
    """Generate condition id -> {facet: level} of the facets that vary (cell_names)."""
    grader_facets: dict[str, dict[str, str]] = field(default_factory=dict)
    """Grade condition id -> {grader, rubric: level} where they vary (cell_names)."""
    scales: dict[str, str] = field(default_factory=dict)
    """Grade condition id -> the scale its scores live on ("0–1", "up to 3"), as read
    from the scores given: what a chart keeps apart on axes of their own."""
    notes: tuple[str, ...] = ()
    """What a reader should know about an empty part (a --by with no levels)."""
    preregistration: dict[str, Any] | None = None
    """The declared analysis in force and its amendments (results/declared.py)."""
    declared: dict[str, tuple[bool, ...]] = field(default_factory=dict)
    """Per row of each figure: declared before the data? (each row's `declared`)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, in the field order above; every row with its `declared`."""
        out = {f.name: _plain(getattr(self, f.name)) for f in fields(self)}
        marks = out.pop("declared")
        for name, rows in out.items():
            for k, row in enumerate(rows if isinstance(rows, list) else ()):
                if isinstance(row, dict):
                    row["declared"] = marks.get(name, ())[k : k + 1] == (True,)
        return clean(out)


def _plain(value: Any) -> Any:
    """A field as plain data: a row by its own `as_dict` where it has one."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return value.as_dict() if hasattr(value, "as_dict") else asdict(value)
    return value


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
