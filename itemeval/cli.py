"""The itemeval command line: each command parses, calls one library function and renders its result."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .errors import EXIT_CONFIG, EXIT_INTERRUPTED, ItemevalError

app = typer.Typer(
    name="itemeval",
    help="Generate-then-grade, item-level LLM evaluation on inspect-ai. Run `itemeval init my-study` to start.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

ConfigArg = Annotated[Path, typer.Argument(help="The study config (YAML).", show_default=False)]
BaseDir = Annotated[
    Optional[Path], typer.Option("-C", "--base-dir", help="Working dir that output_dir is relative to.")
]
Json = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
Conditions = Annotated[
    Optional[list[str]],
    typer.Option("--condition", help="Only this condition: exact id, id prefix or slug (repeatable)."),
]
Limit = Annotated[Optional[int], typer.Option("--limit", min=0, help="Only the first N items.")]
Force = Annotated[bool, typer.Option("--force", help="Re-run every selected cell, done or not.")]
Yes = Annotated[bool, typer.Option("--yes", help="Confirm the spend gate without asking.")]
MaxUsd = Annotated[Optional[float], typer.Option("--max-usd", min=0, help="Hard cap on this run's spend (USD).")]
Display = Annotated[
    Optional[str],
    typer.Option("--display", help="inspect's progress display: rich, plain, full, log or none "
                 "(default: rich on a terminal, none otherwise)."),
]


def _stderr():  # noqa: ANN202 - a rich Console
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        console.width = 240  # logs and CI: whole slugs and ids rather than tables cut at 80 columns
    return console


def _stdout():  # noqa: ANN202 - a rich Console
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console.width = 240  # piped output: keep whole ids rather than wrapping tables at 80 columns
    return console


def _warn(warnings: list[str]) -> None:
    console = _stderr()
    for warning in warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Directory to create the study in.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite files that already exist.")] = False,
) -> None:
    """Scaffold a runnable offline study: config, a prompt, a rubric and a tiny dataset.

    Example: itemeval init my-study && cd my-study && itemeval status config.yaml
    """
    from .scaffold import scaffold

    written = scaffold(directory, force=force)
    console = _stderr()
    for path in written:
        console.print(f"wrote {path}")
    console.print(f"next: cd {directory} && itemeval estimate config.yaml && itemeval generate config.yaml")


@app.command()
def status(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Show the condition grid with ids and per-condition completion and spend; never writes.

    Example: itemeval status configs/demo.yaml --json
    """
    from .report import render_status, status_dict
    from .status import study_status
    from .study import load_study

    report = study_status(load_study(config, base_dir))
    _warn(report.study.warnings)
    if json_out:
        _print_json(status_dict(report))
    else:
        render_status(report, _stdout())


def _stage_options(display: str | None, **values: Any) -> dict[str, Any]:
    from .generate import default_display

    chosen = display or default_display()
    if chosen not in ("rich", "plain", "full", "log", "none", "conversation"):
        raise typer.BadParameter(f"unknown display {chosen!r}", param_hint="--display")
    return {**values, "display": chosen, "interactive": sys.stdin.isatty() and sys.stderr.isatty()}


def _tell(message: str) -> None:
    _stderr().print(message, markup=False, highlight=False, soft_wrap=True)


def _asker(interactive: bool):  # noqa: ANN202 - a question -> bool function, or None
    if not interactive:
        return None

    def ask(question: str) -> bool:
        return typer.confirm(question, default=False, err=True)

    return ask


def _finish(result: Any, json_out: bool) -> int:
    from .report import render_stage, stage_dict

    if json_out:
        _print_json(stage_dict(result))
    else:
        render_stage(result, _stderr())
    return result.exit_code


@app.command()
def estimate(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    grader: Annotated[Optional[list[str]], typer.Option("--grader", help="Only these judges (repeatable).")] = None,
    rubric: Annotated[Optional[list[str]], typer.Option("--rubric", help="Only these rubrics (repeatable).")] = None,
    limit: Limit = None,
    force: Force = False,
    stage: Annotated[str, typer.Option("--stage", help="all, generate or grade.")] = "all",
    json_out: Json = False,
) -> None:
    """Project calls, tokens and USD (ceiling and expected) of what generate and grade would run; no model calls.

    Example: itemeval estimate configs/demo.yaml --stage generate --json
    """
    from .estimate import EstimateOptions, run_estimate
    from .report import estimate_dict, render_estimate

    if stage not in ("all", "generate", "grade"):
        raise typer.BadParameter(f"unknown stage {stage!r}: use all, generate or grade", param_hint="--stage")
    options = EstimateOptions(conditions=tuple(condition or ()), limit=limit, force=force,
                              graders=tuple(grader or ()), rubrics=tuple(rubric or ()), stage=stage)
    result = run_estimate(config, base_dir, options)
    if json_out:
        _print_json(estimate_dict(result))
    else:
        render_estimate(result, _stdout())


@app.command()
def generate(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    limit: Limit = None,
    force: Force = False,
    yes: Yes = False,
    max_usd: MaxUsd = None,
    display: Display = None,
    json_out: Json = False,
) -> int:
    """Stage 1: run every missing (condition, item, replication) cell and store one row per cell.

    Resumable: re-running it runs only cells that are missing or errored.
    Example: itemeval generate configs/demo.yaml --condition arith-good_concise_default --limit 5
    """
    from .generate import GenerateOptions, run_generate

    options = GenerateOptions(**_stage_options(display, conditions=tuple(condition or ()), limit=limit,
                                               force=force, yes=yes, max_usd=max_usd))
    return _finish(run_generate(config, base_dir, options, ask=_asker(options.interactive), tell=_tell), json_out)


@app.command()
def grade(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    grader: Annotated[Optional[list[str]], typer.Option(
        "--grader", help="Only judge conditions of this grader (repeatable); may be one not in facets.grader.")] = None,
    rubric: Annotated[Optional[list[str]], typer.Option(
        "--rubric", help="Only judge conditions with this rubric (repeatable).")] = None,
    limit: Limit = None,
    force: Force = False,
    yes: Yes = False,
    max_usd: MaxUsd = None,
    display: Display = None,
    json_out: Json = False,
) -> int:
    """Stage 2: grade stored solutions with the verifiable scorers and LLM judges; never re-generates.

    Adding a judge later costs no generation: define it under graders: and run only it.
    Example: itemeval grade configs/demo.yaml --grader offline_judge
    """
    from .grade import GradeOptions, run_grade

    options = GradeOptions(**_stage_options(display, conditions=tuple(condition or ()), limit=limit, force=force,
                                            yes=yes, max_usd=max_usd, graders=tuple(grader or ()),
                                            rubrics=tuple(rubric or ())))
    return _finish(run_grade(config, base_dir, options, ask=_asker(options.interactive), tell=_tell), json_out)


@app.command()
def export(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Write export/grades_long.parquet and .csv: one row per grade joined to its solution and item.

    Never aggregated: every grading event, with facet values, ready for IRT or mixed models.
    Example: itemeval export configs/demo.yaml && python -c "import pandas; print(pandas.read_csv('studies/demo/export/grades_long.csv').groupby('model').score.mean())"
    """
    from .export import run_export

    result = run_export(config, base_dir)
    data = {"rows": result.rows, "parquet": str(result.parquet), "csv": str(result.csv),
            "recovered_rows": result.recovered}
    if json_out:
        _print_json(data)
    else:
        _stderr().print(f"exported {result.rows} grades to {result.parquet} and {result.csv}", highlight=False,
                        soft_wrap=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI, turning itemeval's errors into their exit codes in this one place."""
    from .manifest import set_command_line

    set_command_line(["itemeval", *(sys.argv[1:] if argv is None else argv)])
    try:
        result = app(args=argv, standalone_mode=False)
    except ItemevalError as exc:
        _stderr().print(f"error: {exc}", style="red", highlight=False, markup=False, soft_wrap=True)
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        _stderr().print("interrupted")
        return EXIT_INTERRUPTED
    except typer.Exit as exc:
        return exc.exit_code
    except typer.TyperException as exc:  # usage errors from the parser: bad option, missing argument
        exc.show()
        return EXIT_CONFIG
    return result if isinstance(result, int) else 0
