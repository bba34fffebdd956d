"""`itemeval generate --race --top K`: run every condition on items in a seeded random
order, a round at a time, grading each round, and drop a condition once the pairwise
confidence sequences of `stats.racing` show it cannot be in the top K
(docs/guides/racing.md).

Each round is an ordinary generate run and grade run over the items so far for the
conditions still in contention (cells already stored are not re-run), so a race
resumes like any run: re-running the command replays the stored rounds for free and
reaches the same decisions. The race's own manifest (stage `race`) records every
round's survivors and eliminations with their evidence.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Union

import numpy as np

from .. import signals
from ..errors import EXIT_BUDGET, ConfigError, ItemevalError
from ..outcomes import StageResult
from ..plan.budget import check_gate
from ..plan.options import EstimateOptions, GenerateOptions, GradeOptions
from ..records import GradeCondition, Item
from ..stages.estimate import run_estimate
from ..stages.generate import run_generate
from ..stages.grade.stage import run_grade
from ..stages.manifest import Manifest, Started, new_run_id, start_manifest
from ..stages.run import Ask, Tell
from ..stats import racing
from ..study.load import Study
from .race_scores import race_cells, race_scores, racing_condition
from .until_decided import add_usd, item_order

STOPS = ("decided", "items_ran_out", "budget", "interrupted", "failed")
"""Why a race ended: the top K named, every item run, the spend cap reached, a
Ctrl-C, or a round's stage that failed."""


Top = Union[int, Literal["all"]]
"""How many best conditions a race names, or `all`: a full ranking."""


@dataclass(frozen=True)
class RaceOptions:
    top: Top = 1
    alpha: float = 0.05
    max_items: int | None = None
    round_size: int = 20
    seed: int = 0
    yes: bool = False
    max_usd: float | None = None
    display: str = "none"


@dataclass
class RaceResult:
    """Who is still in the race, who left when and on what evidence, and what it
    ran against the full grid."""

    study: str
    conditions: list[str]
    slugs: dict[str, str]
    grade_condition_id: str
    top: Top
    alpha: float
    items_cap: int
    calls_full: int
    usd_full: float | None = None
    alive: list[str] = field(default_factory=list)
    items: dict[str, int] = field(default_factory=dict)
    """Items each condition was asked to run (its prefix of the seeded order)."""
    eliminations: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    stopped: str = "items_ran_out"
    outcome: str = "completed"
    usd: float | None = 0.0
    """What this run spent (a resumed race pays only for cells not yet stored)."""
    calls: int = 0
    """The calls the race's cells hold in the store, whichever run made them."""
    usd_cells: float | None = 0.0
    """What those cells cost."""
    calls_per_item: int = 1
    run_id: str = ""
    manifest: str = ""
    exit_code: int = 0

    @property
    def decided(self) -> bool:
        return self.stopped == "decided"

    @property
    def ranking(self) -> list[str]:
        """`--top all`: the conditions whose place is settled, best first."""
        placed = [e for e in self.eliminations if e.get("rank") is not None]
        return [e["condition"] for e in sorted(placed, key=lambda e: e["rank"])]

    @property
    def winners(self) -> list[str]:
        if not self.decided:
            return []
        return self.ranking if self.top == "all" else list(self.alive)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        share = self.calls / self.calls_full if self.calls_full else math.nan
        data.update(
            decision="decided" if self.decided else "undecided",
            winners=self.winners,
            ranking=self.ranking,
            calls=self.calls,
            calls_saved=self.calls_full - self.calls,
            share_of_full_grid=share,
            usd_saved=None
            if self.usd_full is None or self.usd_cells is None
            else max(self.usd_full - self.usd_cells, 0.0),
        )
        return {k: (None if _nan(v) else v) for k, v in data.items()}


def _nan(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def check(study: Study, options: RaceOptions) -> None:
    """Refuse a race that cannot run, naming the option and the fix."""
    if not 0 < options.alpha < 1:
        raise ConfigError(f"--alpha {options.alpha}: must be in (0, 1), e.g. 0.05")
    if options.round_size < 1:
        raise ConfigError("--round must be at least 1")
    racing_ids = [c.id for c in study.generate if c.kind == "generated"]
    if len(racing_ids) < 2:
        raise ConfigError(
            f"--race: the study has {len(racing_ids)} generate condition(s); a race "
            "needs at least 2 (add models, prompts or model configs to facets)"
        )
    if options.top != "all" and not 1 <= options.top < len(racing_ids):
        raise ConfigError(
            f"--top {options.top}: must be from 1 to {len(racing_ids) - 1} (the study "
            f"has {len(racing_ids)} generate conditions; --top {len(racing_ids)} "
            "would keep them all; --top all ranks them)"
        )


def run_race(
    study: Study, options: RaceOptions, *, ask: Ask | None, tell: Tell | None
) -> RaceResult:
    check(study, options)
    grader = racing_condition(study.grade)
    chosen = [c for c in study.generate if c.kind == "generated"]
    order = item_order(study.items, options.seed, options.max_items)
    ids = tuple(c.id for c in chosen)
    # only the racing grader runs between rounds: the others are priced out
    estimate = _gate(study, options, order, (*ids, grader.id), ask, tell)
    result = RaceResult(
        study=study.config.study,
        conditions=list(ids),
        slugs={c.id: c.slug for c in [*chosen, grader]},
        grade_condition_id=grader.id,
        top=options.top,
        alpha=options.alpha,
        items_cap=len(order),
        calls_full=len(chosen) * len(order) * _calls_per_item(study, grader),
        alive=[c.id for c in chosen],
        items={c.id: 0 for c in chosen},
        calls_per_item=_calls_per_item(study, grader),
        run_id=new_run_id("race"),
    )
    manifest = start_manifest(
        study,
        Started(
            stage="race",
            run_id=result.run_id,
            generate=chosen,
            grade=[grader],
            options=asdict(options),
            estimate=estimate,
        ),
    )
    result.manifest = str(manifest.path)
    # Between rounds a Ctrl-C only sets the stop flag (as in until_decided): raised,
    # it could land in one of inspect's finalizers and be lost.
    with signals.interrupts_as_flag():
        try:
            _rounds(study, options, order, result, manifest, tell)
        except ItemevalError as error:  # e.g. a judge's score off its scale
            manifest.finish("failed", stopped="failed", error=str(error))
            raise
    result.calls, result.usd_cells = race_cells(study, grader, result.items, order)
    result.usd_full = _full_grid_usd(study, order, (*ids, grader.id), result.usd_cells)
    manifest.finish(
        result.outcome,  # type: ignore[arg-type]
        stopped=result.stopped,
        race=result.as_dict(),
    )
    return result


def _calls_per_item(study: Study, grader: GradeCondition) -> int:
    """Model calls one condition spends on one item: its replications, each graded
    `draws` times when a judge decides."""
    judged = grader.draws if grader.is_judge else 0
    return study.replications * (1 + judged)


def _gate(study, options, order, ids, ask, tell) -> dict[str, Any]:
    """One spend gate for the whole race, held against every condition running every
    item."""
    capped = replace(study, items=order)
    estimate = run_estimate(capped, EstimateOptions(conditions=ids))
    if tell is not None:
        tell(f"if nothing leaves the race: {estimate.summary()}")
    check_gate(
        estimate,
        confirm_above=study.config.budget.confirm_above_usd,
        yes=options.yes,
        ask=ask,
    )
    return estimate.as_dict()


def _full_grid_usd(
    study: Study, order: list[Item], ids: tuple[str, ...], cells: float | None
) -> float | None:
    """What every condition on every item of the race would cost: what the race's
    cells cost (`cells`) and the estimate of the grid's cells still unstored,
    projected from the replies the race saw."""
    rest = run_estimate(replace(study, items=order), EstimateOptions(conditions=ids))
    left = rest.total("usd_expected")
    return None if cells is None or left is None else cells + left


def _rounds(
    study, options, order, result: RaceResult, manifest: Manifest, tell: Tell | None
) -> None:
    """Round after round until the top K are named, the items or the budget run
    out, a stage does not complete, or a stop."""
    # the cap holds for the whole race, not for each round's run
    cap = (
        options.max_usd if options.max_usd is not None else study.config.budget.max_usd
    )
    for number, end in enumerate(_ends(len(order), options.round_size), start=1):
        if signals.stop_requested():
            result.stopped, result.outcome = "interrupted", "interrupted"
            result.exit_code = signals.interrupted_exit_code()
            return
        if cap is not None and result.usd is not None and result.usd >= cap:
            result.stopped, result.outcome = "budget", "budget_stopped"
            result.exit_code = EXIT_BUDGET
            return
        left = None if cap is None else max(cap - (result.usd or 0.0), 0.0)
        stage = _round(study, options, order[:end], result, left)
        manifest.data.update(rounds=result.rounds, outcome="running")
        manifest.write()  # a round's own run may have marked this one abandoned
        if stage is not None:
            _stop_on(stage, result)
            return
        _look(study, order[:end], result, number)
        if tell is not None:
            tell(_progress(result))
        manifest.data.update(rounds=result.rounds)
        manifest.write()
        if _decided(result):
            result.stopped = "decided"
            return
    result.stopped = "items_ran_out"


def _progress(result: RaceResult) -> str:
    """The line shown as a round ends: items so far, how many are in, who left."""
    look = result.rounds[-1]
    out = ", ".join(result.slugs[c] for c in look["eliminated"]) or "-"
    return (
        f"round {look['round']} ({look['items']} items): "
        f"{len(look['survivors'])} in; out: {out}"
    )


def _decided(result: RaceResult) -> bool:
    """The top K named (no more than K still in), or every place settled."""
    if result.top == "all":
        return not result.alive
    return len(result.alive) <= result.top


def _ends(items: int, size: int) -> list[int]:
    """The number of items run after each round: size, 2 size, ..., items."""
    return [min(end, items) for end in range(size, items + size, size)]


def _round(
    study: Study,
    options: RaceOptions,
    items: list[Item],
    result: RaceResult,
    left: float | None,
) -> StageResult | None:
    """Generate and grade the items so far for the conditions still in the race; a
    stage that did not complete is returned (and ends the race)."""
    sub = replace(study, items=items)
    common = {"yes": True, "max_usd": left, "display": options.display}
    alive = tuple(result.alive)
    for condition in alive:
        result.items[condition] = len(items)
    generated = run_generate(sub, GenerateOptions(conditions=alive, **common))
    result.usd = add_usd(result.usd, generated)
    if generated.outcome != "completed":
        return generated
    graded = run_grade(
        sub,
        GradeOptions(conditions=(*alive, result.grade_condition_id), **common),
    )
    result.usd = add_usd(result.usd, graded)
    result.rounds.append(
        {
            "items": len(items),
            "runs": [r for r in (generated.run_id, graded.run_id) if r],
        }
    )
    return None if graded.outcome == "completed" else graded


def _stop_on(stage: StageResult, result: RaceResult) -> None:
    """A round's stage that did not complete ends the race with its outcome."""
    result.outcome, result.exit_code = stage.outcome, stage.exit_code
    result.stopped = {"budget_stopped": "budget", "interrupted": "interrupted"}.get(
        stage.outcome, "failed"
    )


def _look(study: Study, items: list[Item], result: RaceResult, number: int) -> None:
    """The pairwise sequences after this round, and who leaves on them."""
    ids = result.conditions
    ran = {c: result.items[c] for c in ids}
    scores = race_scores(study, result.grade_condition_id, ran, items)
    bounds = racing.pair_bounds(scores, result.alpha)
    alive = np.array([c in result.alive for c in ids])
    lower = racing.lower_matrix(bounds, len(ids))
    if result.top == "all":
        out = alive & racing.settled(lower)
    else:
        out = racing.out_of_top(lower, alive, result.top)
    left = [ids[i] for i in np.flatnonzero(out)]
    for condition in left:
        j = ids.index(condition)
        result.eliminations.append(
            {
                "condition": condition,
                "round": number,
                "items": result.items[condition],
                "rank": racing.rank(lower, j) if result.top == "all" else None,
                "beaten_by": _evidence(bounds, ids, j),
                "beats": _evidence(bounds, ids, j, better=True),
            }
        )
    result.alive = [c for c in result.alive if c not in left]
    result.rounds[-1].update(
        round=number,
        survivors=list(result.alive),
        eliminated=left,
        pairs=[_pair_row(b, ids) for b in bounds],
    )


def _evidence(
    bounds: list[racing.PairBound], ids: list[str], j: int, *, better: bool = False
) -> list[dict]:
    """The pairs that show condition j worse than another (or, `better`, better):
    each as (better - worse) with its sequence after its items, the closest call
    first."""
    rows = []
    for b in bounds:
        flipped = racing.PairBound(b.b, b.a, b.items, -b.mean, -b.high, -b.low)
        for pair in (b, flipped):
            if pair.low > 0 and (pair.a if better else pair.b) == j:
                rows.append(_pair_row(pair, ids))
    return sorted(rows, key=lambda row: row["low"])


def _pair_row(bound: racing.PairBound, ids: list[str]) -> dict[str, Any]:
    return {
        "a": ids[bound.a],
        "b": ids[bound.b],
        "items": bound.items,
        "mean": None if math.isnan(bound.mean) else bound.mean,
        "low": bound.low,
        "high": bound.high,
    }
