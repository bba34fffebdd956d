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

import math
import os
import secrets
from typing import Any, NamedTuple

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

from ...study.offline_models import is_known
from ..compat import sample_active
from . import agent
from .arithmetic import find_problem
from .draws import unit
from .judge import PAIRWISE_FORMAT, judge_reply, pairwise_reply
from .solver import (
    binary_reply,
    find_claim,
    is_correct,
    solver_reply,
    token_logprobs,
)

DEFAULT_TEMPERATURE = 1.0  # what OpenAI-style APIs use when none is sent
MODEL_ARGS = {"latency", "fail_rate", "malformed_rate", "scale"}

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
    active = sample_active()
    if active is None:
        return 1
    replication = (active.sample.metadata or {}).get("replication")
    return int(replication) if replication is not None else active.epoch


@modelapi(name="itemeval")
class OfflineModel(ModelAPI):
    """`itemeval/<name>`: arith-good, arith-fair, arith-weak, arith-NN, judge,
    judge-*, echo (the last user message) and fail (always raises)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: object,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if not is_known(model_name):
            raise ValueError(
                f"Unknown offline model itemeval/{model_name}: use arith-good, "
                "arith-fair, arith-weak, arith-NN, judge, judge-*, echo or fail"
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
        # inspect's default needs tiktoken files, which are not available offline
        return _tokens(text)

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
        if name.startswith("judge"):
            return _judge_reply(name, prompt, settings), None
        return _solver_reply(name, prompt, last_user, config, epoch)

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
        if tools and self.model_name.startswith("arith"):
            acted = self._act(input, tools, config, epoch)
            if acted is not None:
                return acted
        reply, first_probability = self._reply(prompt, last_user, config, epoch)
        stop = "stop"
        if config.max_tokens is not None and _tokens(reply) > config.max_tokens:
            reply, stop = reply[: config.max_tokens * 4], "max_tokens"
        output = ModelOutput.from_content(
            model=self.model_name, content=reply, stop_reason=stop
        )
        if config.logprobs:
            output.choices[0].logprobs = _logprobs(
                reply, (self.model_name, prompt, epoch), config, first_probability
            )
        output.usage = ModelUsage(
            input_tokens=_tokens(prompt),
            output_tokens=_tokens(reply),
            total_tokens=_tokens(prompt) + _tokens(reply),
        )
        response = {
            "content": reply,
            "stop_reason": stop,
            "usage": output.usage.model_dump(),
        }
        return output, _model_call(self.model_name, input, config, epoch, response)

    def _act(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        config: GenerateConfig,
        epoch: int,
    ) -> tuple[ModelOutput, ModelCall] | None:
        """A tool user's next move (offline/agent.py), None when it has no tool to
        use; like every reply, a pure function of the conversation."""
        turns = [agent.turn_of(message) for message in input]
        problem_text = next(
            (
                t.text
                for t in reversed(turns)
                if t.role == "user" and find_problem(t.text)
            ),
            "",
        )
        problem = find_problem(problem_text)
        temperature = (
            DEFAULT_TEMPERATURE if config.temperature is None else config.temperature
        )
        right = problem is not None and is_correct(
            self.model_name,
            problem_text,
            problem,
            temperature=temperature,
            epoch=epoch,
            seed=config.seed,
        )
        key = (self.model_name, problem_text, epoch, config.seed)
        action = agent.next_action(
            turns, [agent.offer_of(t) for t in tools], right=right, key=key
        )
        if action is None:
            return None
        if action.tool is None:
            output = ModelOutput.from_content(
                model=self.model_name, content=action.text
            )
        else:
            output = ModelOutput.for_tool_call(
                model=self.model_name,
                tool_name=action.tool,
                tool_arguments=action.arguments,
                tool_call_id=f"call_{len(turns)}",
                content=action.text,
            )
        sent = "\n\n".join(m.text for m in input)
        output.usage = ModelUsage(
            input_tokens=_tokens(sent),
            output_tokens=_tokens(action.text) + 8,
            total_tokens=_tokens(sent) + _tokens(action.text) + 8,
        )
        response = {"content": action.text, "tool": action.tool, "epoch": epoch}
        return output, _model_call(self.model_name, input, config, epoch, response)


def _model_call(
    model: str,
    input: list[ChatMessage],
    config: GenerateConfig,
    epoch: int,
    response: dict[str, Any],
) -> ModelCall:
    """The call as a provider's would be logged: the messages, the config, the
    replication."""
    request = {
        "model": model,
        "messages": [{"role": m.role, "content": m.text} for m in input],
    }
    request |= {
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "seed": config.seed,
        "epoch": epoch,
    }
    return ModelCall.create(request, response)


def _judge_reply(name: str, prompt: str, settings: _Settings) -> str:
    """A judge's verdict: on a pair of solutions, or on one."""
    if PAIRWISE_FORMAT in prompt:
        return pairwise_reply(name, prompt, malformed_rate=settings.malformed_rate)
    return judge_reply(
        name, prompt, malformed_rate=settings.malformed_rate, scale=settings.scale
    )


def _solver_reply(
    name: str, prompt: str, last_user: str, config: GenerateConfig, epoch: int
) -> tuple[str, float | None]:
    """A solver's reply: a 0/1 answer to a true-or-false claim, else a worked
    solution."""
    temperature = (
        DEFAULT_TEMPERATURE if config.temperature is None else config.temperature
    )
    if claim := find_claim(last_user):
        return binary_reply(
            name, prompt, claim, temperature=temperature, epoch=epoch, seed=config.seed
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


def _logprobs(
    reply: str,
    key: tuple[str, str, int],
    config: GenerateConfig,
    first_probability: float | None,
) -> Logprobs:
    """Made-up logprobs for the reply's tokens, drawn from `key`."""
    found = token_logprobs(
        reply, key, top=config.top_logprobs, first_probability=first_probability
    )
    return Logprobs(
        content=[
            Logprob(
                token=token,
                logprob=logprob,
                top_logprobs=[TopLogprob(token=t, logprob=lp) for t, lp in tops],
            )
            for token, logprob, tops in found
        ]
    )
