"""The pairwise judge's contract: its conditions, which pairs and orders it asks, and
how a verdict reads."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..hashing import condition_id, sha256_hex
from ..records import GenerateCondition, GradeCondition, Item, Template
from ..scorers.reply_objects import first_object, objects_with, plain
from .judges import judge_identity
from .prompts import placeholders, render

if TYPE_CHECKING:
    from .config import Grader, StudyConfig

DEFAULT_RUBRIC = "builtin:pairwise"
PAIRWISE_FIELDS = ("input", "answer_a", "answer_b", "target", "grading_scheme", "id")
REQUIRED_FIELDS = ("input", "answer_a", "answer_b")
FAILURE_CODES = ("no_json_object", "no_winner", "invalid_winner")
TIE = "tie"

SUFFIX_VERSION = "1"
"""Part of every pairwise condition's identity: bump it whenever SUFFIX changes."""

SUFFIX = """\
## How to reply

Compare the two answers first. Then end your reply with a fenced JSON block, and \
write nothing after it:

```json
{"winner": "A", "reasoning": "<one or two sentences explaining the verdict>"}
```

- `winner` is "A" (the first answer shown), "B" (the second answer shown) or "tie".
- `reasoning` is a JSON string: escape double quotes and backslashes inside it.
"""


def with_suffix(rendered_rubric: str) -> str:
    """A rendered pairwise rubric followed by the verdict format, separated by one blank
    line."""
    return f"{rendered_rubric.rstrip()}\n\n{SUFFIX}"


# ---- conditions ----------------------------------------------------------------------


def is_pairwise(config: StudyConfig, grader_name: str) -> bool:
    """Whether a grader name (under `graders:`) is a pairwise judge; a bare model id
    never is."""
    grader = config.graders.get(grader_name)
    return grader is not None and grader.kind == "pairwise"


def pairwise_condition(
    grader_name: str, grader: Grader, rubric: Template, baseline: str | None
) -> GradeCondition:
    """A pairwise judge's grade condition; `baseline` (a generate condition id) and the
    orders are not in its id: they choose which verdicts to ask, and a verdict means
    the same whichever asked for it."""
    identity = judge_identity(
        grader_name, grader, rubric, suffix_version=SUFFIX_VERSION, kind="pairwise"
    )
    slug, payload, params = identity.slug, identity.payload, identity.params
    return GradeCondition(
        id=condition_id(slug, payload),
        slug=slug,
        kind="pairwise",
        payload=payload,
        grader_name=grader_name,
        grader_model=grader.model,
        rubric=rubric,
        judge_params=params,
        baseline=baseline,
        orders=grader.orders,
    )


def check_rubric(rubric: Template, *, field: str) -> list[str]:
    """Raise when a pairwise rubric lacks a required placeholder; warn about
    unknown-looking ones."""
    present = set(placeholders(rubric.text))
    missing = [name for name in REQUIRED_FIELDS if name not in present]
    if missing:
        need = ", ".join("{" + name + "}" for name in missing)
        raise ConfigError(
            f"{field}: pairwise rubric {rubric.ref!r} ({rubric.path}) "
            f"must contain {need}"
        )
    return [
        f"rubric {rubric.ref!r}: {{{name}}} is not a known pairwise placeholder "
        f"and will be left as is (known: {', '.join(PAIRWISE_FIELDS)})"
        for name in sorted(present - set(PAIRWISE_FIELDS))
    ]


def resolve_baseline(
    grader_name: str, baseline: str | None, generate: list[GenerateCondition]
) -> str | None:
    """The baseline's generate condition id, found by exact id, slug or id prefix."""
    if baseline is None:
        return None
    found = [
        c for c in generate if baseline in (c.id, c.slug) or c.id.startswith(baseline)
    ]
    if len(found) != 1:
        known = ", ".join(c.slug for c in generate)
        raise ConfigError(
            f"graders.{grader_name}.baseline: {baseline!r} names "
            f"{'no' if not found else 'more than one'} generate condition "
            f"(conditions: {known})"
        )
    return found[0].id


# ---- which verdicts to ask -----------------------------------------------------------


def pairs(condition_ids: list[str], baseline: str | None) -> list[tuple[str, str]]:
    """(condition_a, condition_b) with a < b by id: every pair, or the baseline against
    each other one."""
    ids = sorted(set(condition_ids) | ({baseline} if baseline else set()))
    if baseline is None:
        return list(itertools.combinations(ids, 2))
    return [
        (min(baseline, other), max(baseline, other))
        for other in ids
        if other != baseline
    ]


def orders_for(key: tuple[str, str, str, str, int], orders: int) -> tuple[int, ...]:
    """Both orders; or, with `orders: 1`, one order drawn from the pair's key (grade
    condition, a, b, item, epoch), so the same verdict is asked on every machine and
    run, and each position is shown first about half the time."""
    if orders == 2:
        return (1, 2)
    draw = int(sha256_hex("\0".join(map(str, key)))[:8], 16)
    return (1 + draw % 2,)


def shown(order: int, answer_a: str, answer_b: str) -> tuple[str, str]:
    """(first answer shown, second answer shown): order 1 shows A first, order 2 shows B
    first."""
    return (answer_a, answer_b) if order == 1 else (answer_b, answer_a)


def render_prompt(rubric: Template, item: Item, first: str, second: str) -> str:
    """The rubric over one item with the two answers in the positions they are shown,
    plus the format."""
    values = {
        **item.metadata,
        "input": item.input,
        "answer_a": first,
        "answer_b": second,
        "target": item.target,
        "grading_scheme": item.grading_scheme,
        "id": item.id,
    }
    return with_suffix(render(rubric.text, values))


# ---- reading a verdict ---------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What was read from one pairwise reply: the position letter ("A", "B", "tie"), or
    why there is none."""

    position: str | None
    raw: str | None
    """The winner value as the judge wrote it."""
    reasoning: str | None
    parse_error: str | None

    @property
    def parse_ok(self) -> bool:
        return self.parse_error is None


_POSITIONS = {"a": "A", "b": "B", "tie": TIE}


def parse_verdict(text: str | None, quoted: Iterable[str] = ()) -> Verdict:
    """The winner and reasoning of a pairwise reply, read by the pointwise judge's rule
    (`reply_objects.first_object`): the first JSON object with a top-level
    `winner` that is not one of the `quoted` objects of the two answers is the
    verdict, and its winner must be "A", "B" or "tie" (case and spaces aside),
    else `invalid_winner`. When no candidate is left: `no_json_object` (none, or none
    is JSON) or `no_winner`, whichever the last candidate read gave."""
    obj, failure = first_object(
        text, "winner", quoted, invalid="no_json_object", missing="no_winner"
    )
    return _verdict(obj) if obj is not None else Verdict(None, None, None, failure)


def _verdict(obj: dict[str, Any]) -> Verdict:
    reasoning = None if obj.get("reasoning") is None else str(obj["reasoning"])
    value = obj["winner"]
    raw = value if isinstance(value, str) else json.dumps(plain(value))
    position = _POSITIONS.get(value.strip().lower()) if isinstance(value, str) else None
    if position is None:
        return Verdict(None, raw, reasoning, "invalid_winner")
    return Verdict(position, raw, reasoning, None)


def quoted_verdicts(*answers: str) -> list[str]:
    """The JSON objects with a `winner` key in the answers, as canonical JSON: a judge
    quoting one from an answer has not given a verdict."""
    return objects_with("winner", *answers)


def winner_id(position: str | None, order: int, a: str, b: str) -> str | None:
    """The winning condition's id (or "tie") of a position letter: the letter names the
    answer shown there."""
    if position is None or position == TIE:
        return position
    first, second = (a, b) if order == 1 else (b, a)
    return first if position == "A" else second


def verdict_columns(
    text: str | None, order: int, a: str, b: str, quoted: Iterable[str] = ()
) -> dict[str, Any]:
    """The pairwise store's verdict columns of one reply."""
    verdict = parse_verdict(text, quoted)
    return {
        "winner": winner_id(verdict.position, order, a, b),
        "winner_raw": verdict.raw,
        "parse_ok": verdict.parse_ok,
        "parse_error": verdict.parse_error,
        "reasoning": verdict.reasoning,
    }
