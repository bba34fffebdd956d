"""The itemeval command line: each command parses, loads the study, calls one library function and renders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from . import __version__, signals
from .errors import EXIT_CONFIG, ConfigError, ItemevalError

if TYPE_CHECKING:
    from .outcomes import StageResult
    from .study import Study

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
DISPLAYS = ("rich", "plain", "full", "log", "none", "conversation")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"itemeval {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[Optional[bool], typer.Option("--version", callback=_show_version, is_eager=True,
                                                    help="Print the version and exit.")] = None,
) -> None:
    """Generate-then-grade, item-level LLM evaluation on inspect-ai. Run `itemeval init my-study` to start."""


def _study(config: Path, base_dir: Path | None) -> Study:
    from . import console
    from .study import load_study

    study = load_study(config, base_dir)  # everything is validated before anything is written
    console.warn(study.warnings)  # e.g. a template's unknown {placeholder}: every command says so, on stderr
    return study


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Directory to create the study in.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite files that already exist.")] = False,
    base_dir: BaseDir = None,
    json_out: Json = False,
) -> None:
    """Scaffold a runnable offline study: config, a prompt, a rubric and a tiny dataset.

    Example: itemeval init my-study && cd my-study && itemeval status config.yaml
    """
    from . import console
    from .scaffold import scaffold

    target = base_dir / directory if base_dir is not None else directory
    written = scaffold(target, force=force)
    if json_out:
        console.print_json({"directory": str(target), "written": [str(path) for path in written]})
    else:
        console.render_init(written, target, console.stderr())


@app.command()
def status(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Show the condition grid with ids and per-condition completion and spend; never writes.

    Example: itemeval status configs/demo.yaml --json
    """
    from . import console
    from .status import study_status

    report = study_status(_study(config, base_dir))
    if json_out:
        console.print_json(console.status_dict(report))
    else:
        console.render_status(report, console.stdout())


def _stage_options(display: str | None, **values: Any) -> dict[str, Any]:
    chosen = display or ("rich" if sys.stdout.isatty() else "none")
    if chosen not in DISPLAYS:
        raise typer.BadParameter(f"unknown display {chosen!r}", param_hint="--display")
    return {**values, "display": chosen}


def _asker():  # noqa: ANN202 - a question -> bool function, or None when nobody can answer
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        return typer.confirm(question, default=False, err=True)

    return ask


def _finish(result: StageResult, json_out: bool, config: Path | None = None) -> int:
    from . import console

    if json_out:
        console.print_json(console.stage_dict(result))
    else:
        console.render_stage(result, console.stderr())
        if config is not None and result.stage == "grade" and any(c.rows for c in result.conditions):
            console.tell(f"the numbers, with confidence intervals: itemeval results {config}")
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
    from . import console
    from .estimate import EstimateOptions, run_estimate

    if stage not in ("all", "generate", "grade"):
        raise typer.BadParameter(f"unknown stage {stage!r}: use all, generate or grade", param_hint="--stage")
    options = EstimateOptions(conditions=tuple(condition or ()), limit=limit, force=force,
                              graders=tuple(grader or ()), rubrics=tuple(rubric or ()), stage=stage)
    result = run_estimate(_study(config, base_dir), options)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_estimate(result, console.stdout())


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
    from . import console
    from .generate import GenerateOptions, run_generate

    options = GenerateOptions(**_stage_options(display, conditions=tuple(condition or ()), limit=limit,
                                               force=force, yes=yes, max_usd=max_usd))
    study = _study(config, base_dir)
    return _finish(run_generate(study, options, ask=_asker(), tell=console.tell), json_out)


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
    from . import console
    from .grade import GradeOptions, run_grade

    options = GradeOptions(**_stage_options(display, conditions=tuple(condition or ()), limit=limit, force=force,
                                            yes=yes, max_usd=max_usd, graders=tuple(grader or ()),
                                            rubrics=tuple(rubric or ())))
    study = _study(config, base_dir)
    return _finish(run_grade(study, options, ask=_asker(), tell=console.tell), json_out, config)


@app.command()
def export(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Write export/grades_long.parquet and .csv: one row per grade joined to its solution and item.

    Never aggregated: every grading event, with facet values, ready for IRT or mixed models.
    Example: itemeval export configs/demo.yaml && python -c "import pandas; print(pandas.read_csv('studies/demo/export/grades_long.csv').groupby(['grade_condition_slug', 'model']).score.mean())"
    """
    from . import console
    from .export import run_export

    result = run_export(_study(config, base_dir))
    if json_out:
        console.print_json(console.export_dict(result))
    else:
        console.render_export(result, console.stderr())


@app.command()
def results(
    config: ConfigArg,
    compared: Annotated[Optional[list[str]], typer.Argument(hidden=True, show_default=False)] = None,
    base_dir: BaseDir = None,
    json_out: Json = False,
    reducer: Annotated[str, typer.Option("--reducer", help="Replications to one score per item: mean, median, mode, "
                                         "max, min, majority, pass@K or at_least:K.")] = "mean",
    ci: Annotated[str, typer.Option("--ci", help="Interval over items: t, wilson (0/1 scores) or bootstrap.")] = "t",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap's resampling.")] = 0,
    by: Annotated[Optional[list[str]], typer.Option("--by", help="Marginals per level of a facet: model, prompt, "
                                                    "model_config, grader, rubric, scorer or an item metadata column "
                                                    "(repeatable).")] = None,
    compare: Annotated[Optional[list[str]], typer.Option("--compare", help="Paired comparison of two generate "
                                                         "conditions, `--compare A B`, or of every pair, "
                                                         "`--compare all`.")] = None,
    threshold: Annotated[Optional[float], typer.Option("--threshold", help="Pass mark of the agreement confusion "
                                                       "(default: the middle of the observed scale).")] = None,
    csv: Annotated[Optional[Path], typer.Option("--csv", help="Also write the cells to this CSV file.")] = None,
) -> None:
    """Per cell of the grid: mean item score with SE and 95% CI; marginals, paired comparisons, grader
    agreement and calibration. Computed from the stores; never writes them.

    Example: itemeval results configs/demo.yaml --by model --compare arith-good arith-weak
    """
    from . import console
    from .results import ResultsOptions, study_results

    if compared and not compare:
        raise ConfigError(f"unexpected argument(s) {' '.join(compared)}; did you mean --compare A B?")
    options = ResultsOptions(reducer=reducer, ci=ci, seed=seed, by=tuple(by or ()),
                             compare=(*(compare or ()), *(compared or ())), threshold=threshold)
    report = study_results(_study(config, base_dir), options)
    data = report.as_dict()
    if csv is not None:
        import pandas as pd

        pd.DataFrame(data["cells"]).to_csv(csv, index=False)
    if json_out:
        console.print_json(data)
    else:
        console.render_results(data, console.stdout())


@app.command()
def report(
    config: ConfigArg,
    base_dir: BaseDir = None,
    json_out: Json = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write the HTML here instead of "
                                                "<study dir>/reports/<study>-<UTC time>.html.")] = None,
) -> None:
    """Write one self-contained HTML report (no network needed): the grid and spend, results with CIs, a forest
    plot, facet marginals, paired differences, grader agreement, calibration, item difficulty, errors, logs.

    Example: itemeval report configs/demo.yaml --out demo.html
    """
    from . import console
    from .report import write_report

    written = write_report(_study(config, base_dir), out)
    if json_out:
        console.print_json({"path": str(written.path), "sections": written.sections})
    else:
        console.tell(f"report written: {written.path}")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI, turning itemeval's errors into their exit codes in this one place."""
    from .manifest import set_command_line

    set_command_line(["itemeval", *(sys.argv[1:] if argv is None else argv)])
    signals.install()
    try:
        result = app(args=argv, standalone_mode=False)
    except ItemevalError as exc:
        from . import console

        console.error(str(exc))
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        from . import console

        console.stderr().print("interrupted")
        return signals.interrupted_exit_code()
    except typer.Exit as exc:
        return exc.exit_code
    except typer.TyperException as exc:  # usage errors from the parser: bad option, missing argument
        exc.show()
        return EXIT_CONFIG
    return result if isinstance(result, int) else 0
