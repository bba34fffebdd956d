"""A prompt as a chat: an optional system message and few-shot turns before the item.

A prompt file may open with YAML front matter between two `---` lines:

    ---
    system: You are a careful arithmetic tutor.
    shots:
      - user: What is 1 + 1?
        assistant: "ANSWER: 2"
    ---
    Q: {input}

Every part is rendered with the same placeholders as the body. The front matter is part
of the file, so of the prompt's content hash: adding a system message or a shot changes
the condition id, and a prompt without front matter keeps the id it always had.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from ..errors import ConfigError
from ..records import Template
from ..yaml_text import load_yaml
from .prompts import placeholders, render

FENCE = "---"
KEYS = ("system", "shots")
ROLES = ("user", "assistant")

Message = tuple[str, str]  # (role, text): role is system, user or assistant


@dataclass(frozen=True)
class ChatTemplate:
    """A prompt file split into its front matter's parts and its body."""

    system: str | None
    shots: tuple[tuple[str, str], ...]
    body: str

    @property
    def parts(self) -> list[str]:
        """Every text that is rendered: system, each shot's turns, then the body."""
        turns = [text for shot in self.shots for text in shot]
        return [*([self.system] if self.system else []), *turns, self.body]


def split(text: str, *, where: str = "prompt") -> ChatTemplate:
    """The front matter of `text`, checked; a text without it is all body."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != FENCE:
        return ChatTemplate(None, (), text)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise ConfigError(f"{where}: front matter opened by `---` is never closed")
    try:
        meta = load_yaml("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: front matter is not valid YAML: {exc}") from None
    return ChatTemplate(
        _system(meta, where), _shots(meta, where), "\n".join(lines[end + 1 :])
    )


def _system(meta: object, where: str) -> str | None:
    if not isinstance(meta, dict):
        raise ConfigError(f"{where}: front matter must be a mapping of {KEYS}")
    unknown = sorted(set(map(str, meta)) - set(KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown front matter key(s) {', '.join(unknown)}; "
            f"known: {', '.join(KEYS)}"
        )
    system = meta.get("system")
    if system is not None and not isinstance(system, str):
        raise ConfigError(f"{where}: system must be text")
    return system


def _shots(meta: dict, where: str) -> tuple[tuple[str, str], ...]:
    shots = meta.get("shots") or []
    if not isinstance(shots, list):
        raise ConfigError(f"{where}: shots must be a list of {{user, assistant}}")
    turns = []
    for index, shot in enumerate(shots):
        if (
            not isinstance(shot, dict)
            or sorted(shot) != sorted(ROLES)
            or not all(isinstance(shot[role], str) for role in ROLES)
        ):
            raise ConfigError(
                f"{where}: shots[{index}] must have exactly user and assistant, "
                "each text"
            )
        turns.append((shot["user"], shot["assistant"]))
    return tuple(turns)


def render_chat(
    text: str, values: Mapping[str, object], *, limit: int | None = None
) -> list[Message]:
    """The messages one item is sent: system, shots, then the item's own turn; with
    `limit`, each message is refused past it (prompts.PromptTooLong)."""
    chat = split(text)
    turns: list[Message] = []
    if chat.system:
        turns.append(("system", chat.system))
    for user, assistant in chat.shots:
        turns += [("user", user), ("assistant", assistant)]
    turns.append(("user", chat.body))
    return [(role, render(turn, values, limit=limit)) for role, turn in turns]


def as_text(messages: list[Message]) -> str:
    """A chat as a person reads it; a single user turn is shown as it is."""
    if len(messages) == 1:
        return messages[0][1]
    return "\n\n".join(f"[{role}]\n{text.rstrip()}" for role, text in messages)


def check_prompt(template: Template, *, field: str) -> None:
    """Refuse bad front matter, and a prompt whose item turn lacks `{input}` (shots may
    show examples, but the item itself must reach the model)."""
    where = f"{field}: prompt {template.ref!r} ({template.path})"
    body = split(template.text, where=where).body
    if "input" not in placeholders(body):
        raise ConfigError(f"{where} must contain {{input}} after its front matter")
