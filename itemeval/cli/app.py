"""The typer app and what every command shares: loading the study, the stage
options, the spend gate's question and a stage's outcome rendered."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, Optional

import typer

from ..version import version_text
from . import help_text
from .options import DISPLAYS

if TYPE_CHECKING:
    from ..outcomes import StageResult
    from ..plan.options import Selection
    from ..study.load import Study

help_text.install()
app = typer.Typer(
    name="itemeval",
    help="Generate-then-grade, item-level LLM evaluation on inspect-ai. Run "
    "`itemeval init my-study` to start.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help: no `<bool>` after every flag, and it fits 80 columns
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print itemeval's version, the inspect-ai it runs on and the "
            "range it is tested on, and exit.",
        ),
    ] = None,
) -> None:
    """Generate-then-grade, item-level LLM evaluation on inspect-ai. Run `itemeval
    init my-study` to start."""


def open_study(config: Path, base_dir: Path | None, *, reads: str = "table") -> Study:
    """The loaded study; `reads="snapshot"` for the read-only commands (a study on
    object storage is then read through its published snapshot)."""
    from dataclasses import replace

    from ..console import render as console
    from ..study.load import load_study

    # everything is validated before anything is written
    study = load_study(config, base_dir)
    # e.g. a template's unknown {placeholder}: every command says so, on stderr
    console.warn(study.warnings)
    return (
        replace(study, loaded=replace(study.loaded, reads=reads))
        if reads != "table"
        else study
    )


def selection(
    condition: list[str] | None,
    limit: int | None,
    item_ids: list[str] | None,
    sample: int | None,
    seed: int,
    stratify: str | None,
) -> Selection:
    """The options that choose a command's cells, as one value."""
    from ..plan.options import Selection

    return Selection(
        conditions=tuple(condition or ()),
        limit=limit,
        ids=tuple(item_ids or ()),
        sample=sample,
        seed=seed,
        stratify=stratify,
    )


def chosen_display(display: str | None) -> str:
    """--display, or itemeval's own on a terminal and none otherwise."""
    chosen = display or ("itemeval" if sys.stderr.isatty() else "none")
    if chosen not in DISPLAYS:
        raise typer.BadParameter(f"unknown display {chosen!r}", param_hint="--display")
    return chosen


def asker() -> Callable[[str], bool] | None:
    """A question -> bool function on a terminal, or None when nobody can answer."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        return typer.confirm(question, default=False, err=True)

    return ask


def finish(
    result: StageResult,
    json_out: bool,
    config: Path | None = None,
    *,
    ids: bool = False,
) -> int:
    """A stage's result on the console (or as JSON), and its exit code."""
    from ..console import render as console

    if json_out:
        console.print_json(console.stage_dict(result))
    else:
        console.render_stage(result, console.stderr(), ids=ids)
        if (
            config is not None
            and result.stage == "grade"
            and any(c.rows for c in result.conditions)
        ):
            console.tell(
                f"the numbers, with confidence intervals: itemeval results {config}"
            )
    return result.exit_code
