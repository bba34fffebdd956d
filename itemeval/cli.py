"""The itemeval command line: each command parses, loads the study, calls one library
function and renders."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from . import __version__, help_text, signals
from .errors import EXIT_CONFIG, ConfigError, ItemevalError, error_document

if TYPE_CHECKING:
    from .outcomes import StageResult
    from .study import Study

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

ConfigArg = Annotated[
    Path,
    typer.Argument(
        metavar="CONFIG", help="The study config (YAML).", show_default=False
    ),
]
BaseDir = Annotated[
    Optional[Path],
    typer.Option(
        "-C",
        "--base-dir",
        help="The dir output_dir is relative to (default: the config file's dir).",
    ),
]
Json = Annotated[
    bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")
]
Conditions = Annotated[
    Optional[list[str]],
    typer.Option(
        "--condition",
        help="Only this condition: exact id, id prefix or slug (repeatable).",
    ),
]
Limit = Annotated[
    Optional[int], typer.Option("--limit", min=0, help="Only the first N items.")
]
ItemIds = Annotated[
    Optional[list[str]],
    typer.Option("--items", help="Only the item with this id (repeatable)."),
]
Force = Annotated[
    bool, typer.Option("--force", help="Re-run every selected cell, done or not.")
]
Fresh = Annotated[
    bool,
    typer.Option(
        "--fresh",
        help="Re-run the selected cells with new draws: the response cache "
        "is not read (new cost).",
    ),
]
Sample = Annotated[
    Optional[int],
    typer.Option(
        "--sample", min=1, help="Only a random N items, the same for the same --seed."
    ),
]
SampleSeed = Annotated[
    int, typer.Option("--seed", help="Seed of --sample's and --pilot's draws.")
]
Graders = Annotated[
    Optional[list[str]],
    typer.Option(
        "--grader",
        help="Only judge conditions of this grader (repeatable); may be one not in "
        "facets.grader.",
    ),
]
Rubrics = Annotated[
    Optional[list[str]],
    typer.Option(
        "--rubric", help="Only judge conditions with this rubric (repeatable)."
    ),
]
ShardOpt = Annotated[
    Optional[str],
    typer.Option(
        "--shard",
        metavar="K/N",
        help="Only shard K of N (0-based): no "
        "study lock, rows into journal parts; then `itemeval commit`.",
    ),
]
ShardBy = Annotated[
    str,
    typer.Option(
        "--shard-by",
        help="cell (default) or model: every cell of a model on one shard.",
    ),
]
Pilot = Annotated[
    Optional[int],
    typer.Option(
        "--pilot",
        min=1,
        help="First run N random items per generate "
        "condition (kept), then project the rest's cost from their replies. "
        "Paid calls, behind the spend gate (--yes) and cap (--max-usd).",
    ),
]
Stratify = Annotated[
    Optional[str],
    typer.Option(
        "--stratify",
        metavar="COL",
        help="--sample keeps the share of each value of this item metadata column.",
    ),
]
Yes = Annotated[
    bool, typer.Option("--yes", help="Confirm the spend gate without asking.")
]


def finite_option(value: float | None, name: str) -> float | None:
    """An option's number, refused (exit 2) when it is `inf` or `nan`: a cap must be
    a number."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number", param_hint=name)
    return value


MaxUsd = Annotated[
    Optional[float],
    typer.Option(
        "--max-usd",
        min=0,
        callback=lambda value: finite_option(value, "--max-usd"),
        help="Hard cap on this run's spend (USD).",
    ),
]
Display = Annotated[
    Optional[str],
    typer.Option(
        "--display",
        help="itemeval (one display for the whole run: cells, rate, ETA, spend, "
        "errors; the "
        "default on a terminal), none (the default otherwise), or inspect's "
        "own: rich, plain, full, log.",
    ),
]
LaunchDisplay = Annotated[
    Optional[str],
    typer.Option(
        "--display",
        help="itemeval (one display for all the shards: cells, rate, ETA, spend, "
        "errors; the default on a terminal) or none (the default otherwise).",
    ),
]
Ids = Annotated[
    bool,
    typer.Option(
        "--ids", help="Show whole condition ids (slug--hash), not just slugs."
    ),
]
DISPLAYS = ("itemeval", "rich", "plain", "full", "log", "none", "conversation")
UntilDecided = Annotated[
    Optional[tuple[str, str]],
    typer.Option(
        "--until-decided",
        metavar="A B",
        help="Run conditions A and B in rounds of items in a random order "
        "(--seed) until an anytime-valid confidence sequence decides (README).",
    ),
]
Alpha = Annotated[
    float, typer.Option("--alpha", help="Error rate of the sequence / the test.")
]
Margin = Annotated[
    Optional[float],
    typer.Option(
        "--margin", help="--until-decided: equivalent once the sequence is inside +-M."
    ),
]
MaxItems = Annotated[
    Optional[int],
    typer.Option("--max-items", min=1, help="--until-decided: stop after N items."),
]
RoundSize = Annotated[
    int,
    typer.Option("--round", min=1, help="--until-decided: items per round."),
]


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"itemeval {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = None,
) -> None:
    """Generate-then-grade, item-level LLM evaluation on inspect-ai. Run `itemeval
    init my-study` to start."""


def _study(config: Path, base_dir: Path | None, *, reads: str = "table") -> Study:
    """The loaded study; `reads="snapshot"` for the read-only commands (a study on
    object storage is then read through its published snapshot)."""
    from dataclasses import replace

    from . import console
    from .study import load_study

    study = load_study(
        config, base_dir
    )  # everything is validated before anything is written
    console.warn(
        study.warnings
    )  # e.g. a template's unknown {placeholder}: every command says so, on stderr
    return (
        replace(study, loaded=replace(study.loaded, reads=reads))
        if reads != "table"
        else study
    )


@app.command()
def init(
    directory: Annotated[
        Path, typer.Argument(help="Directory to create the study in.")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite files that already exist.")
    ] = False,
    base_dir: BaseDir = None,
    json_out: Json = False,
) -> None:
    """Scaffold a runnable offline study: config, a prompt, a rubric and a tiny dataset.

    \b
    Example: itemeval init my-study && cd my-study && itemeval status config.yaml
    """
    from . import console
    from .scaffold import scaffold

    target = base_dir / directory if base_dir is not None else directory
    written = scaffold(target, force=force)
    if json_out:
        console.print_json(
            {"directory": str(target), "written": [str(path) for path in written]}
        )
    else:
        console.render_init(written, target, console.stderr())


@app.command()
def status(
    config: ConfigArg,
    base_dir: BaseDir = None,
    json_out: Json = False,
    ids: Ids = False,
) -> None:
    """Show the condition grid (slugs; ids with --ids) and per-condition completion and
    spend; never writes.

    \b
    Example: itemeval status configs/demo.yaml --json
    """
    from . import console
    from .batch.listing import batch_rows, render
    from .status import study_status

    report = study_status(_study(config, base_dir, reads="snapshot"))
    open_batches = batch_rows(report.study.paths.root)
    if json_out:
        console.print_json({**console.status_dict(report), "batches": open_batches})
    else:
        console.render_status(report, console.stdout(), ids=ids)
        if open_batches:  # a study that never ran in batch mode shows nothing more
            out = console.stdout()
            render(
                open_batches,
                lambda line: out.print(line, markup=False, highlight=False),
            )


@app.command()
def batches(
    config: ConfigArg,
    cancel: Annotated[
        bool,
        typer.Option(
            "--cancel",
            help="Ask the provider to cancel every open batch; the next generate or "
            "grade collects what they answered.",
        ),
    ] = False,
    base_dir: BaseDir = None,
    json_out: Json = False,
) -> None:
    """List the study's open provider batches (batch mode), or cancel them.

    \b
    Example: itemeval batches study.yaml --cancel
    """
    from . import console
    from .batch.listing import batch_rows, cancel_open, render
    from .recovery import locked

    study = _study(config, base_dir)
    cancelled = None
    if cancel:
        with locked(study, "batches"):
            cancelled = cancel_open(study.paths.root)
    rows = batch_rows(study.paths.root)
    if json_out:
        extra = {} if cancelled is None else {"cancelled": cancelled}
        console.print_json({"batches": rows, **extra})
        return
    out = console.stdout()
    for row in cancelled or []:
        out.print(f"{row['batch_id']}: {row['state']}", markup=False, highlight=False)
    render(rows, lambda line: out.print(line, markup=False, highlight=False))


def _stage_options(display: str | None, **values: Any) -> dict[str, Any]:
    chosen = display or ("itemeval" if sys.stderr.isatty() else "none")
    if chosen not in DISPLAYS:
        raise typer.BadParameter(f"unknown display {chosen!r}", param_hint="--display")
    return {**values, "display": chosen}


def _asker():  # noqa: ANN202 - a question -> bool function, or None when nobody can answer
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        return typer.confirm(question, default=False, err=True)

    return ask


def _finish(
    result: StageResult,
    json_out: bool,
    config: Path | None = None,
    *,
    ids: bool = False,
) -> int:
    from . import console

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


@app.command()
def estimate(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    grader: Annotated[
        Optional[list[str]],
        typer.Option("--grader", help="Only these judges (repeatable)."),
    ] = None,
    rubric: Annotated[
        Optional[list[str]],
        typer.Option("--rubric", help="Only these rubrics (repeatable)."),
    ] = None,
    limit: Limit = None,
    item_ids: ItemIds = None,
    sample: Sample = None,
    seed: SampleSeed = 0,
    stratify: Stratify = None,
    force: Force = False,
    pilot: Pilot = None,
    stage: Annotated[
        str, typer.Option("--stage", help="all, generate or grade.")
    ] = "all",
    yes: Yes = False,
    max_usd: MaxUsd = None,
    json_out: Json = False,
    ids: Ids = False,
) -> int:
    """Project calls, tokens and USD (ceiling and expected) of what generate and grade
    would run.

    No model calls, except with --pilot: the pilot's calls are paid, behind the same
    spend gate (--yes) and cap (--max-usd, budget.max_usd) as generate.

    \b
    Example: itemeval estimate configs/demo.yaml --stage generate --json
    """
    from . import console
    from .estimate import EstimateOptions, run_estimate

    if stage not in ("all", "generate", "grade"):
        raise typer.BadParameter(
            f"unknown stage {stage!r}: use all, generate or grade", param_hint="--stage"
        )
    options = EstimateOptions(
        conditions=tuple(condition or ()),
        limit=limit,
        ids=tuple(item_ids or ()),
        sample=sample,
        seed=seed,
        stratify=stratify,
        force=force,
        graders=tuple(grader or ()),
        rubrics=tuple(rubric or ()),
        stage=stage,
    )
    study = _study(config, base_dir)
    if pilot is not None:  # real calls: the pilot's cells are kept in the store
        from .generate import GenerateOptions, run_pilot

        gen_options = GenerateOptions(
            **_stage_options(
                None,
                conditions=tuple(condition or ()),
                limit=limit,
                ids=tuple(item_ids or ()),
                sample=sample,
                seed=seed,
                stratify=stratify,
                pilot=pilot,
                yes=yes,
                max_usd=max_usd,
            )
        )
        ran = run_pilot(
            study,
            gen_options,
            gen_options.items(study),
            ask=_asker(),
            tell=console.tell,
        )
        if ran.exit_code:
            return _finish(ran, json_out)
        console.tell(
            f"pilot: {sum(c.rows for c in ran.conditions)} cells ran (run "
            f"{ran.run_id}); "
            "the estimate below projects the rest from their replies"
        )
    result = run_estimate(study, options)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_estimate(result, console.stdout(), ids=ids)
    return 0


@app.command()
def generate(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    limit: Limit = None,
    item_ids: ItemIds = None,
    sample: Sample = None,
    seed: SampleSeed = 0,
    stratify: Stratify = None,
    force: Force = False,
    fresh: Fresh = False,
    pilot: Pilot = None,
    shard: ShardOpt = None,
    shard_by: ShardBy = "cell",
    yes: Yes = False,
    max_usd: MaxUsd = None,
    display: Display = None,
    json_out: Json = False,
    ids: Ids = False,
    until_decided: UntilDecided = None,
    alpha: Alpha = 0.05,
    margin: Margin = None,
    max_items: MaxItems = None,
    round_size: RoundSize = 20,
) -> int:
    """Stage 1: run every missing (condition, item, replication) cell and store one row
    per cell.

    Resumable: re-running it runs only cells that are missing or errored.

    \b
    Example: itemeval generate configs/demo.yaml --condition arith-good_concise_default --limit 5
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .generate import GenerateOptions, run_generate
    from .plan import Shard

    if until_decided:
        chosen = (condition, item_ids, limit, sample, stratify, force, fresh, pilot)
        if any(chosen) or shard:
            raise ConfigError(
                "--until-decided chooses its own conditions and items: drop "
                "--condition, --items, --limit, --sample, --stratify, --force, "
                "--fresh, --pilot and --shard"
            )
        return _until_decided(
            config,
            base_dir,
            until_decided,
            dict(
                alpha=alpha, margin=margin, max_items=max_items, round_size=round_size
            ),
            dict(seed=seed, yes=yes, max_usd=max_usd, display=display or "none"),
            json_out,
        )
    options = GenerateOptions(
        **_stage_options(
            display,
            conditions=tuple(condition or ()),
            limit=limit,
            ids=tuple(item_ids or ()),
            sample=sample,
            seed=seed,
            stratify=stratify,
            force=force,
            fresh=fresh,
            yes=yes,
            max_usd=max_usd,
            pilot=pilot,
            shard=Shard.parse(shard, shard_by) if shard is not None else None,
        )
    )
    study = _study(config, base_dir)
    return _finish(
        run_generate(study, options, ask=_asker(), tell=console.tell), json_out, ids=ids
    )


@app.command()
def grade(
    config: ConfigArg,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    grader: Graders = None,
    rubric: Rubrics = None,
    limit: Limit = None,
    item_ids: ItemIds = None,
    sample: Sample = None,
    seed: SampleSeed = 0,
    stratify: Stratify = None,
    force: Force = False,
    fresh: Fresh = False,
    only: Annotated[
        Optional[list[str]],
        typer.Option(
            "--only",
            help="Only the grades that are parse-failures or "
            "errors (repeatable); add --fresh for new draws.",
        ),
    ] = None,
    shard: ShardOpt = None,
    shard_by: ShardBy = "cell",
    yes: Yes = False,
    max_usd: MaxUsd = None,
    display: Display = None,
    json_out: Json = False,
    ids: Ids = False,
) -> int:
    """Stage 2: grade stored solutions with the verifiable scorers and LLM judges; never
    re-generates.

    Adding a judge later costs no generation: define it under graders: and run only it.

    Re-draw a judge's parse failures: itemeval grade CONFIG --only parse-failures
    --fresh

    \b
    Example: itemeval grade configs/demo.yaml --grader offline_judge
    """
    from . import console
    from .grade import GradeOptions, run_grade
    from .plan import ONLY_STATES, Shard

    unknown = sorted(set(only or ()) - set(ONLY_STATES))
    if unknown:
        raise typer.BadParameter(
            f"{', '.join(unknown)}: use {' or '.join(ONLY_STATES)}", param_hint="--only"
        )
    options = GradeOptions(
        **_stage_options(
            display,
            conditions=tuple(condition or ()),
            limit=limit,
            ids=tuple(item_ids or ()),
            sample=sample,
            seed=seed,
            stratify=stratify,
            force=force,
            fresh=fresh,
            yes=yes,
            max_usd=max_usd,
            graders=tuple(grader or ()),
            rubrics=tuple(rubric or ()),
            only=tuple(only or ()),
            shard=Shard.parse(shard, shard_by) if shard is not None else None,
        )
    )
    study = _study(config, base_dir)
    return _finish(
        run_grade(study, options, ask=_asker(), tell=console.tell),
        json_out,
        config,
        ids=ids,
    )


@app.command()
def launch(
    stage: Annotated[str, typer.Argument(metavar="STAGE", help="generate or grade.")],
    config: ConfigArg,
    shards: Annotated[
        int, typer.Option("--shards", min=1, help="How many shards.")
    ] = 2,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="local: a process pool on this machine; ray: Ray tasks "
            "(pip install 'itemeval[ray]').",
        ),
    ] = "local",
    address: Annotated[
        Optional[str],
        typer.Option(
            "--address",
            help="--engine ray: the cluster (auto, ray://host:port); "
            "default: RAY_ADDRESS, else Ray on this machine.",
        ),
    ] = None,
    gpus_per_shard: Annotated[
        float,
        typer.Option(
            "--gpus-per-shard",
            min=0,
            help="--engine ray: GPUs each shard "
            "task asks for (a local model per node).",
        ),
    ] = 0.0,
    shard_by: ShardBy = "cell",
    base_dir: BaseDir = None,
    condition: Conditions = None,
    grader: Graders = None,
    rubric: Rubrics = None,
    limit: Limit = None,
    item_ids: ItemIds = None,
    sample: Sample = None,
    seed: SampleSeed = 0,
    stratify: Stratify = None,
    yes: Yes = False,
    max_usd: MaxUsd = None,
    display: LaunchDisplay = None,
    json_out: Json = False,
) -> int:
    """Run generate or grade as N shards: one estimate, spend gate and lock for all,
    max_usd held across them, then one commit and one manifest. A second launcher exits
    5; a failed shard runs again from its journal.

    \b
    Example: itemeval launch generate configs/demo.yaml --shards 2
    Example: itemeval launch grade configs/demo.yaml --shards 4 --engine ray --address auto
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .generate import GenerateOptions
    from .grade import GradeOptions
    from .launch import LaunchOptions, run_launch

    if shard_by not in ("cell", "model"):
        raise typer.BadParameter(
            f"{shard_by!r}: use cell or model", param_hint="--shard-by"
        )
    if stage == "generate" and (grader or rubric):
        raise typer.BadParameter(
            "--grader and --rubric select judges: use them with `launch grade`"
        )
    if display not in (None, "itemeval", "none"):
        raise typer.BadParameter(
            f"{display!r}: launch draws itemeval's display or none (its shards run "
            "without inspect's)",
            param_hint="--display",
        )
    common = _stage_options(
        display,
        conditions=tuple(condition or ()),
        limit=limit,
        ids=tuple(item_ids or ()),
        sample=sample,
        seed=seed,
        stratify=stratify,
        yes=yes,
        max_usd=max_usd,
    )
    options = LaunchOptions(
        shards=shards,
        config=config,
        base_dir=base_dir,
        stage=stage,
        engine=engine,
        address=address,
        gpus_per_shard=gpus_per_shard,
        shard_by=shard_by,
        generate=GenerateOptions(**common),
        grade=GradeOptions(
            **common, graders=tuple(grader or ()), rubrics=tuple(rubric or ())
        ),
    )
    return _finish(
        run_launch(_study(config, base_dir), options, ask=_asker(), tell=console.tell),
        json_out,
    )


@app.command()
def commit(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Merge the journal parts of finished shards (`generate|grade --shard K/N`) into
    the stores; safe to repeat.

    \b
    Example: itemeval generate configs/demo.yaml --shard 0/2 & itemeval generate configs/demo.yaml --shard 1/2; wait; itemeval commit configs/demo.yaml
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .commit import commit as commit_study

    recovered = commit_study(_study(config, base_dir))
    if json_out:
        console.print_json({"recovered_rows": recovered})
    else:
        rows = ", ".join(f"{n} {store}" for store, n in recovered.items()) or "nothing"
        console.tell(f"committed: {rows} rows from journal parts")


@app.command()
def export(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Write export/grades_long.parquet and .csv: one row per grade joined to its
    solution and item.

    Never aggregated: every grading event, with facet values, ready for IRT or mixed
    models.

    \b
    Example: itemeval export configs/demo.yaml && python -c "import pandas; print(pandas.read_csv('studies/demo/export/grades_long.csv').groupby(['grade_condition_slug', 'model']).score.mean())"
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .export import run_export

    result = run_export(_study(config, base_dir, reads="snapshot"))
    if json_out:
        console.print_json(console.export_dict(result))
    else:
        console.render_export(result, console.stderr())


@app.command()
def results(
    config: ConfigArg,
    compared: Annotated[
        Optional[list[str]], typer.Argument(hidden=True, show_default=False)
    ] = None,
    base_dir: BaseDir = None,
    json_out: Json = False,
    reducer: Annotated[
        str,
        typer.Option(
            "--reducer",
            help="Replications to one score per item: mean, median, mode, "
            "max, min, majority, pass@K or at_least:K.",
        ),
    ] = "mean",
    ci: Annotated[
        str,
        typer.Option(
            "--ci",
            help="Interval over items: auto (Wilson for 0/1 scores, bounded Wilson "
            "for other scores: never off their scale), t, wilson or bootstrap.",
        ),
    ] = "auto",
    seed: Annotated[
        int,
        typer.Option(
            "--seed", help="Seed of the bootstrap's resampling and of --sample."
        ),
    ] = 0,
    sample: Sample = None,
    stratify: Stratify = None,
    item_ids: Annotated[
        Optional[list[str]],
        typer.Option(
            "--items",
            help="Only the item with this id (repeatable). Bare (`results CONFIG "
            "--items`): the item analysis: difficulty, discrimination, 2PL IRT and "
            "flags per item (--csv then writes these rows).",
        ),
    ] = None,
    by: Annotated[
        Optional[list[str]],
        typer.Option(
            "--by",
            help="Marginals per level of a facet: model, prompt, "
            "model_config, grader, rubric, scorer or an item metadata column "
            "(repeatable).",
        ),
    ] = None,
    compare: Annotated[
        Optional[list[str]],
        typer.Option(
            "--compare",
            help="Paired comparison of two generate "
            "conditions, `--compare A B`, or of every pair, "
            "`--compare all`.",
        ),
    ] = None,
    threshold: Annotated[
        Optional[float],
        typer.Option(
            "--threshold",
            help="Pass mark of the agreement confusion "
            "(default: the middle of the observed scale).",
        ),
    ] = None,
    csv: Annotated[
        Optional[Path],
        typer.Option("--csv", help="Also write the cells to this CSV file."),
    ] = None,
) -> None:
    """Per cell of the grid: mean item score with SE and 95% CI; marginals, paired
    comparisons, grader agreement and calibration. Computed from the stores; never
    writes them.

    \b
    Example: itemeval results configs/demo.yaml --by model --compare arith-good arith-weak
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .results import ResultsOptions, study_results

    if compared and not compare:
        raise ConfigError(
            f"unexpected argument(s) {' '.join(compared)}; did you mean --compare A B?"
        )
    options = ResultsOptions(
        reducer=reducer,
        ci=ci,
        seed=seed,
        by=tuple(by or ()),
        compare=(*(compare or ()), *(compared or ())),
        threshold=threshold,
        sample=sample,
        stratify=stratify,
        ids=tuple(i for i in item_ids or () if i != ITEM_ANALYSIS),
    )
    items = ITEM_ANALYSIS in (item_ids or ())  # a bare --items: the item analysis
    study = _study(config, base_dir, reads="snapshot")
    report = study_results(study, options)
    data = report.as_dict()
    if csv is not None and not items:
        import pandas as pd

        pd.DataFrame(data["cells"]).to_csv(csv, index=False)
    if items:
        data = _item_analysis(study, data, csv, options.ids)
    from .until_decided import with_sequential

    data = with_sequential(study, data)
    if json_out:
        console.print_json(data)
        return
    console.render_results(data, console.stdout())
    from . import efficiency_render

    if data.get("sequential"):
        efficiency_render.render_sequential_compare(
            data["sequential"], console.stdout()
        )
    if items:
        efficiency_render.render_items(data["items"], console.stdout(), report.slugs)


@app.command()
def report(
    config: ConfigArg,
    base_dir: BaseDir = None,
    json_out: Json = False,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            help="Write the HTML here instead of "
            "<study dir>/reports/<study>-<UTC time>.html.",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report (no network needed): the grid and spend,
    results with CIs, a forest plot, facet marginals, paired differences, grader
    agreement, calibration, item difficulty, errors, logs.

    \b
    Example: itemeval report configs/demo.yaml --out demo.html
    """
    from . import console
    from .report import write_report

    written = write_report(_study(config, base_dir, reads="snapshot"), out)
    if json_out:
        console.print_json(
            {
                "path": str(written.path),
                "shared": written.shared,
                "sections": written.sections,
            }
        )
    else:
        console.tell(f"report written: {written.path}")
        if written.shared:
            console.tell(f"copied beside the study: {written.shared}")


@app.command()
def show(
    config: ConfigArg,
    item_id: Annotated[
        Optional[str], typer.Argument(help="The item to show.", show_default=False)
    ] = None,
    base_dir: BaseDir = None,
    condition: Conditions = None,
    failures: Annotated[
        bool,
        typer.Option(
            "--failures",
            help="List the cells of the chosen conditions that have an "
            "error or a parse failure, with the message.",
        ),
    ] = False,
    json_out: Json = False,
) -> None:
    """One item up close: its input and target, its rendered prompt, every stored
    solution side by side and every grade with the judge's reasoning; or, with
    --failures, the failed cells of some conditions. Never writes.

    \b
    Example: itemeval show configs/demo.yaml arith-001 --condition arith-weak_concise_default
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .show import ShowOptions, show_study
    from .show_render import render_show

    options = ShowOptions(
        item_id=item_id, conditions=tuple(condition or ()), failures=failures
    )
    view = show_study(_study(config, base_dir, reads="snapshot"), options)
    if json_out:
        console.print_json(view.as_dict())
    else:
        render_show(view, console.stdout())


@app.command()
def view(
    config: ConfigArg,
    base_dir: BaseDir = None,
    port: Annotated[
        int,
        typer.Option("--port", min=0, help="Port to listen on (default: a free one)."),
    ] = 0,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to bind (default 127.0.0.1; others warn)."
        ),
    ] = "127.0.0.1",
    label: Annotated[
        bool, typer.Option("--label", help="Serve the labelling queue (needs --rater).")
    ] = False,
    rater: Annotated[
        Optional[str],
        typer.Option("--rater", help="Who labels: grade condition human-NAME."),
    ] = None,
    rubric: Annotated[
        Optional[str], typer.Option("--rubric", help="The rubric to label against.")
    ] = None,
    scale: Annotated[
        Optional[str],
        typer.Option(
            "--scale", help="Score range LOW-HIGH (default: the rubric's, else 0-1)."
        ),
    ] = None,
    sample: Annotated[
        Optional[int],
        typer.Option(
            "--sample", min=1, help="Label a random N answers (fixed by --seed)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the queue's order.")] = 0,
    blind: Annotated[
        bool,
        typer.Option("--blind", help="Hide each answer's condition while labelling."),
    ] = False,
) -> None:
    """Serve the study as a local web app (grid, items, one item, labelling queue) until
    interrupted.

    \b
    Example: itemeval view configs/demo.yaml --label --rater alice --sample 200 --blind
    """
    from .label_queue import QueueOptions
    from .labels import check_rater
    from .view import LabelSettings, ViewSettings
    from .view.serve import serve

    if label and rater is None:
        raise ConfigError("--label needs --rater NAME (whose labels these are)")
    settings = ViewSettings(
        warm=True,
        label=LabelSettings(
            rater=check_rater(rater),
            rubric=rubric,
            scale=scale,
            queue=QueueOptions(sample=sample, seed=seed, blind=blind),
        )
        if label and rater
        else None,
    )
    serve(_study(config, base_dir, reads="snapshot"), settings, host=host, port=port)


@app.command("import")
def import_logs(
    config: ConfigArg,
    logs: Annotated[
        list[str],
        typer.Argument(metavar="LOG...", help="inspect .eval/.json logs, or folders."),
    ],
    base_dir: BaseDir = None,
    id_field: Annotated[
        Optional[str],
        typer.Option(
            "--id-field",
            help="Match items by this sample metadata field instead of the sample id.",
        ),
    ] = None,
    json_out: Json = False,
) -> None:
    """Existing inspect logs as the solutions of imported conditions; no model call.

    \b
    Example: itemeval import configs/demo.yaml logs/ && itemeval grade configs/demo.yaml
    """
    from . import console
    from .importer import run_import
    from .study import load_study

    study = load_study(config, base_dir, pin=True)
    result = run_import(study, list(logs), id_field=id_field)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_import(result, console.stderr())


def _until_decided(
    config: Path,
    base_dir: Path | None,
    pair: tuple[str, str],
    sequence: dict[str, Any],
    run: dict[str, Any],
    json_out: bool,
) -> int:
    from . import console
    from .efficiency_render import render_sequential
    from .until_decided import SequentialOptions, run_until_decided

    options = SequentialOptions(pair=tuple(pair), **sequence, **run)
    result = run_until_decided(
        _study(config, base_dir), options, ask=_asker(), tell=console.tell
    )
    if json_out:
        console.print_json(result.as_dict())
    else:
        render_sequential(result.as_dict(), console.stderr())
    return result.exit_code


@app.command()
def plan(
    config: ConfigArg,
    detect: Annotated[
        float,
        typer.Option("--detect", help="The difference of mean scores to detect."),
    ],
    power: Annotated[
        float, typer.Option("--power", help="The chance of detecting it.")
    ] = 0.8,
    alpha: Alpha = 0.05,
    compare: Annotated[
        Optional[tuple[str, str]],
        typer.Option(
            "--compare",
            metavar="A B",
            help="The two generate conditions (default: the pair that varies most).",
        ),
    ] = None,
    pilot: Annotated[
        Optional[int],
        typer.Option(
            "--pilot",
            min=2,
            help="First generate and grade N random items of the conditions (kept).",
        ),
    ] = None,
    seed: SampleSeed = 0,
    base_dir: BaseDir = None,
    yes: Yes = False,
    max_usd: MaxUsd = None,
    json_out: Json = False,
) -> None:
    """How many items x replications detect a difference with the asked power, each
    priced by the estimate, from the variance of stored (or piloted) grades.

    \b
    Example: itemeval plan configs/demo.yaml --detect 0.1 --compare arith-good_concise_default arith-weak_concise_default
    """  # noqa: E501 (an example line: click prints it as written)
    from . import console
    from .efficiency_render import render_plan
    from .sizing import PlanOptions, plan_study

    options = PlanOptions(
        detect=detect,
        power=power,
        alpha=alpha,
        compare=tuple(compare or ()),
        pilot=pilot,
        seed=seed,
        yes=yes,
        max_usd=max_usd,
    )
    report = plan_study(
        _study(config, base_dir), options, ask=_asker(), tell=console.tell
    )
    if json_out:
        console.print_json(report.as_dict())
    else:
        render_plan(report.as_dict(), console.stdout())


def _item_analysis(
    study: Study, data: dict[str, Any], csv: Path | None, ids: tuple[str, ...]
) -> dict[str, Any]:
    """`results --items`: the per-item rows go in the document (and the CSV)."""
    from .item_results import items_frame, study_items
    from .results import _clean, grade_conditions

    rows = _clean(study_items(study, grade_conditions(study)))
    if ids:  # --items ID as well: those items' rows (the analysis uses every item)
        rows = [row for row in rows if row["item_id"] in ids]
    if csv is not None:
        items_frame(rows).to_csv(csv, index=False)
    return {**data, "items": rows}


ITEM_ANALYSIS = "*"
"""The value a bare `results --items` gets: the item analysis (SPEC §24)."""


def bare_items(arguments: list[str]) -> list[str]:
    """`results --items` alone asks for the item analysis; `--items ID` selects items,
    as on every selecting command. The parser needs a value, so a bare one gets
    ITEM_ANALYSIS."""
    if not arguments or arguments[0] != "results":
        return list(arguments)
    out: list[str] = []
    for index, argument in enumerate(arguments):
        out.append(argument)
        following = arguments[index + 1] if index + 1 < len(arguments) else "-"
        if argument == "--items" and following.startswith("-"):
            out.append(ITEM_ANALYSIS)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the CLI, turning itemeval's errors into their exit codes in this one
    place."""
    from .manifest import set_command_line

    arguments = sys.argv[1:] if argv is None else argv
    set_command_line(["itemeval", *arguments])
    signals.install()
    try:
        result = app(args=bare_items(arguments), standalone_mode=False)
    except ItemevalError as exc:
        return _failed(
            str(exc), exc.exit_code, exc.kind, json_out="--json" in arguments
        )
    except (typer.Abort, KeyboardInterrupt):
        from . import console

        console.stderr().print("interrupted")
        return signals.interrupted_exit_code()
    except typer.Exit as exc:
        return exc.exit_code
    except (
        typer.TyperException
    ) as exc:  # usage errors from the parser: bad option, missing argument
        exc.show()
        if "--json" in arguments:
            from . import console

            console.print_json(
                error_document(
                    exc.format_message(), exit_code=EXIT_CONFIG, kind="usage"
                )
            )
        return EXIT_CONFIG
    return result if isinstance(result, int) else 0


def _failed(message: str, exit_code: int, kind: str, *, json_out: bool) -> int:
    """The human message on stderr; under --json, also one JSON error document on
    stdout for scripts."""
    from . import console

    console.error(message)
    if json_out:
        console.print_json(error_document(message, exit_code=exit_code, kind=kind))
    return exit_code
