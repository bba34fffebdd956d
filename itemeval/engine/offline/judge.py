"""The offline judges' replies: a verdict on a solution's final answer (pointwise,
with criteria when the rubric asks for them) or on which of two answers is right."""

from __future__ import annotations

import json
import math
import re

from .draws import unit

_FINAL = re.compile(r"ANSWER:[ \t]*([^\n]*)", re.I)
_REFERENCE = re.compile(
    r"(?:\b(?:reference(?:[ \t]+(?:answer|solution))?|target(?:[ "
    r"\t]+answer)?|(?:expected|correct|gold)[ \t]+answer)"
    # inspect's model_graded_qa / model_graded_fact templates
    r"|\[(?:criterion|expert)\])"
    r"[ \t*_]*(?:[:=]|\n)\s*([^\n]+)",
    re.I,
)
_GRADE_PROTOCOL = re.compile(r"GRADE: \$LETTER")
_SUBMISSION = re.compile(r"^\[Submission\]:[ \t]*(\S[^\n]*)\n(?:\*+|\[)", re.M)


def _number(text: str) -> float | None:
    cleaned = text.strip().strip("*_`$ ").rstrip(".").replace(",", "").rstrip("%")
    try:
        return float(cleaned)
    except ValueError:
        return None


def _same(candidate: str, reference: str) -> bool:
    a, b = _number(candidate), _number(reference)
    if a is not None and b is not None:
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return (
        candidate.strip().strip("*_`").rstrip(".").casefold()
        == reference.strip().strip("*_`").rstrip(".").casefold()
    )


def judge_verdict(model: str, text: str) -> tuple[int, str]:
    """1 when the last `ANSWER:` equals the reference line, else 0, with a one-line
    reason."""
    finals = [m[1].strip() for m in _FINAL.finditer(text) if m[1].strip()]
    numeric = [f for f in finals if _number(f) is not None]
    # A one-line submission in inspect's model-graded template is the answer itself.
    submitted = [m[1].strip() for m in _SUBMISSION.finditer(text)]
    candidate = (numeric or finals or submitted or [None])[-1]
    # An empty `{target}` leaves the next heading where the reference should be: that is
    # no reference.
    reference = next(
        (m for m in _REFERENCE.finditer(text) if not m[1].lstrip().startswith("#")),
        None,
    )
    if candidate is None or reference is None:
        # Nothing to compare: still answer, but deterministically, like a judge
        # guessing.
        return int(
            unit("guess", model, text) < 0.5
        ), "Could not find both a final answer and a reference."
    ref = reference[1].strip()
    if _same(candidate, ref):
        return 1, f"The final answer {candidate} matches the reference {ref}."
    return 0, f"The final answer {candidate} does not match the reference {ref}."


def judge_reply(model: str, text: str, *, malformed_rate: float, scale: int = 1) -> str:
    """A short review ending in a fenced JSON verdict, malformed for a `malformed_rate`
    share of inputs.

    Asked in inspect's model-graded protocol (`GRADE: $LETTER`), it ends with `GRADE: C`
    or `GRADE: I` instead.
    """
    score, reason = judge_verdict(model, text)
    lines = ["I compared the candidate's final answer with the reference.", reason]
    if _GRADE_PROTOCOL.search(text):
        malformed = unit("malformed", model, text) < malformed_rate
        return "\n".join(
            lines
            + [
                "I cannot settle on a grade."
                if malformed
                else f"GRADE: {'C' if score else 'I'}"
            ]
        )
    if unit("malformed", model, text) < malformed_rate:
        kind = int(unit("malformed-kind", model, text) * 3)
        if kind == 0:  # no JSON object at all
            return "\n".join(lines + [f"Score: {score * scale} out of {scale}."])
        payload: dict[str, object] = {
            "verdict": "correct" if score else "incorrect",
            "reasoning": reason,
        }
        if kind == 2:  # a score that is not a number
            payload = {"score": "pass" if score else "fail", "reasoning": reason}
    else:
        payload = {"score": score * scale, "reasoning": reason}
        asked = _CRITERIA_ASKED.search(text)
        if asked is not None:
            payload = _with_criteria(payload, model, text, asked[1], scale)
    return "\n".join(lines + ["", "```json", json.dumps(payload), "```"])


_PAIRWISE_ANSWER = re.compile(
    r"\[The start of answer ([AB])\]\n(.*?)\n?\[The end of answer \1\]", re.S
)
PAIRWISE_FORMAT = '{"winner": "A"'


def pairwise_reply(model: str, text: str, *, malformed_rate: float) -> str:
    """A pairwise verdict (builtin:pairwise's layout): the answer whose final answer
    matches the reference wins, both or neither is a tie; decided by content alone,
    so the order shown never changes it."""
    answers = dict(_PAIRWISE_ANSWER.findall(text))
    head = text[: text.find("[The start of answer")]
    if set(answers) == {"A", "B"}:
        score_a = judge_verdict(model, f"{head}\n{answers['A']}")[0]
        score_b = judge_verdict(model, f"{head}\n{answers['B']}")[0]
        winner = "tie" if score_a == score_b else ("A" if score_a > score_b else "B")
    else:  # another layout: still answer, deterministically, like a judge guessing
        winner = "AB"[unit("pairwise-guess", model, text) < 0.5]
    reason = (
        f"Answer {winner} has the correct final answer."
        if winner != "tie"
        else ("Both answers are equally good.")
    )
    if unit("malformed", model, text) < malformed_rate:
        return f"{reason}\nI prefer {winner}."
    payload = json.dumps({"winner": winner, "reasoning": reason})
    return "\n".join([reason, "", "```json", payload, "```"])


_CRITERIA_ASKED = re.compile(r'"criteria": \{((?:"[\w-]+": <number>(?:, )?)+)\}')


def _with_criteria(
    payload: dict[str, object], model: str, text: str, asked: str, scale: int
) -> dict[str, object]:
    """A verdict per criterion the rubric's format suffix names: mostly the overall
    verdict, deterministically off for about one criterion in four; the total is their
    sum, as a rubric with points per criterion adds them up."""
    verdict = 1 if payload["score"] else 0
    criteria = {}
    for name in re.findall(r'"([\w-]+)": <number>', asked):
        off = unit("criterion", name, model, text) < 0.25
        criteria[name] = (1 - verdict if off else verdict) * scale
    return {
        "score": sum(criteria.values()),
        "criteria": criteria,
        "reasoning": payload["reasoning"],
    }
