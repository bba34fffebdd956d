"""Find, hash, check and render prompt and rubric templates, local or packaged
(`builtin:`)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Literal, Mapping

from ..errors import ConfigError
from ..hashing import content_hash
from ..records import Template
from ..textfiles import read_utf8

BUILTIN_PREFIX = "builtin:"
_TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A `{name}` right after a LaTeX command, its earlier groups, `^` or `_` (`\frac{a}{b}`,
# `x^{n}`) is maths.
_MATH_BEFORE = re.compile(r"(\\[A-Za-z]+(\{[^{}]*\})*|[\^_])$")

PROMPT_FIELDS = ("input", "id")
RUBRIC_FIELDS = (
    "input",
    "solution",
    "target",
    "grading_scheme",
    "id",
    "transcript",
)
REQUIRED = {"prompt": ("input",), "rubric": ("input", "solution")}

Kind = Literal["prompt", "rubric"]


def builtin_names(kind: Kind) -> list[str]:
    folder = resources.files("itemeval") / "_builtin" / f"{kind}s"
    return sorted(p.name[:-3] for p in folder.iterdir() if p.name.endswith(".md"))


def local_names(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.md")) if folder.is_dir() else []


NAME_LIMIT = 250
"""The longest local template name: a file name holds 255 bytes, `.md` included."""


def load_template(ref: str, kind: Kind, local_dir: Path, *, field: str) -> Template:
    """Resolve `NAME` to `<local_dir>/NAME.md` or `builtin:NAME` to a packaged file;
    never one for the other."""
    if ref.startswith(BUILTIN_PREFIX):
        name = ref[len(BUILTIN_PREFIX) :]
        resource = resources.files("itemeval") / "_builtin" / f"{kind}s" / f"{name}.md"
        if not name or not resource.is_file():
            raise ConfigError(
                f"{field}: no packaged {kind} {ref!r}; {_existing(kind, local_dir)}"
            )
        text, source, where = (
            resource.read_text(encoding="utf-8"),
            "builtin",
            f"{BUILTIN_PREFIX}{name}",
        )
    else:
        if len(ref) > NAME_LIMIT:
            raise ConfigError(
                f"{field}: a {kind} name of {len(ref):,} characters is longer than "
                f"a file name can be ({NAME_LIMIT}); name a file in {local_dir}"
            )
        path = local_dir / f"{ref}.md"
        if path.is_dir() and "/" not in ref and "\\" not in ref:
            raise ConfigError(
                f"{field}: {kind} {ref!r}: {path} is a directory; a {kind} is a "
                "Markdown file"
            )
        if "/" in ref or "\\" in ref or not path.is_file():
            raise ConfigError(
                f"{field}: {kind} {ref!r} not found at {path}; "
                f"{_existing(kind, local_dir)}"
            )
        text, source, where = read_utf8(path, kind), "local", str(path)
    if not text.strip():
        raise ConfigError(f"{field}: {kind} {ref!r} ({where}) is empty")
    return Template(
        ref=ref,
        kind=kind,
        text=text,
        hash=content_hash(text),
        source=source,
        path=where,
    )


def _existing(kind: Kind, local_dir: Path) -> str:
    local = ", ".join(local_names(local_dir)) or "none"
    builtin = ", ".join(BUILTIN_PREFIX + n for n in builtin_names(kind))
    return f"local {kind}s in {local_dir}: {local}; packaged: {builtin}"


def placeholders(text: str) -> list[str]:
    """The `{name}` tokens in a template that are meant as placeholders (maths groups
    excluded)."""
    found = []
    for match in _TOKEN.finditer(text):
        if not _MATH_BEFORE.search(text, 0, match.start()):
            found.append(match.group(1))
    return found


def check_template(
    template: Template, known: tuple[str, ...], *, field: str
) -> list[str]:
    """Raise when a required placeholder is missing; return warnings for
    unknown-looking ones."""
    present = set(placeholders(template.text))
    missing = [name for name in REQUIRED[template.kind] if name not in present]
    if missing:
        need = ", ".join("{" + m + "}" for m in missing)
        raise ConfigError(
            f"{field}: {template.kind} {template.ref!r} ({template.path}) must "
            f"contain {need}{_typo_hint(missing, present - set(known))}"
        )
    unknown = sorted(present - set(known))
    return [
        f"{template.kind} {template.ref!r}: {{{name}}} is not a known "
        "placeholder and will be left as is "
        f"(known: {', '.join(known)})"
        for name in unknown
    ]


def _typo_hint(missing: list[str], unknown: set[str]) -> str:
    """The unknown placeholders that look like a missing one: "{solutoin} is there"."""
    import difflib

    close = [
        name
        for name in sorted(unknown)
        if difflib.get_close_matches(name, missing, n=1, cutoff=0.6)
    ]
    if not close:
        return ""
    shown = ", ".join("{" + name + "}" for name in close)
    return f"; it has {shown}: a misspelling?"


PROMPT_LIMIT = 10_000_000
"""The most characters one rendered prompt may hold (README "Prompts"): past the
largest context any provider serves (2M tokens, about 8 MB of text), so a prompt this
long can only be a mistake, and refusing it before rendering keeps a template that
repeats a long field from building gigabytes in memory."""


class PromptTooLong(ConfigError):
    """A rendered prompt past PROMPT_LIMIT; `name` is the placeholder that adds most."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def render(text: str, values: Mapping[str, object], *, limit: int | None = None) -> str:
    """Replace only known `{name}` tokens; every other brace (LaTeX, JSON) survives
    untouched. With `limit`, a result longer than it raises PromptTooLong before it
    is built."""
    tokens = [
        match
        for match in _TOKEN.finditer(text)
        if match.group(1) in values and not _MATH_BEFORE.search(text, 0, match.start())
    ]
    texts = {m.group(1): _text(values[m.group(1)]) for m in tokens}
    if limit is not None:
        _check_length(text, tokens, texts, limit)
    pieces, end = [], 0
    for match in tokens:
        pieces += [text[end : match.start()], texts[match.group(1)]]
        end = match.end()
    return "".join([*pieces, text[end:]])


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _check_length(
    text: str, tokens: list[re.Match[str]], texts: dict[str, str], limit: int
) -> None:
    added = {name: 0 for name in texts}
    for match in tokens:
        added[match.group(1)] += len(texts[match.group(1)]) - len(match.group(0))
    length = len(text) + sum(added.values())
    if length > limit:
        name = max(added, key=added.__getitem__)
        raise PromptTooLong(
            f"renders to {length:,} characters, past the limit of {limit:,} "
            f"(most from {{{name}}}: {added[name]:,})",
            name,
        )
