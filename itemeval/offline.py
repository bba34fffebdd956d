"""Deterministic stand-ins for real providers, served to inspect as the `itemeval/*`
models (README "Built-in offline models").

Solvers (`arith-good`, `arith-fair`, `arith-weak`, any `arith-<name>`) compute the true
answer of the arithmetic problem in the prompt and report it correctly with probability
`correct_probability(...)`. Whether one call is right is a Gaussian-copula draw
`Phi(a*z_item + b*z_cell + c*z_rep) < p`: `z_item` is shared by every model and prompt
(items have a difficulty), `z_cell` is fixed per (model, prompt) and `z_rep` per (model,
prompt, epoch, seed). The weight `c` grows with temperature and is 0 at temperature 0,
so greedy replications repeat exactly. The epoch is read from inspect's active sample
because inspect does not pass it to providers; outside a sample it is 1.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import operator
import os
import re
import secrets
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import NamedTuple

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

try:  # private in inspect 0.3.285; losing it only makes every call epoch 1
    from inspect_ai.log._samples import sample_active
except ImportError:  # pragma: no cover
    sample_active = None

BASE_RATES = {"arith-good": 0.92, "arith-fair": 0.72, "arith-weak": 0.45}
DEFAULT_TEMPERATURE = 1.0  # what OpenAI-style APIs use when none is sent
MODEL_ARGS = {"latency", "fail_rate", "malformed_rate", "scale"}
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


def unit(*parts: object) -> float:
    """A uniform draw in (0, 1) fixed by `parts`."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2**64


_attempts: dict[tuple[str, str, int], int] = {}
_PROCESS_SEED = secrets.token_hex(8)


def _failure_draw(name: str, prompt: str, epoch: int) -> float:
    """A fresh draw for every attempt, as a flaky provider fails: a retry or a re-run
    may succeed.

    Reproducible when ITEMEVAL_OFFLINE_SEED is set (the n-th attempt at a cell draws the
    same), else random per process.
    """
    key = (name, prompt, epoch)
    _attempts[key] = attempt = _attempts.get(key, 0) + 1
    return unit(
        "fail",
        name,
        prompt,
        epoch,
        attempt,
        os.environ.get("ITEMEVAL_OFFLINE_SEED") or _PROCESS_SEED,
    )


def fmt(value: Fraction) -> str:
    """An integer as digits, anything else as a short decimal."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


# --- reading the problem
# ---------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """An arithmetic problem found in a prompt, with its worked steps."""

    span: str
    steps: tuple[
        tuple[str, Fraction], ...
    ]  # ("17 * 23", 391): left-hand side and its value
    hardness: int  # operations, +1 for a number >= 100, +1 for decimals

    @property
    def answer(self) -> Fraction:
        return self.steps[-1][1]


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_APPLY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}
_WORDS = [
    (r"\bmultiplied by\b|\btimes\b|×", "*"),
    (r"\bdivided by\b|÷", "/"),
    (r"\bplus\b", "+"),
    (r"\bminus\b", "-"),
]
_CANDIDATE = re.compile(r"[\d(][\d. \t+\-*/()]*")  # one line at a time
_CHAIN_START = re.compile(r"\bstart(?:ing)? with (\d+(?:\.\d+)?)", re.I)
_CHAIN_STEP = re.compile(
    r"\b(add|plus|subtract|minus|multiply by|times|divide by)\s+(\d+(?:\.\d+)?)", re.I
)
_CHAIN_SYMBOL = {
    "add": "+",
    "plus": "+",
    "subtract": "-",
    "minus": "-",
    "multiply by": "*",
    "times": "*",
    "divide by": "/",
}


def _apply(
    symbol: str, left: Fraction, right: Fraction, steps: list[tuple[str, Fraction]]
) -> Fraction:
    if symbol == "/" and right == 0:
        raise ZeroDivisionError("division by zero in the problem")
    value = _APPLY[symbol](left, right)
    steps.append((f"{fmt(left)} {symbol} {fmt(right)}", value))
    return value


def _evaluate(node: ast.AST, steps: list[tuple[str, Fraction]]) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, steps)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _evaluate(node.left, steps), _evaluate(node.right, steps)
        return _apply(_OPS[type(node.op)], left, right, steps)
    raise ValueError("not plain arithmetic")


def _hardness(steps: list[tuple[str, Fraction]], numbers: list[str]) -> int:
    big = any(abs(float(n)) >= 100 for n in numbers)
    decimal = any("." in n for n in numbers) or any(
        v.denominator != 1 for _, v in steps
    )
    return len(steps) + int(big) + int(decimal)


def _chain_problem(text: str) -> Problem | None:
    """'Start with 36, add 14, then multiply by 3.' evaluated left to right."""
    start = _CHAIN_START.search(text)
    if start is None:
        return None
    tail = text[start.end() :].split("?")[0]
    moves = _CHAIN_STEP.findall(tail)
    if not moves:
        return None
    steps: list[tuple[str, Fraction]] = []
    value = Fraction(start[1])
    try:
        for word, number in moves:
            value = _apply(_CHAIN_SYMBOL[word.lower()], value, Fraction(number), steps)
    except ZeroDivisionError:
        return None
    numbers = [start[1]] + [n for _, n in moves]
    return Problem(
        span=start[0] + tail, steps=tuple(steps), hardness=_hardness(steps, numbers)
    )


def _expression_problem(text: str) -> Problem | None:
    """The candidate expression with the most operations ('12 times 7 plus 5' reads
    as 12 * 7 + 5)."""
    for pattern, symbol in _WORDS:
        text = re.sub(pattern, f" {symbol} ", text, flags=re.I)
    best: Problem | None = None
    for match in _CANDIDATE.finditer(text):
        span = match[0].strip().rstrip(" .+-*/(")
        try:
            steps: list[tuple[str, Fraction]] = []
            _evaluate(ast.parse(span, mode="eval").body, steps)
        except (SyntaxError, ValueError, ZeroDivisionError):
            continue
        if steps and (best is None or len(steps) >= len(best.steps)):
            numbers = re.findall(r"\d+(?:\.\d+)?", span)
            best = Problem(
                span=span, steps=tuple(steps), hardness=_hardness(steps, numbers)
            )
    return best


def find_problem(text: str) -> Problem | None:
    """The arithmetic problem in a prompt, or None when there is none."""
    return _chain_problem(text) or _expression_problem(text)


# --- deciding and writing a solver reply
# -----------------------------------------------------


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
    problem: Problem,
    truth: bool,
    *,
    temperature: float,
    epoch: int,
    seed: int | None,
) -> tuple[str, float]:
    """Reply "1" or "0" and the model's probability of that token: right answers
    tend to be the confident ones."""
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


# --- the judge
# -------------------------------------------------------------------------------

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
_PAIRWISE_FORMAT = '{"winner": "A"'


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


# --- the inspect provider
# --------------------------------------------------------------------


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _setting(
    model_args: dict[str, object],
    key: str,
    env: str,
    default: float,
    *,
    share: bool = False,
) -> float:
    """A model arg, else its environment variable, else the default; a share must lie
    in [0, 1]."""
    raw = model_args.get(key, os.environ.get(env, default))
    try:
        value = float(str(raw))
    except ValueError:
        raise ValueError(
            f"itemeval offline model arg {key} (or ${env}) must be a number, "
            f"not {raw!r}"
        ) from None
    if share and not 0.0 <= value <= 1.0:
        raise ValueError(
            f"itemeval offline model arg {key}={value} must be between 0 and 1"
        )
    return value


class _Settings(NamedTuple):
    latency: float
    fail_rate: float
    malformed_rate: float
    scale: int


def _current_epoch() -> int:
    """The replication of the running sample: itemeval runs one sample per cell and
    says which in metadata."""
    active = sample_active() if sample_active else None
    if active is None:
        return 1
    replication = (active.sample.metadata or {}).get("replication")
    return int(replication) if replication is not None else active.epoch


@modelapi(name="itemeval")
class OfflineModel(ModelAPI):
    """`itemeval/<name>`: arith-*, judge, judge-*, echo (the last user message) and
    fail (always raises)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: object,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if not re.fullmatch(r"arith-[\w.-]+|judge(?:-[\w.-]+)?|echo|fail", model_name):
            raise ValueError(
                f"Unknown offline model itemeval/{model_name}: use arith-*, "
                "judge, judge-*, echo or fail"
            )
        if unknown := sorted(set(model_args) - MODEL_ARGS):
            raise ValueError(
                f"Unknown model args for itemeval/{model_name}: {unknown} "
                f"(known: {sorted(MODEL_ARGS)})"
            )
        self.model_args = model_args
        self._settings()  # refuse bad values now rather than on the first call

    def _settings(self) -> _Settings:
        """Read on every call: inspect reuses model instances, so environment changes
        must still count."""
        args = self.model_args
        return _Settings(
            latency=_setting(args, "latency", "ITEMEVAL_OFFLINE_LATENCY", 0.0),
            fail_rate=_setting(
                args, "fail_rate", "ITEMEVAL_OFFLINE_FAIL_RATE", 0.0, share=True
            ),
            malformed_rate=_setting(
                args,
                "malformed_rate",
                "ITEMEVAL_JUDGE_MALFORMED_RATE",
                0.05,
                share=True,
            ),
            scale=int(_setting(args, "scale", "ITEMEVAL_JUDGE_SCALE", 1)),
        )

    async def count_text_tokens(self, text: str) -> int:
        return _tokens(
            text
        )  # inspect's default needs tiktoken files, which are not available offline

    def _reply(
        self, prompt: str, last_user: str, config: GenerateConfig, epoch: int
    ) -> tuple[str, float | None]:
        """The reply, and the probability of its first token when that token is a 0/1
        answer."""
        name = self.model_name
        settings = self._settings()
        if name == "fail" or (
            settings.fail_rate
            and _failure_draw(name, prompt, epoch) < settings.fail_rate
        ):
            raise RuntimeError(f"itemeval/{name}: injected failure")
        if name == "echo":
            return last_user, None
        if name.startswith("judge") and _PAIRWISE_FORMAT in prompt:
            return pairwise_reply(
                name, prompt, malformed_rate=settings.malformed_rate
            ), None
        if name.startswith("judge"):
            return judge_reply(
                name,
                prompt,
                malformed_rate=settings.malformed_rate,
                scale=settings.scale,
            ), None
        temperature = (
            DEFAULT_TEMPERATURE if config.temperature is None else config.temperature
        )
        if claim := find_claim(last_user):
            return binary_reply(
                name,
                prompt,
                *claim,
                temperature=temperature,
                epoch=epoch,
                seed=config.seed,
            )
        reply = solver_reply(
            name,
            prompt,
            temperature=temperature,
            epoch=epoch,
            seed=config.seed,
            problem_text=last_user,
        )
        return reply, None

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        if (latency := self._settings().latency) > 0:
            await anyio.sleep(latency)
        prompt = "\n\n".join(m.text for m in input)
        last_user = next((m.text for m in reversed(input) if m.role == "user"), prompt)
        epoch = _current_epoch()
        (reply, first_probability), stop = (
            self._reply(prompt, last_user, config, epoch),
            "stop",
        )
        if config.max_tokens is not None and _tokens(reply) > config.max_tokens:
            reply, stop = reply[: config.max_tokens * 4], "max_tokens"
        output = ModelOutput.from_content(
            model=self.model_name, content=reply, stop_reason=stop
        )
        if config.logprobs:
            found = token_logprobs(
                reply,
                (self.model_name, prompt, epoch),
                top=config.top_logprobs,
                first_probability=first_probability,
            )
            output.choices[0].logprobs = Logprobs(
                content=[
                    Logprob(
                        token=token,
                        logprob=logprob,
                        top_logprobs=[
                            TopLogprob(token=t, logprob=lp) for t, lp in tops
                        ],
                    )
                    for token, logprob, tops in found
                ]
            )
        output.usage = ModelUsage(
            input_tokens=_tokens(prompt),
            output_tokens=_tokens(reply),
            total_tokens=_tokens(prompt) + _tokens(reply),
        )
        request = {
            "model": self.model_name,
            "messages": [{"role": m.role, "content": m.text} for m in input],
        }
        request |= {
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "seed": config.seed,
            "epoch": epoch,
        }
        call = ModelCall.create(
            request,
            {"content": reply, "stop_reason": stop, "usage": output.usage.model_dump()},
        )
        return output, call
