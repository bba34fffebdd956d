"""Cascade grade conditions: cheap verifiable scorers first, a judge only on the
solutions they leave undecided (README "A judge only where the scorers cannot decide").

The semantics are inspect-ai's `cascade()` scorer (inspect_ai/scorer/_cascade.py):
stages run in order and the first whose verdict *settles* the solution decides it; a
stage that could not read the solution (a failure code such as `no_number_found` or
`ambiguous_answer`, inspect's unscored) is skipped; when no stage settles, the last
stage that gave a real score decides; the row records the deciding stage as
`decided_by` in `score_metadata`, the key inspect uses. One default differs, because
the point here is to pay a judge only for what the scorers cannot read: with no
`threshold` every real score settles, so the judge sees exactly the solutions each
earlier stage failed to read. `threshold: 1.0` is inspect's default (only a correct
verdict settles; an incorrect one is judged again).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..hashing import canonical_json, condition_id, slug_part
from ..records import GradeCondition, Item
from ..scorers import ScoreContext, ScoreResult
from ..scorers.reference import with_reference
from ..scorers.registry import canonical_name, resolve, score_many
from .config import ScorerEntry
from .grid import verifiable_conditions
from .judges import judge_condition, resolve_grader
from .pairwise import is_pairwise
from .prompts import load_template

if TYPE_CHECKING:
    from .config import LoadedConfig

NAME = "cascade"
"""The `facets.scorer` entry name of a cascade."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeStage(_Strict):
    grader: str = Field(min_length=1)
    """A name under `graders:` or a model id (as in `facets.grader`)."""
    rubric: str | None = None
    """The judge's rubric, resolved like `facets.rubric`; default: the study's one
    rubric when `facets.rubric` lists exactly one."""


class CascadeParams(_Strict):
    first: list[Union[str, ScorerEntry]] = Field(min_length=1)
    """Verifiable scorers, cheapest first (entries as in `facets.scorer`)."""
    then: Union[str, JudgeStage]
    """The judge asked about what `first` leaves undecided: a grader, or
    `{grader, rubric}`."""
    threshold: float | None = None
    """A real score settles when it is at least this; none: every real score
    settles."""


def is_cascade(entry: str | ScorerEntry) -> bool:
    name = entry if isinstance(entry, str) else entry.name
    return canonical_name(name) == NAME


# ---- conditions ----------------------------------------------------------------------


def cascade_conditions(loaded: LoadedConfig) -> list[GradeCondition]:
    """One grade condition per `{name: cascade}` entry of `facets.scorer`."""
    scorer = loaded.config.facets.scorer
    entries = [scorer] if isinstance(scorer, str) else list(scorer or [])
    conditions = [
        # a bare `cascade` has no stages: its params' validation says what to add
        cascade_condition(
            loaded, ScorerEntry(name=entry) if isinstance(entry, str) else entry, index
        )
        for index, entry in enumerate(entries)
        if is_cascade(entry)
    ]
    ids = [c.id for c in conditions]
    if len(set(ids)) != len(ids):
        raise ConfigError("facets.scorer: a cascade appears twice; list each once")
    return conditions


def cascade_condition(
    loaded: LoadedConfig, entry: ScorerEntry, index: int
) -> GradeCondition:
    where = f"facets.scorer[{index}] (cascade)"
    params = _cascade_params(entry, where)
    stages = _first_stages(loaded, params.first, where)
    judge = _judge_stage(loaded, params.then, where)
    names = [stage_name(s) for s in stages] + [judge.grader_name]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: stage names repeat: {names}")
    payload = {
        "cascade": {
            "first": [s.payload for s in stages],
            "then": judge.payload,
            **({"threshold": params.threshold} if params.threshold is not None else {}),
        }
    }
    slug = f"cascade_{'-'.join(slug_part(n) for n in names[:-1])}_{judge.slug}"
    return GradeCondition(
        id=condition_id(slug, payload),
        slug=slug,
        kind="cascade",
        payload=payload,
        grader_name=judge.grader_name,
        grader_model=judge.grader_model,
        rubric=judge.rubric,
        judge_params=judge.judge_params,
        scorer=NAME,
        scorer_params={"threshold": params.threshold},
        stages=tuple(stages),
    )


def _cascade_params(entry: ScorerEntry, where: str) -> CascadeParams:
    """The entry's params, validated; the problems named for the user otherwise."""
    try:
        return CascadeParams.model_validate(entry.params)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'params'}: {e['msg']}"
            for e in exc.errors()
        )
        raise ConfigError(
            f"{where}: {problems} (params: first: [scorers], then: {{grader, "
            "rubric}, threshold)"
        ) from None


def _first_stages(
    loaded: LoadedConfig, first: list[str | ScorerEntry], where: str
) -> list[GradeCondition]:
    """The verifiable conditions of `first`, built exactly as `facets.scorer` builds
    them, so a stage's identity is the scorer's own."""
    config = loaded.config
    entries = [ScorerEntry(name=e) if isinstance(e, str) else e for e in first]
    if any(is_cascade(e) for e in entries):
        raise ConfigError(f"{where}: a cascade cannot be a stage of another")
    facets = config.facets.model_copy(update={"scorer": entries})
    alone = config.model_copy(update={"facets": facets})
    try:
        stages = verifiable_conditions(alone, loaded.config_dir)
    except ConfigError as exc:
        raise ConfigError(
            f"{where}: {str(exc).replace('facets.scorer', 'first')}"
        ) from None
    for stage in stages:
        if not stage.is_verifiable:
            raise ConfigError(
                f"{where}: first stage {stage.scorer!r} calls a model; a cascade's "
                "first stages are verifiable scorers (the judge goes under `then`)"
            )
        if "logprobs" in resolve(stage.scorer, loaded.config_dir).needs:
            raise ConfigError(
                f"{where}: first stage {stage.scorer!r} reads logprobs; a cascade's "
                "first stages read the solution's text"
            )
    return stages


def _judge_stage(
    loaded: LoadedConfig, then: str | JudgeStage, where: str
) -> GradeCondition:
    stage = JudgeStage(grader=then) if isinstance(then, str) else then
    config = loaded.config
    if is_pairwise(config, stage.grader):
        raise ConfigError(f"{where}: then: {stage.grader!r} is a pairwise judge")
    try:
        grader = resolve_grader(stage.grader, config.graders)
    except ConfigError as exc:
        raise ConfigError(f"{where}: then: {exc}") from None
    ref = stage.rubric or _only_rubric(config.facets.rubric, where)
    folder = loaded.input_path(config.rubrics_dir)
    rubric = load_template(ref, "rubric", folder, field=f"{where}.then")
    return judge_condition(stage.grader, grader, rubric)


def _only_rubric(rubrics: list[str], where: str) -> str:
    if len(rubrics) != 1:
        raise ConfigError(
            f"{where}: then: name its rubric ({{grader, rubric}}): facets.rubric "
            f"lists {len(rubrics)}"
        )
    return rubrics[0]


def stage_name(stage: GradeCondition) -> str:
    """A first stage's name in `decided_by`: its scorer slug without `scorer_`."""
    return stage.slug.removeprefix("scorer_")


def judge_name(condition: GradeCondition) -> str:
    return condition.grader_name or "judge"


# ---- the decision rule (pure) --------------------------------------------------------


def settles(result: ScoreResult, threshold: float | None) -> bool:
    """Whether a stage's verdict decides the solution: a real score (not a failure
    code, not NaN) at least `threshold` (any, without one)."""
    if result.parse_error is not None or result.score is None:
        return False
    if math.isnan(result.score):
        return False
    return threshold is None or result.score >= threshold


def is_scored(result: ScoreResult) -> bool:
    return result.score is not None and not math.isnan(result.score)


@dataclass
class Trail:
    """What the stages said about one solution so far."""

    said: dict[str, float | str] = field(default_factory=dict)
    """stage -> its score, or its failure code: kept in score_metadata `stages`."""
    last_scored: tuple[str, ScoreResult] | None = None
    decided: tuple[str, ScoreResult] | None = None

    def add(self, stage: str, result: ScoreResult, threshold: float | None) -> None:
        self.said[stage] = (
            result.score if is_scored(result) else (result.parse_error or "unscored")
        )
        if is_scored(result):
            self.last_scored = (stage, result)
        if settles(result, threshold):
            self.decided = (stage, result)


def decide(
    verdicts: Sequence[tuple[str, ScoreResult]], threshold: float | None = None
) -> Trail:
    """The trail of the first stages' verdicts on one solution, stopping at the first
    that settles (`trail.decided`; None: the judge is asked)."""
    trail = Trail()
    for stage, result in verdicts:
        trail.add(stage, result, threshold)
        if trail.decided:
            break
    return trail


def metadata(existing: str | None, decided_by: str | None, said: dict[str, Any]) -> str:
    """score_metadata with `decided_by` (absent when no stage gave a verdict) and
    every stage's score or failure code."""
    values = _loads(existing)
    if decided_by is not None:
        values["decided_by"] = decided_by
    values["stages"] = said
    return canonical_json(values)


def decided_by(score_metadata: str | None) -> str | None:
    """The deciding stage a cascade's grade row names (None: no stage decided)."""
    return _loads(score_metadata).get("decided_by")


def _loads(text: str | None) -> dict[str, Any]:
    return dict(json.loads(text)) if text else {}


# ---- the first stages over stored solutions ------------------------------------------


def run_first(
    condition: GradeCondition,
    solutions: Sequence[tuple[str, Item, int]],
    context_of: Callable[[Item], ScoreContext],
    config_dir: Path | None,
    cache: dict[str, Any] | None = None,
) -> list[Trail]:
    """Each (solution, item, epoch)'s trail through the first stages; a stage scores
    only the solutions the stages before it left undecided, as inspect's cascade
    short-circuits."""
    threshold = condition.scorer_params.get("threshold")
    trails = [Trail() for _ in solutions]
    open_ = list(range(len(solutions)))
    for stage in condition.stages:
        if not open_:
            break
        rows = [
            (
                solutions[i][0],
                with_reference(
                    context_of(solutions[i][1]), solutions[i][1], stage.reference
                ),
                solutions[i][1].id,
                solutions[i][2],
            )
            for i in open_
        ]
        results = score_many(
            stage.scorer, stage.scorer_params, rows, config_dir, cache=cache
        )
        for i, result in zip(open_, results):
            trails[i].add(stage_name(stage), result, threshold)
        open_ = [i for i in open_ if trails[i].decided is None]
    return trails


def decided_row(row: dict[str, Any], trail: Trail) -> dict[str, Any]:
    """A grade row built from the deciding stage's verdict, with the trail in
    score_metadata."""
    stage, _ = trail.decided or (None, None)
    return {
        **row,
        "score_metadata": metadata(row.get("score_metadata"), stage, trail.said),
    }


def judged_row(
    condition: GradeCondition, row: dict[str, Any], trail: Trail | None
) -> dict[str, Any]:
    """A judge's grade row of a cascade: `decided_by` the judge when it gave a real
    score; when it did not, the last earlier stage with a real score decides (its
    verdict replaces the judge's parse failure); a call error stays an error (the next
    run asks again)."""
    trail = trail or Trail()
    if row.get("error") is not None:
        return row
    judge = judge_name(condition)
    said = {**trail.said}
    if row.get("parse_ok"):
        said[judge] = row["score"]
        return {
            **row,
            "score_metadata": metadata(row.get("score_metadata"), judge, said),
        }
    said[judge] = row.get("parse_error")
    if trail.last_scored is None:
        return {
            **row,
            "score_metadata": metadata(row.get("score_metadata"), None, said),
        }
    stage, result = trail.last_scored
    return {
        **row,
        "score": result.score,
        "score_raw": result.answer if result.raw is None else result.raw,
        "parse_ok": True,
        "parse_error": None,
        "answer": result.answer,
        "explanation": result.explanation,
        "score_metadata": metadata(_result_metadata(result), stage, said),
    }


def _result_metadata(result: ScoreResult) -> str | None:
    return canonical_json(dict(result.metadata)) if result.metadata else None


def cascades(conditions: Iterable[GradeCondition]) -> list[GradeCondition]:
    return [c for c in conditions if c.is_cascade]
