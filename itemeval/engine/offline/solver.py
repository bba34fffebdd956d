"""The replies of the offline solver models (`arith-*`), as pure functions: whether
a call is right, its worked steps, a yes/no claim's 0/1 answer and plausible logprobs.

Whether one call is right is a Gaussian-copula draw `Phi(a*z_item + b*z_cell +
c*z_rep) < p` (see `offline`'s docstring); every draw is a hash of its key, so the
same call always gets the same reply.
"""

from __future__ import annotations

import math
import operator
import re
from fractions import Fraction
from statistics import NormalDist

from .arithmetic import Problem, find_problem, fmt
from .draws import unit

BASE_RATES = {"arith-good": 0.92, "arith-fair": 0.72, "arith-weak": 0.45}
_NORMAL = NormalDist()
_REASONING_CUE = re.compile(
    r"step[- ]by[- ]step|show (?:your )?work|think carefully", re.I
)
_OPENERS = (
    "Let me work through this.",
    "I'll solve it step by step.",
    "Breaking the problem down:",
    "Let's compute carefully.",
)


def base_rate(model: str) -> float:
    """The model's accuracy before item, prompt and temperature effects; `arith-80`
    means 0.80."""
    if model in BASE_RATES:
        return BASE_RATES[model]
    if digits := re.fullmatch(r"arith-(\d{1,2})", model):
        return int(digits[1]) / 100
    return round(0.35 + 0.55 * unit("base-rate", model), 2)


def correct_probability(
    model: str, prompt: str, problem: Problem, temperature: float
) -> float:
    """Chance that `model` answers `problem` correctly under this prompt and
    temperature."""
    rate = base_rate(model) + 0.06 - 0.04 * (problem.hardness - 1)
    rate += 0.03 if _REASONING_CUE.search(prompt) else 0.0
    rate += 0.04 * (unit("wording", prompt.replace(problem.span, "")) - 0.5)
    rate -= 0.06 * min(max(temperature, 0.0), 2.0)
    return min(max(rate, 0.02), 0.99)


def is_correct(
    model: str,
    prompt: str,
    problem: Problem,
    *,
    temperature: float,
    epoch: int,
    seed: int | None,
) -> bool:
    """One deterministic draw against `correct_probability` (see the module
    docstring)."""
    noise = 0.6 * min(max(temperature, 0.0), 1.0)
    z = math.sqrt((1 - noise) / 2) * _NORMAL.inv_cdf(unit("item", problem.steps))
    z += math.sqrt((1 - noise) / 2) * _NORMAL.inv_cdf(unit("cell", model, prompt))
    z += math.sqrt(noise) * _NORMAL.inv_cdf(unit("rep", model, prompt, epoch, seed))
    return _NORMAL.cdf(z) < correct_probability(model, prompt, problem, temperature)


def _slip(answer: Fraction, key: tuple[object, ...]) -> Fraction:
    """A plausible wrong answer: a small offset or a dropped carry."""
    offsets = (
        (-10, -2, -1, 1, 2, 10)
        if answer.denominator == 1
        else (Fraction(-1, 2), Fraction(1, 2), 1)
    )
    return answer + offsets[int(unit("slip", *key) * len(offsets))]


_CLAIM = re.compile(
    r"\bis\s+(?P<expr>[^?]+?)\s+(?P<op>greater than|more than|less than|equal "
    r"to|at least|at most)"
    r"\s+(?P<number>-?\d+(?:\.\d+)?)",
    re.I,
)
_BINARY_CUE = re.compile(r"\b(?:0 or 1|1 or 0)\b|\b1 if\b.*\b0\b", re.I | re.S)
_COMPARE = {
    "greater than": operator.gt,
    "more than": operator.gt,
    "less than": operator.lt,
    "equal to": operator.eq,
    "at least": operator.ge,
    "at most": operator.le,
}


def find_claim(text: str) -> tuple[Problem, bool] | None:
    """A yes/no arithmetic claim asked for as 0 or 1 ("Is 17 * 23 greater than 400?
    Answer 1 or 0."), with its truth."""
    if not _BINARY_CUE.search(text):
        return None
    claim = _CLAIM.search(text)
    problem = find_problem(claim["expr"]) if claim else None
    if problem is None:
        return None
    return problem, bool(
        _COMPARE[claim["op"].lower()](problem.answer, Fraction(claim["number"]))
    )


def binary_reply(
    model: str,
    prompt: str,
    claim: tuple[Problem, bool],
    *,
    temperature: float,
    epoch: int,
    seed: int | None,
) -> tuple[str, float]:
    """Reply "1" or "0" to a claim (its problem, and whether it holds) and the
    model's probability of that token: right answers tend to be the confident
    ones."""
    problem, truth = claim
    key: tuple[object, ...] = (
        (model, prompt, epoch, seed) if temperature > 0 else (model, prompt)
    )
    good = is_correct(
        model, prompt, problem, temperature=temperature, epoch=epoch, seed=seed
    )
    said = truth if good else not truth
    spread = unit("confidence", *key)
    confidence = 0.62 + 0.37 * spread if good else 0.51 + 0.3 * spread
    return ("1" if said else "0"), confidence


_TOKEN = re.compile(r"\s?\w+|\s?[^\w\s]|\n")
_FILLERS = (
    " the",
    ".",
    " a",
    "\n",
    " is",
    ",",
    " to",
    " of",
    " and",
    " in",
    " it",
    ":",
    " I",
    " that",
    " for",
    " this",
    " we",
    " so",
    " be",
    " on",
)


def token_logprobs(
    text: str,
    key: tuple[object, ...],
    *,
    top: int | None,
    first_probability: float | None = None,
    tokens: int = 32,
) -> list[tuple[str, float, list[tuple[str, float]]]]:
    """Deterministic, plausible logprobs of a reply's first tokens: (token, logprob, top
    alternatives).

    A binary answer ("0"/"1") puts the rest of its probability on the other label first,
    so a risk scorer reads a real two-way split. `top` alternatives include the token
    itself, as OpenAI's do.
    """
    found = []
    for index, token in enumerate(_TOKEN.findall(text)[:tokens]):
        p = (
            first_probability
            if index == 0 and first_probability is not None
            else 0.55 + 0.44 * unit("lp", *key, index)
        )
        others = (
            [("0" if token.strip() == "1" else "1", (1 - p) * 0.97)]
            if token.strip() in ("0", "1")
            else []
        )
        rest = 1 - p - sum(q for _, q in others)
        others += [
            (filler, rest * 0.5 ** (n + 1))
            for n, filler in enumerate(f for f in _FILLERS if f != token)
        ]
        alternatives = sorted([(token, p), *others], key=lambda pair: -pair[1])[
            : top or 0
        ]
        found.append((token, math.log(p), [(t, math.log(q)) for t, q in alternatives]))
    return found


def solver_reply(
    model: str,
    prompt: str,
    *,
    temperature: float,
    epoch: int = 1,
    seed: int | None = None,
    problem_text: str | None = None,
) -> str:
    """Worked steps ending in `ANSWER: <n>`, right or plausibly wrong; the problem is
    read from `problem_text`."""
    # Greedy decoding repeats itself, so at temperature 0 the text may not depend on the
    # epoch.
    key: tuple[object, ...] = (
        (model, prompt, epoch, seed) if temperature > 0 else (model, prompt)
    )
    problem = find_problem(prompt if problem_text is None else problem_text)
    if problem is None:
        return "I could not find an arithmetic problem to solve.\nANSWER: 0"
    good = is_correct(
        model, prompt, problem, temperature=temperature, epoch=epoch, seed=seed
    )
    final = problem.answer if good else _slip(problem.answer, key)
    values = [value for _, value in problem.steps[:-1]] + [final]
    lines = [_OPENERS[int(unit("opener", *key) * len(_OPENERS))]]
    lines += [
        f"Step {i}: {lhs} = {fmt(v)}"
        for i, ((lhs, _), v) in enumerate(zip(problem.steps, values), 1)
    ]
    if unit("check", *key) < 0.5:
        lines.append(f"Checking the last step again gives {fmt(final)}.")
    return "\n".join(lines + [f"ANSWER: {fmt(final)}"])
