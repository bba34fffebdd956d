"""inspect-ai's own scorers over stored solutions: a TaskState rebuilt from each row,
inspect's verdict kept whole."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageUser, ModelOutput
from inspect_ai.scorer import (
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
from inspect_ai.solver import Choices, TaskState

from ..errors import ConfigError
from ..scorers.base import ScoreContext, ScoreResult, ScorerSpec
from ..scorers.inspect_params import inspect_rule_version
from ..scorers.signature import params_model
from ..scorers.user import load_user_scorer
from . import compat
from .verdicts import to_result

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

RULE_VERSION = inspect_rule_version()

_MODEL = (
    "itemeval/stored"  # the model name on rebuilt states; the scorers never call it
)


compat.memoise_text_normalisers()


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
    # the hot loop of a large grade: states and targets reused across its rows
    for solution, context, item_id, epoch in rows:
        if light_output:
            state = _reused_state(states, solution, context, item_id, epoch)
        else:
            state = _state(solution, context, item_id, epoch, light_output=False)
        if mark_choices is not None and state.choices:
            answers = compat.parse_answers(state, mark_choices)
            if answers:
                compat.mark_choices(state, answers)
        target = targets.get(context.targets)
        if target is None:
            target = targets[context.targets] = Target(list(context.targets))
        try:
            score = await scorer(state, target)
        # a scorer's own failure on one row is that row's error
        except Exception as exc:  # noqa: BLE001 - the reason above
            results.append(_scorer_error(exc))
            continue
        results.append(to_result(score, solution))
    return results


def _reused_state(
    states: SharedStates,
    solution: str,
    context: ScoreContext,
    item_id: str,
    epoch: int,
) -> TaskState:
    """The item's shared state, given this reply as its output (and its options
    unmarked again)."""
    state = states.get((item_id, context.input)) or _new_shared_state(
        states, solution, context, item_id, epoch
    )
    state.output = _StoredOutput(solution)
    if context.choices:
        state.choices = Choices(list(context.choices))  # fresh marks for this reply
    return state


NEEDS_SANDBOX = (
    "this scorer reads the sandbox the answer was made in (a task scorer that runs "
    "code or reads files there); grading replays stored answers without a live "
    "sandbox, so it cannot run here: score such tasks with a scorer or judge that "
    "reads the answer (or {transcript})"
)


def _scorer_error(exc: Exception) -> ScoreResult:
    """The result of a row whose scorer raised; one that asked for a sandbox says
    why there is none."""
    explanation = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ProcessLookupError) and "sandbox" in str(exc):
        explanation = f"{NEEDS_SANDBOX} ({explanation})"
    return ScoreResult(
        score=None,
        answer=None,
        parse_error="scorer_error",
        explanation=explanation,
    )


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


# ---- the registry's entry points
# -----------------------------------------------------------------------------------


_CHOICE_EXTRA = ("multiple_correct",)
"""`choice`'s param that is the multiple_choice solver's, not the scorer's."""


def spec(name: str, config_dir: Path) -> ScorerSpec:
    """The registry spec of a user's `module:function` scorer (inspect's own are
    declared in scorers.inspect_params)."""
    user = load_user_scorer(name, config_dir)
    return ScorerSpec(
        fn=None,
        params_model=params_model(name, user.factory),
        rule_version=f"source:{user.source_hash}",
        family="user",
    )


def check_reducer(scorer: str, reducer: str) -> None:
    """Refuse a reducer the installed inspect-ai does not know, when the config
    loads."""
    try:
        compat.create_reducers(reducer)
    # inspect raises several kinds for an unknown reducer
    except Exception as exc:  # noqa: BLE001 - the reason above
        hint = (
            " ('majority' is inspect-ai 0.3.262's and later's: set `reducer: mode`, "
            "or pip install 'inspect-ai>=0.3.262,<0.4')"
            if reducer == "majority"
            else ""
        )
        raise ConfigError(
            f"scorer {scorer!r}: unknown reducer {reducer!r} ({exc}){hint}; e.g. "
            "mode, mean, max, median"
        ) from None


def build(name: str, params: Mapping[str, Any], config_dir: Path) -> Any:
    """The inspect scorer object for one validated entry."""
    if name in CATALOGUE:
        return CATALOGUE[name](
            **{k: v for k, v in params.items() if k not in _CHOICE_EXTRA}
        )
    if name == "multi_scorer":
        check_reducer(name, params["reducer"])
        return multi_scorer(
            [build(e["name"], e["params"], config_dir) for e in params["scorers"]],
            params["reducer"],
        )
    if name == "task_scorer":
        from .dataset import build_task_scorer

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
