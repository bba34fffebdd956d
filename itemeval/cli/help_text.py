"""Help that reads like a man page: `--limit N` and `CONFIG`, not typer's `<int range>`
and `{CONFIG}`.

typer 0.29 labels every value with its Python type; a user needs what to type. One patch
of the two parameter classes, so every command (in whichever module it lives) gets it.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption

# What an option's value is, by option name, where its type alone does not say it.
NAMES = {
    "condition": "ID",
    "grader": "NAME",
    "rubric": "NAME",
    "item_ids": "ID",
    "display": "MODE",
    "stage": "STAGE",
    "shard": "K/N",
    "max_usd": "USD",
    "csv": "PATH",
    "out": "PATH",
    "only": "STATE",
    "shard_by": "cell|model",
    "engine": "local|ray",
    "address": "ADDRESS",
    "reducer": "NAME",
    "ci": "METHOD",
    "by": "FACET",
    "compare": "A",
}


# typer's label (without its brackets) -> what to type
BY_TYPE = {
    "int": "N",
    "int range": "N",
    "float": "X",
    "float range": "X",
    "path": "PATH",
}


def metavar(name: str | None, label: str) -> str:
    """The placeholder after an option: its NAMES entry, else one by typer's label."""
    if name in NAMES:
        return NAMES[name]
    label = label.strip("<>")
    if label.startswith("list[") and label.endswith("]"):
        label = label[5:-1]  # a repeatable option: the help says "(repeatable)"
    if "|" in label:  # choices
        return label
    return BY_TYPE.get(label, "TEXT")


_typer_option_type = TyperOption.display_type_rich


def _option_type(self: TyperOption, ctx: Any) -> str | None:
    label = _typer_option_type(self, ctx)
    if self.metavar is not None or label is None:
        return label
    return metavar(self.name, label.removesuffix("..."))


def _argument_usage(self: TyperArgument) -> str:
    name = self.display_name_raw.upper()
    name = name if self.required else f"[{name}]"
    return name + ("..." if self.nargs != 1 else "")


def _no_type(self: TyperArgument, ctx: Any) -> None:
    return None  # `CONFIG  The study config (YAML).`, not `CONFIG <path>`


def install() -> None:
    TyperOption.display_type_rich = _option_type  # type: ignore[method-assign]
    TyperArgument.display_type_rich = _no_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = _argument_usage  # type: ignore[method-assign]
