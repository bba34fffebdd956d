"""`itemeval plan`: how many items and replications a paired comparison needs to detect
a difference, from the variance of the study's stored (or piloted) grades, each option
priced by the estimate (README "Spending less")."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..plan.options import EstimateOptions
from ..plan.pricing import total_usd
from ..records import GradeCondition
from ..stages.estimate import run_estimate
from ..stages.run import Ask, Tell
from ..stats import power
from ..stats.power import DEFAULT_REPLICATIONS
from ..study.grid import pick_condition
from ..study.load import Study

METHODS = {
    "paired_t": "paired t-test on item means (noncentral t, as statsmodels TTestPower)",
    "mcnemar": "McNemar test, one replication of 0/1 scores (Connor 1987 closed form)",
}


@dataclass(frozen=True)
class PlanOptions:
    detect: float
    power: float = 0.8
    alpha: float = 0.05
    compare: tuple[str, ...] = ()
    pilot: int | None = None
    seed: int = 0
    replications: tuple[int, ...] = DEFAULT_REPLICATIONS
    yes: bool = False
    max_usd: float | None = None


@dataclass
class PlanReport:
    study: str
    detect: float
    power: float
    alpha: float
    a: str
    b: str
    grade_condition_id: str
    design: dict[str, Any]
    options: list[dict[str, Any]]
    recommended: dict[str, Any] | None
    available_items: int
    usd_per_cell: float | None
    methods: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    slugs: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def deciding_condition(
    grade: list[GradeCondition], *, verifiable_only: bool
) -> GradeCondition:
    """The grade condition whose scores decide: the first verifiable one of `grade`
    (else, when allowed, the first one)."""
    verifiable = [c for c in grade if c.is_verifiable]
    if verifiable:
        return verifiable[0]
    if verifiable_only or not grade:
        raise ConfigError(
            "facets.scorer: add a verifiable scorer (e.g. numeric); its scores decide, "
            "and judges are not used for that"
        )
    return grade[0]


def score_matrix(
    frame: pd.DataFrame, condition_id: str, items: list[str]
) -> np.ndarray:
    """items x replications scores of one generate condition (NaN where missing)."""
    own = frame[frame["gen_condition_id"] == condition_id]
    wide = own.pivot_table(index="item_id", columns="epoch", values="score")
    return wide.reindex(items).to_numpy(dtype=float)


def plan_study(
    study: Study, options: PlanOptions, *, ask: Ask | None, tell: Tell | None
) -> PlanReport:
    """The options and the recommended one, after an optional pilot run."""
    if not 0 < options.power < 1 or not 0 < options.alpha < 1:
        raise ConfigError("--power and --alpha must be in (0, 1)")
    if not math.isfinite(options.detect) or options.detect == 0:
        raise ConfigError(
            f"--detect {options.detect}: the difference in mean score to detect, a "
            "finite number other than 0 (e.g. 0.05 for 5 points of accuracy)"
        )
    grader = deciding_condition(study.grade, verifiable_only=False)
    pairs = _pairs(study, options.compare)
    if options.pilot is not None:
        _pilot(study, options, sorted({c for p in pairs for c in p}), grader, ask, tell)
    items = [item.id for item in study.items]
    (a, b), design = _hardest_stored(study, pairs, grader, items, options.detect)
    per_cell = _usd_per_cell(study, (a, b), grader)
    found = power.options(
        design,
        options.detect,
        power=options.power,
        alpha=options.alpha,
        replications=options.replications,
        supply=power.Supply(usd_per_cell=per_cell, available=len(items)),
    )
    best = power.recommended(found)
    return PlanReport(
        study=study.config.study,
        detect=options.detect,
        power=options.power,
        alpha=options.alpha,
        a=a,
        b=b,
        grade_condition_id=grader.id,
        design=_design_dict(design),
        options=[asdict(o) for o in found],
        recommended=asdict(best) if best else None,
        available_items=len(items),
        usd_per_cell=per_cell,
        methods={o.method: METHODS[o.method] for o in found},
        notes=_notes(design, len(pairs), found),
        slugs={c.id: c.slug for c in [*study.generate, grader]},
    )


def _hardest_stored(
    study: Study,
    pairs: list[tuple[str, str]],
    grader: GradeCondition,
    items: list[str],
    detect: float,
) -> tuple[tuple[str, str], power.PairedDesign]:
    """The design of each pair from its stored grades, and the one needing most items
    (see `_hardest`); a ConfigError unless both are graded on 2 items or more, or
    when `detect` is wider than the scores' scale."""
    from ..results.cells import graded_frame

    frame = graded_frame(study, [grader])
    frame = frame[frame["status"] == "scored"]
    designs = {
        pair: power.paired_design(
            score_matrix(frame, pair[0], items), score_matrix(frame, pair[1], items)
        )
        for pair in pairs
    }
    pair, design = _hardest(designs)
    _check_detect(frame, grader, detect)
    if design.items < 2:
        raise ConfigError(
            "plan needs stored grades of both conditions on at least 2 items: run "
            "generate and grade first, or add --pilot N"
        )
    return pair, design


def _check_detect(frame: pd.DataFrame, grader: GradeCondition, detect: float) -> None:
    """A difference no two means on the grader's scale can have (0.5 of 0/1 scores is
    possible, 1.5 is not) makes every power figure meaningless."""
    from ..stats.scale_intervals import grade_scales

    scale = grade_scales(frame).get(grader.id)
    if scale is not None and abs(detect) >= scale[1] - scale[0]:
        raise ConfigError(
            f"--detect {detect}: {grader.slug} scores from {scale[0]:g} to "
            f"{scale[1]:g}, so two means differ by less than {scale[1] - scale[0]:g}"
        )


def _pairs(study: Study, compare: tuple[str, ...]) -> list[tuple[str, str]]:
    if compare:
        if len(compare) != 2:
            raise ConfigError("--compare: name two generate conditions")
        pair = (
            pick_condition(study.generate, compare[0], "--compare"),
            pick_condition(study.generate, compare[1], "--compare"),
        )
        if pair[0] == pair[1]:
            raise ConfigError(
                f"--compare {compare[0]} {compare[1]}: name two different generate "
                "conditions"
            )
        return [pair]
    if len(study.generate) < 2:
        raise ConfigError("plan compares two generate conditions; the study has one")
    return [(a.id, b.id) for a, b in combinations(study.generate, 2)]


def _hardest(designs: dict) -> tuple[tuple[str, str], power.PairedDesign]:
    """Without --compare: the pair whose difference varies most (needs most items)."""

    def spread(design: power.PairedDesign) -> float:
        value = design.difference_variance(1)
        return value if design.items >= 2 and math.isfinite(value) else -1.0

    return max(designs.items(), key=lambda kv: spread(kv[1]))


def _pilot(
    study: Study,
    options: PlanOptions,
    conditions: list[str],
    grader: GradeCondition,
    ask: Ask | None,
    tell: Tell | None,
) -> None:
    """Generate and grade `pilot` random items of the compared conditions (kept)."""
    from ..plan.options import GenerateOptions, GradeOptions
    from ..stages.generate import run_pilot
    from ..stages.grade.stage import run_grade

    common = {"yes": options.yes, "max_usd": options.max_usd, "seed": options.seed}
    gen = GenerateOptions(conditions=tuple(conditions), pilot=options.pilot, **common)
    ran = run_pilot(study, gen, study.items, ask=ask, tell=tell)
    if ran.exit_code:
        raise ConfigError(f"the pilot's generate ended {ran.outcome}: nothing planned")
    graded = run_grade(
        study,
        GradeOptions(conditions=(*conditions, grader.id), **common),
        ask=ask,
        tell=tell,
    )
    if graded.exit_code:
        raise ConfigError(f"the pilot's grade ended {graded.outcome}: nothing planned")


def _usd_per_cell(
    study: Study, pair: tuple[str, str], grader: GradeCondition
) -> float | None:
    """Projected spend of one (item, replication) of both conditions, both stages:
    the price of a cell never run, so calls the response cache answers (the study's
    own, once it ran) count at their uncached price; more items and replications
    than were ever run cannot be in any cache."""
    estimate = run_estimate(
        study, EstimateOptions(conditions=(*pair, grader.id), force=True, stage="all")
    )
    if estimate.unpriced_models():
        return None
    total = total_usd(
        line.usd_uncached_expected if line.cached else line.usd_expected
        for line in estimate.lines
    )
    cells = max(len(study.items) * study.replications, 1)
    return None if total is None else total / cells


def _design_dict(design: power.PairedDesign) -> dict[str, Any]:
    return {
        "items": design.items,
        "a": asdict(design.a),
        "b": asdict(design.b),
        "correlation": design.correlation,
        "binary": design.binary,
        "discordant": design.discordant,
        "difference_sd": math.sqrt(design.difference_variance(1)),
    }


def _notes(design: power.PairedDesign, pairs: int, found: list) -> list[str]:
    notes = []
    if pairs > 1:
        notes.append(
            f"no --compare: planned for the pair of the {pairs} that varies most"
        )
    if design.items < 30:
        notes.append(
            f"the variances come from {design.items} items: a larger pilot "
            "(--pilot N) makes these numbers firmer"
        )
    if not any(o.feasible for o in found):
        notes.append("no option fits the study's items: add items or replications")
    return notes
