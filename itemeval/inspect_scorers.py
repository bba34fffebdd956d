"""inspect-ai's own scorers over stored solutions: a TaskState rebuilt from each row,
inspect's verdict kept whole."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageUser, ModelOutput
from inspect_ai.scorer import (
    Score,
    Target,
    answer,
    choice,
    exact,
    f1,
    includes,
    match,
    multi_scorer,
    pattern,
)
from inspect_ai.scorer._metric import value_to_float
from inspect_ai.solver import TaskState
from inspect_ai.solver._multiple_choice import (
    parse_answers,
    set_choices_based_on_generated_response,
)
from inspect_ai.solver._task_state import Choices
from pydantic import BaseModel, ConfigDict

from .errors import ConfigError
from .scorer_signature import params_model
from .scorers.base import ScoreContext, ScoreResult, ScorerSpec
from .user_scorers import load_user_scorer

CATALOGUE: dict[str, Callable[..., Any]] = {
    "match": match,
    "includes": includes,
    "pattern": pattern,
    "answer": answer,
    "choice": choice,
    "f1": f1,
    "exact": exact,
}
"""inspect-ai's scorers that read only the stored text, its targets and choices, by
their inspect names."""

RULE_VERSION = f"inspect-ai=={metadata.version('inspect-ai')}"
"""The rules of inspect's scorers are those of the installed inspect-ai: a new
version is a new grade condition."""

_MODEL = (
    "itemeval/stored"  # the model name on rebuilt states; the scorers never call it
)
_TO_FLOAT = value_to_float()
_LETTERS = {letter: _TO_FLOAT(letter) for letter in ("C", "I", "P", "N")}


def _memoise_normalisation() -> None:
    """Cache inspect's text normalisers (used by `f1` and `exact`) for the process.

    Both are pure functions of their text: the per-token one (casefold, punctuation,
    number and article rules) sees the same tokens again and again, and the whole-text
    one sees each target twice per grade. Cached, `f1` costs ~8x less with the same
    verdicts. An inspect-ai without these private functions runs uncached.
    """
    from inspect_ai.scorer import _classification

    token = getattr(_classification, "_normalize_token", None)
    if callable(token) and not hasattr(token, "cache_info"):
        _classification._normalize_token = functools.lru_cache(maxsize=1 << 14)(token)
    text = getattr(_classification, "_normalize", None)
    if callable(text) and not hasattr(text, "__wrapped__"):
        _classification._normalize = _cached_text_normaliser(text)


def _cached_text_normaliser(normalize: Callable[..., str]) -> Callable[..., str]:
    @functools.lru_cache(maxsize=4096)
    def cached(text: str, stop_words: tuple[str, ...] | None) -> str:
        return normalize(text, None if stop_words is None else list(stop_words))

    @functools.wraps(normalize)
    def normalize_text(text: str, stop_words: list[str] | None = None) -> str:
        return cached(text, None if stop_words is None else tuple(stop_words))

    return normalize_text


_memoise_normalisation()


# ---- scoring
# --------------------------------------------------------------------------------------


Row = tuple[str, ScoreContext, str, int]
"""One stored solution to score: (its text, its item's context, item id, epoch)."""


class _StoredOutput:
    """What the catalogue's scorers read of `state.output`: the stored text. Cheaper
    than a ModelOutput per row; user scorers, which may read more, get a real
    ModelOutput."""

    __slots__ = ("completion",)

    def __init__(self, completion: str) -> None:
        self.completion = completion


def score_rows(
    scorer: Callable[..., Any],
    rows: Sequence[Row],
    *,
    light_output: bool,
    mark_choices: bool | None = None,
    states: SharedStates | None = None,
) -> list[ScoreResult]:
    """inspect's verdict on every row, in order. `mark_choices`: replay the
    multiple_choice solver's answer parsing first (needed by `choice`), with its
    `multiple_correct` setting. `states`: the rebuilt states to reuse (light_output
    only), kept by the caller across calls of one grade."""
    with _collector_paused():
        return asyncio.run(
            _score_rows(
                scorer,
                rows,
                light_output=light_output,
                mark_choices=mark_choices,
                states={} if states is None else states,
            )
        )


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Scoring allocates a few short-lived objects per row, none in cycles; each
    allocation burst would otherwise trigger collections that walk the whole grade
    (its solutions, items and tables): ~20% of a 100,000-row grade."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


async def _score_rows(
    scorer: Callable[..., Any],
    rows: Sequence[Row],
    *,
    light_output: bool,
    mark_choices: bool | None,
    states: SharedStates,
) -> list[ScoreResult]:
    results: list[ScoreResult] = []
    targets: dict[tuple[str, ...], Target] = {}
    for (
        solution,
        context,
        item_id,
        epoch,
    ) in rows:  # the hot loop of a large grade: kept free of calls it can avoid
        if light_output:
            state = states.get((item_id, context.input)) or _new_shared_state(
                states, solution, context, item_id, epoch
            )
            state.output = _StoredOutput(solution)
            if context.choices:
                state.choices = Choices(
                    list(context.choices)
                )  # fresh marks for this reply
        else:
            state = _state(solution, context, item_id, epoch, light_output=False)
        if mark_choices is not None and state.choices:
            answers = parse_answers(state, mark_choices)
            if answers:
                set_choices_based_on_generated_response(state, answers)
        target = targets.get(context.targets)
        if target is None:
            target = targets[context.targets] = Target(list(context.targets))
        try:
            score = await scorer(state, target)
        except Exception as exc:  # noqa: BLE001 - a scorer's own failure on one row is that row's error
            results.append(
                ScoreResult(
                    score=None,
                    answer=None,
                    parse_error="scorer_error",
                    explanation=f"{type(exc).__name__}: {exc}",
                )
            )
            continue
        results.append(to_result(score, solution))
    return results


SharedStates = dict[tuple[str, str], TaskState]
"""(item id, input) -> the item's rebuilt state, for the catalogue's scorers."""
_SHARED_LIMIT = 20_000
"""Items whose rebuilt state is kept (about 3 KB each)."""


def _new_shared_state(
    states: SharedStates, solution: str, context: ScoreContext, item_id: str, epoch: int
) -> TaskState:
    """One state per item for the catalogue's scorers, which read the output, target
    and choices and change nothing but the choices' marks: building a TaskState costs
    ten times more than scoring it, and an item's state serves every replication,
    generate condition and scorer entry of the grade."""
    if len(states) >= _SHARED_LIMIT:
        # a study this large rebuilds states now and then; memory stays bounded
        states.clear()
    state = states[(item_id, context.input)] = _state(
        solution, context, item_id, epoch, light_output=True
    )
    return state


def _state(
    solution: str,
    context: ScoreContext,
    item_id: str,
    epoch: int,
    *,
    light_output: bool,
) -> TaskState:
    state = TaskState(
        model=_MODEL,
        sample_id=item_id,
        epoch=epoch,
        input=context.input or " ",
        messages=[ChatMessageUser(content=context.input or " ")],
        choices=list(context.choices) or None,
        metadata=dict(context.metadata),
    )
    state.output = (
        _StoredOutput(solution)
        if light_output
        else ModelOutput.from_content(_MODEL, solution)
    )
    return state


def to_result(score: Score | None, solution: str) -> ScoreResult:
    """A ScoreResult keeping inspect's value (as `raw`), answer, explanation and
    metadata.

    Letters and other scalars become floats as inspect's `value_to_float` maps them (C
    1, P 0.5, I 0, N 0). A scorer that declines (None, or inspect's unscored NaN) and a
    list or dict value are failures, not 0.
    """
    if score is None:
        return ScoreResult(
            score=None,
            answer=None,
            parse_error="unscored",
            explanation="the scorer returned no score",
        )
    value = score.value
    if (
        score.metadata is None and not score.reason
    ):  # the usual case: a letter, or a float (f1)
        if isinstance(value, str) and value in _LETTERS:
            return _plain_result(
                _LETTERS[value], value, score.answer, score.explanation, solution
            )
        if type(value) is float and math.isfinite(value):
            return _plain_result(
                value, repr(value), score.answer, score.explanation, solution
            )
    explanation = None if score.explanation == solution else score.explanation
    # The grader's conversation (model-graded scorers) is in the .eval log already; the
    # rest is stored as JSON.
    meta = {
        key: _plain(value)
        for key, value in (score.metadata or {}).items()
        if key != "grading"
    }
    if score.reason:
        meta["reason"] = str(score.reason)
    raw = _raw(value)
    answer = (
        None if score.answer == solution else score.answer
    )  # the whole solution is in the solutions store
    common = {
        "answer": answer,
        "explanation": explanation,
        "raw": raw,
        "metadata": meta or None,
    }
    if isinstance(value, float) and math.isnan(value):
        return ScoreResult(score=None, parse_error="unscored", **common)
    if isinstance(value, dict):
        return _mapping_result(value, common)
    if isinstance(value, list):
        return ScoreResult(score=None, parse_error="score_not_scalar", **common)
    if isinstance(value, str) and not _is_known(value):
        return ScoreResult(score=None, parse_error="score_not_numeric", **common)
    return ScoreResult(score=_TO_FLOAT(value), **common)


def _mapping_result(value: dict, common: dict[str, Any]) -> ScoreResult:
    """A score with several named values (SPEC §20): each kept as a criterion, the score
    is the declared total (`score`/`total`) or their mean."""
    from .criteria import mapping_score

    score, criteria = mapping_score(value)
    if score is None:
        return ScoreResult(score=None, parse_error="criterion_not_numeric", **common)
    metadata = {**(common["metadata"] or {}), "criteria": criteria}
    return ScoreResult(score=score, **{**common, "metadata": metadata})


def _plain_result(
    number: float, raw: str, answer: str | None, explanation: str | None, solution: str
) -> ScoreResult:
    """A plain verdict; the whole solution as answer or explanation is not repeated
    (it is in the solutions store). Verdicts that say nothing but their value are
    shared: one object per value, not one per row."""
    answer = None if answer == solution else answer
    explanation = None if explanation == solution else explanation
    if answer is None and explanation is None:
        shared = _SHARED_RESULTS.get(raw)
        if shared is None:
            shared = ScoreResult(score=number, answer=None, raw=raw)
            if (
                len(_SHARED_RESULTS) < _SHARED_RESULTS_LIMIT
            ):  # a user scorer's floats may take any value
                _SHARED_RESULTS[raw] = shared
        return shared
    return ScoreResult(score=number, answer=answer, explanation=explanation, raw=raw)


_SHARED_RESULTS: dict[str, ScoreResult] = {}
"""raw value -> its plain ScoreResult (frozen): the letters, and f1's values in steps
of 0.01."""
_SHARED_RESULTS_LIMIT = 1024


def _plain(value: Any) -> Any:
    """A JSON-able copy of a metadata value (pydantic models dumped, other objects as
    text)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _raw(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        import json

        return json.dumps(value, default=str)
    return repr(float(value)) if math.isfinite(value) else None


def _is_known(value: str) -> bool:
    """Whether inspect's value_to_float reads the string (it would otherwise log a
    warning and return 0)."""
    lowered = value.lower()
    if value in ("C", "I", "P", "N") or lowered in ("yes", "no", "true", "false"):
        return True
    try:
        return math.isfinite(float(value))
    except ValueError:
        return False


# ---- the registry's entry points
# -----------------------------------------------------------------------------------

_CHOICE_EXTRA = {"multiple_correct": (bool, False)}
"""`choice` scores what inspect's multiple_choice solver parsed from the reply; this
is that solver's setting."""


class _MultiParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    scorers: list[Any]
    reducer: str = "mode"


def spec(name: str, config_dir: Path) -> ScorerSpec:
    """The registry spec of one of inspect's scorers, `multi_scorer`, or a user's
    `module:function` scorer."""
    if name in CATALOGUE:
        extra = _CHOICE_EXTRA if name == "choice" else {}
        return ScorerSpec(
            fn=None,
            params_model=params_model(name, CATALOGUE[name], extra=extra),
            rule_version=RULE_VERSION,
            family="inspect",
            needs=("choices",) if name == "choice" else (),
        )
    if name == "multi_scorer":
        return ScorerSpec(
            fn=None,
            params_model=_MultiParams,
            rule_version=RULE_VERSION,
            family="multi",
        )
    user = load_user_scorer(name, config_dir)
    return ScorerSpec(
        fn=None,
        params_model=params_model(name, user.factory),
        rule_version=f"source:{user.source_hash}",
        family="user",
    )


def check_reducer(reducer: str) -> None:
    from inspect_ai.scorer._reducer.registry import create_reducers

    try:
        create_reducers(reducer)
    except Exception as exc:  # noqa: BLE001 - inspect raises several kinds for an unknown reducer
        raise ConfigError(
            f"scorer 'multi_scorer': unknown reducer {reducer!r} ({exc}); e.g. "
            "mode, mean, max, median"
        ) from None


def build(name: str, params: Mapping[str, Any], config_dir: Path) -> Any:
    """The inspect scorer object for one validated entry."""
    if name in CATALOGUE:
        return CATALOGUE[name](
            **{k: v for k, v in params.items() if k not in _CHOICE_EXTRA}
        )
    if name == "multi_scorer":
        check_reducer(params["reducer"])
        return multi_scorer(
            [build(e["name"], e["params"], config_dir) for e in params["scorers"]],
            params["reducer"],
        )
    if name == "task_scorer":
        from .inspect_dataset import build_task_scorer

        return build_task_scorer(dict(params), config_dir)
    return load_user_scorer(name, config_dir).factory(**params)


def _choice_setting(name: str, params: Mapping[str, Any]) -> bool | None:
    """`multiple_correct` when the entry (or one of multi_scorer's) is `choice`; None
    when none is."""
    if name == "choice":
        return bool(params.get("multiple_correct", False))
    if name == "multi_scorer":
        found = [_choice_setting(e["name"], e["params"]) for e in params["scorers"]]
        return next((f for f in found if f is not None), None)
    return None


def _only_catalogue(name: str, params: Mapping[str, Any]) -> bool:
    if name == "multi_scorer":
        return all(_only_catalogue(e["name"], e["params"]) for e in params["scorers"])
    return name in CATALOGUE


def score_entry(
    name: str,
    params: dict[str, Any],
    rows: Sequence[tuple[str, ScoreContext, str, int]],
    config_dir: Path,
    cache: dict[str, Any] | None = None,
) -> list[ScoreResult]:
    """Score stored solutions with one inspect-family entry; `cache` keeps the
    rebuilt states between calls."""
    scorer = build(name, params, config_dir)
    states = None if cache is None else cache.setdefault("inspect_states", {})
    return score_rows(
        scorer,
        rows,
        light_output=_only_catalogue(name, params),
        mark_choices=_choice_setting(name, params),
        states=states,
    )
