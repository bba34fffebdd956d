"""The commands that size and spread a stage's run: estimate (its cost), launch
(its shards) and plan (how many items)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from .app import _asker, _finish, _selection, _stage_options, _study, app
from .options import (
    Alpha,
    BaseDir,
    Conditions,
    ConfigArg,
    Force,
    Graders,
    Ids,
    ItemIds,
    Json,
    LaunchDisplay,
    Limit,
    MaxUsd,
    Pilot,
    Rubrics,
    Sample,
    SampleSeed,
    ShardBy,
    Stratify,
    Yes,
)

if TYPE_CHECKING:
    from ..outcomes import StageResult
    from ..study.load import Study


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
    from ..console import render as console
    from ..stages.estimate import EstimateOptions, run_estimate

    if stage not in ("all", "generate", "grade"):
        raise typer.BadParameter(
            f"unknown stage {stage!r}: use all, generate or grade", param_hint="--stage"
        )
    selection = _selection(condition, limit, item_ids, sample, seed, stratify)
    options = EstimateOptions(
        **selection,
        force=force,
        graders=tuple(grader or ()),
        rubrics=tuple(rubric or ()),
        stage=stage,
    )
    study = _study(config, base_dir)
    if pilot is not None:  # real calls: the pilot's cells are kept in the store
        ran = _pilot(study, pilot, selection, yes=yes, max_usd=max_usd)
        if ran.exit_code:
            return _finish(ran, json_out)
    result = run_estimate(study, options)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_estimate(result, console.stdout(), ids=ids)
    return 0


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
    from ..console import render as console
    from ..stages.generate import GenerateOptions
    from ..stages.grade.stage import GradeOptions
    from ..stages.launch.stage import LaunchOptions, run_launch

    _check_launch(stage, shard_by, display, judges=bool(grader or rubric))
    common = _stage_options(
        display,
        **_selection(condition, limit, item_ids, sample, seed, stratify),
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
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the --pilot's random items.")
    ] = 0,
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
    from ..adaptive.sizing import PlanOptions, plan_study
    from ..console import render as console
    from ..console.efficiency import render_plan

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


def _pilot(
    study: Study,
    pilot: int,
    selection: dict[str, Any],
    *,
    yes: bool,
    max_usd: float | None,
) -> StageResult:
    """`estimate --pilot N`: generate N random items per condition first, for real."""
    from ..console import render as console
    from ..stages.generate import GenerateOptions, run_pilot

    options = GenerateOptions(
        **_stage_options(None, **selection, pilot=pilot, yes=yes, max_usd=max_usd)
    )
    ran = run_pilot(
        study, options, options.chosen(study.items), ask=_asker(), tell=console.tell
    )
    if not ran.exit_code:
        console.tell(
            f"pilot: {sum(c.rows for c in ran.conditions)} cells ran (run "
            f"{ran.run_id}); "
            "the estimate below projects the rest from their replies"
        )
    return ran


def _check_launch(
    stage: str, shard_by: str, display: str | None, *, judges: bool
) -> None:
    """launch's own refusals of options its shards could not honour."""
    if shard_by not in ("cell", "model"):
        raise typer.BadParameter(
            f"{shard_by!r}: use cell or model", param_hint="--shard-by"
        )
    if stage == "generate" and judges:
        raise typer.BadParameter(
            "--grader and --rubric select judges: use them with `launch grade`"
        )
    if display not in (None, "itemeval", "none"):
        raise typer.BadParameter(
            f"{display!r}: launch draws itemeval's display or none (its shards run "
            "without inspect's)",
            param_hint="--display",
        )
