"""`itemeval generate --until-decided A B`: run two conditions on items in a seeded
random order, a round at a time, grading each round and stopping once the confidence
sequence of `stats.sequential` decides (README "Spending less").

Each round is an ordinary generate run and grade run over the items so far (cells
already stored are not re-run), so everything run is kept like any run and resumes like
one. The loop's own manifest (stage `sequential`) records the decision, the items run,
the bounds and every round's run ids.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .. import signals
from ..errors import ConfigError
from ..outcomes import StageResult
from ..plan.budget import check_gate
from ..plan.options import EstimateOptions, GenerateOptions, GradeOptions
from ..records import GenerateCondition, Item
from ..stages.estimate import run_estimate
from ..stages.generate import run_generate
from ..stages.grade.stage import run_grade
from ..stages.manifest import Started, new_run_id, start_manifest
from ..stages.run import Ask, Tell
from ..stats import intervals as stats
from ..stats import sequential
from ..study.grid import pick_condition
from ..study.load import Study
from .sizing import deciding_condition


@dataclass(frozen=True)
class SequentialOptions:
    pair: tuple[str, str]
    alpha: float = 0.05
    margin: float | None = None
    max_items: int | None = None
    round_size: int = 20
    seed: int = 0
    yes: bool = False
    max_usd: float | None = None
    display: str = "none"


@dataclass
class SequentialResult:
    """What the loop decided, after how many items, with the bounds at the last look."""

    study: str
    a: str
    b: str
    grade_condition_id: str
    decision: str = "undecided"
    items_run: int = 0
    items_cap: int = 0
    cs_low: float = -1.0
    cs_high: float = 1.0
    mean: float = math.nan
    fixed_low: float = math.nan
    fixed_high: float = math.nan
    outcome: str = "completed"
    run_id: str = ""
    manifest: str = ""
    rounds: list[dict[str, Any]] = field(default_factory=list)
    usd: float | None = 0.0
    exit_code: int = 0

    @property
    def items_saved(self) -> int:
        """Items a decision spared: none while undecided (the answer still needs
        them) or stopped."""
        if self.decision == "undecided" or self.outcome != "completed":
            return 0
        return self.items_cap - self.items_run

    def as_dict(self) -> dict[str, Any]:
        data = {**asdict(self), "items_saved": self.items_saved}
        return {k: (None if _nan(v) else v) for k, v in data.items()}


def _nan(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def item_order(items: list[Item], seed: int, cap: int | None) -> list[Item]:
    """The items in a random order fixed by `seed`, the first `cap` of them."""
    order = np.random.default_rng(seed).permutation(len(items))
    chosen = [items[i] for i in order]
    return chosen[:cap] if cap is not None else chosen


def check(options: SequentialOptions) -> None:
    if not 0 < options.alpha < 1:
        raise ConfigError("--alpha must be in (0, 1)")
    if options.margin is not None and options.margin <= 0:
        raise ConfigError("--margin must be positive")
    if options.round_size < 1:
        raise ConfigError("--round must be at least 1")


def run_until_decided(
    study: Study, options: SequentialOptions, *, ask: Ask | None, tell: Tell | None
) -> SequentialResult:
    check(options)
    grader = deciding_condition(study.grade, verifiable_only=True)
    a, b = _pair(study.generate, options.pair)
    order = item_order(study.items, options.seed, options.max_items)
    result = SequentialResult(study.config.study, a, b, grader.id, items_cap=len(order))
    estimate = _gate(study, options, order, (a, b), ask, tell)
    chosen = [c for c in study.generate if c.id in (a, b)]
    result.run_id = new_run_id("sequential")
    manifest = start_manifest(
        study,
        Started(
            stage="sequential",
            run_id=result.run_id,
            generate=chosen,
            grade=[grader],
            options=asdict(options),
            estimate=estimate,
        ),
    )
    result.manifest = str(manifest.path)
    # Between rounds a Ctrl-C only sets the stop flag: raised as KeyboardInterrupt it
    # could land in a finalizer (inspect's weakref callbacks), be printed and lost,
    # and the loop would run on to a decision.
    with signals.interrupts_as_flag():
        _rounds(study, options, order, result, manifest)
    if result.rounds:
        _fixed(_scores(study, result), result, order)
    manifest.finish(
        result.outcome,  # type: ignore[arg-type]
        decision=result.decision,
        items_run=result.items_run,
        bounds={"cs_low": result.cs_low, "cs_high": result.cs_high},
        sequential=result.as_dict(),
    )
    return result


def _rounds(study, options, order, result: SequentialResult, manifest) -> None:
    """Round after round until a decision, the cap, a stage that did not complete or
    a stop."""
    for end in range(
        options.round_size, len(order) + options.round_size, options.round_size
    ):
        if signals.stop_requested():
            result.outcome = "interrupted"
            result.exit_code = signals.interrupted_exit_code()
            return
        stage = _round(study, options, order[: min(end, len(order))], result)
        manifest.data.update(rounds=result.rounds, outcome="running")
        manifest.write()  # a round's own run may have marked this one abandoned
        if stage is not None or result.decision != "undecided":
            return


def _pair(
    conditions: list[GenerateCondition], pair: tuple[str, str]
) -> tuple[str, str]:
    """The ids of the two generate conditions --until-decided names."""
    a = pick_condition(conditions, pair[0], "--until-decided")
    b = pick_condition(conditions, pair[1], "--until-decided")
    if a == b:
        raise ConfigError("--until-decided: name two different generate conditions")
    return a, b


def _gate(
    study: Study,
    options: SequentialOptions,
    order: list[Item],
    pair: tuple[str, str],
    ask: Ask | None,
    tell: Tell | None,
) -> dict[str, Any]:
    """One spend gate for the whole loop, held against running every item of the cap."""
    capped = replace(study, items=order)
    estimate = run_estimate(capped, EstimateOptions(conditions=pair, stage="generate"))
    if tell is not None:
        tell(f"if it never decides: {estimate.summary()}")
    check_gate(
        estimate,
        confirm_above=study.config.budget.confirm_above_usd,
        yes=options.yes,
        ask=ask,
    )
    return estimate.as_dict()


def _round(
    study: Study,
    options: SequentialOptions,
    items: list[Item],
    result: SequentialResult,
) -> StageResult | None:
    """Generate and grade the items so far, then look; a stage that did not complete
    is returned (and ends the loop)."""
    sub = replace(study, items=items)
    spent = result.usd or 0.0
    cap = None if options.max_usd is None else max(options.max_usd - spent, 0.0)
    common = {"yes": True, "max_usd": cap, "display": options.display}
    generated = run_generate(
        sub, GenerateOptions(conditions=(result.a, result.b), **common)
    )
    result.usd = add_usd(result.usd, generated)
    runs = [generated.run_id]
    if _stopped(generated, result):
        return generated
    graded = run_grade(
        sub,
        GradeOptions(
            conditions=(result.a, result.b, result.grade_condition_id), **common
        ),
    )
    runs.append(graded.run_id)
    if _stopped(graded, result):
        return graded
    found = sequential.look(
        differences(_scores(study, result), result, items),
        options.alpha,
        options.margin,
    )
    result.decision, result.items_run = found.decision, found.items
    result.cs_low, result.cs_high, result.mean = found.low, found.high, found.mean
    result.rounds.append(
        {**asdict(found), "items_asked": len(items), "runs": [r for r in runs if r]}
    )
    return None


def _stopped(stage: StageResult, result: SequentialResult) -> bool:
    """Whether a round's stage did not complete, which ends the loop with its
    outcome."""
    if stage.outcome == "completed":
        return False
    result.outcome, result.exit_code = stage.outcome, stage.exit_code
    return True


def add_usd(total: float | None, stage: StageResult) -> float | None:
    spent = [c.usd for c in stage.conditions]
    if total is None or any(u is None for u in spent):
        return None
    return total + sum(spent)


def _scores(study: Study, result: SequentialResult) -> pd.DataFrame:
    """The stored scores of the deciding grade condition (results.graded_frame)."""
    from ..results.cells import graded_frame

    grade = [c for c in study.grade if c.id == result.grade_condition_id]
    frame = graded_frame(study, grade)
    return frame[frame["status"] == "scored"]


def differences(
    frame: pd.DataFrame, result: SequentialResult, items: list[Item]
) -> np.ndarray:
    """A - B item scores (replications averaged) of items both have, in run order;
    `frame` holds the deciding condition's scores (`_scores`)."""
    from .sizing import score_matrix

    ids = [item.id for item in items]
    d = _item_means(score_matrix(frame, result.a, ids)) - _item_means(
        score_matrix(frame, result.b, ids)
    )
    return d[~np.isnan(d)]


def _item_means(scores: np.ndarray) -> np.ndarray:
    counts = (~np.isnan(scores)).sum(axis=1)
    return np.where(
        counts > 0, np.nansum(scores, axis=1) / np.maximum(counts, 1), np.nan
    )


def _fixed(frame: pd.DataFrame, result: SequentialResult, order: list[Item]) -> None:
    """The fixed-n paired t interval on the same items, for comparison; `frame` holds
    the deciding condition's scores."""
    if not result.rounds:
        return
    d = differences(frame, result, order[: result.rounds[-1]["items_asked"]])
    interval = stats.t_interval(d)
    result.fixed_low, result.fixed_high = interval.ci_low, interval.ci_high


def latest(study: Study, a: str, b: str) -> dict[str, Any] | None:
    """The last finished sequential run of this pair (either order), from manifests."""
    found = None
    for path in sorted(study.paths.manifests.glob("*-sequential-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        run = data.get("sequential") or {}
        if {run.get("a"), run.get("b")} == {a, b}:
            found = run
    return found


_SWAP = {"a_better": "b_better", "b_better": "a_better"}


def with_sequential(study: Study, data: dict[str, Any]) -> dict[str, Any]:
    """`results --json` with its `sequential` list when there are comparisons (the
    console, the JSON and `itemeval.frames` all show the same lists)."""
    if not data.get("comparisons"):
        return data
    return {**data, "sequential": beside_comparisons(study, data["comparisons"])}


def beside_comparisons(
    study: Study, comparisons: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """For `results --compare A B`: each comparison's last sequential run, oriented as
    A - B, beside the fixed-n interval on every item now stored."""
    rows = []
    for row in comparisons:
        run = latest(study, row["a"], row["b"])
        if run is None or run["grade_condition_id"] != row["grade_condition_id"]:
            continue
        if run["a"] != row["a"]:  # the run compared B - A: turn it round
            run = {
                **run,
                "a": row["a"],
                "b": row["b"],
                "decision": _SWAP.get(run["decision"], run["decision"]),
                **_negated(run, "cs_low", "cs_high"),
                **_negated(run, "fixed_low", "fixed_high"),
            }
        rows.append(
            {
                **run,
                "all_low": row["ci_low"],
                "all_high": row["ci_high"],
                "fixed_items": row["n"],
            }
        )
    return rows


def _negated(run: dict[str, Any], low: str, high: str) -> dict[str, Any]:
    flip = lambda v: None if v is None else -v  # noqa: E731
    return {low: flip(run[high]), high: flip(run[low])}
