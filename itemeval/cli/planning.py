"""The commands that size and spread a stage's run: estimate (its cost), launch
(its shards) and plan (how many items)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .app import app, asker, chosen_display, finish, open_study, selection
from .options import (
    Address,
    Alpha,
    BaseDir,
    Conditions,
    ConfigArg,
    Detect,
    Engine,
    EstimateStage,
    Force,
    GpusPerShard,
    Graders,
    Ids,
    ItemIds,
    Json,
    LaunchDisplay,
    LaunchStage,
    Limit,
    MaxUsd,
    Pilot,
    PlanCompare,
    PlanPilot,
    PlanSeed,
    Power,
    Rubrics,
    Sample,
    SampleSeed,
    ShardBy,
    Shards,
    Stratify,
    Yes,
)

if TYPE_CHECKING:
    from ..outcomes import StageResult
    from ..plan.options import Selection
    from ..study.load import Study


@app.command()
def estimate(
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
    pilot: Pilot = None,
    stage: EstimateStage = "all",
    yes: Yes = False,
    max_usd: MaxUsd = None,
    json_out: Json = False,
    ids: Ids = False,
) -> int:
    """Project calls, tokens and USD of what generate and grade would run: the
    ceiling, and the expected figure once replies of a condition have been seen.

    No model calls, except with --pilot: the pilot's calls are paid, behind the same
    spend gate (--yes) and cap (--max-usd, budget.max_usd) as generate.

    \b
    Example: itemeval estimate configs/demo.yaml --stage generate --json
    """
    from ..console import render as console
    from ..plan.options import EstimateOptions
    from ..stages.estimate import run_estimate

    if stage not in ("all", "generate", "grade"):
        raise typer.BadParameter(
            f"unknown stage {stage!r}: use all, generate or grade", param_hint="--stage"
        )
    chosen = selection(condition, limit, item_ids, sample, seed, stratify)
    options = EstimateOptions.of(
        chosen,
        force=force,
        graders=tuple(grader or ()),
        rubrics=tuple(rubric or ()),
        stage=stage,
    )
    study = open_study(config, base_dir)
    if pilot is not None:  # real calls: the pilot's cells are kept in the store
        ran = _pilot(study, pilot, chosen, yes=yes, max_usd=max_usd)
        if ran.exit_code:
            return finish(ran, json_out)
    result = run_estimate(study, options)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_estimate(result, console.stdout(), ids=ids)
    return 0


@app.command()
def launch(
    stage: LaunchStage,
    config: ConfigArg,
    shards: Shards = 2,
    engine: Engine = "local",
    address: Address = None,
    gpus_per_shard: GpusPerShard = 0.0,
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
    from ..plan.options import GenerateOptions, GradeOptions
    from ..stages.launch.stage import LaunchOptions, run_launch

    _check_launch(stage, shard_by, display, judges=bool(grader or rubric))
    chosen = selection(condition, limit, item_ids, sample, seed, stratify)
    common = dict(yes=yes, max_usd=max_usd, display=chosen_display(display))
    options = LaunchOptions(
        shards=shards,
        config=config,
        base_dir=base_dir,
        stage=stage,
        engine=engine,
        address=address,
        gpus_per_shard=gpus_per_shard,
        shard_by=shard_by,
        generate=GenerateOptions.of(chosen, **common),
        grade=GradeOptions.of(
            chosen, **common, graders=tuple(grader or ()), rubrics=tuple(rubric or ())
        ),
    )
    study = open_study(config, base_dir)
    return finish(run_launch(study, options, ask=asker(), tell=console.tell), json_out)


@app.command()
def plan(
    config: ConfigArg,
    detect: Detect,
    power: Power = 0.8,
    alpha: Alpha = 0.05,
    compare: PlanCompare = None,
    pilot: PlanPilot = None,
    seed: PlanSeed = 0,
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
        open_study(config, base_dir), options, ask=asker(), tell=console.tell
    )
    if json_out:
        console.print_json(report.as_dict())
    else:
        render_plan(report.as_dict(), console.stdout())


def _pilot(
    study: Study,
    pilot: int,
    chosen: Selection,
    *,
    yes: bool,
    max_usd: float | None,
) -> StageResult:
    """`estimate --pilot N`: generate N random items per condition first, for real."""
    from ..console import render as console
    from ..plan.options import GenerateOptions
    from ..stages.generate import run_pilot

    options = GenerateOptions.of(
        chosen, pilot=pilot, yes=yes, max_usd=max_usd, display=chosen_display(None)
    )
    ran = run_pilot(
        study, options, options.chosen(study.items), ask=asker(), tell=console.tell
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


@app.command()
def preregister(
    config: ConfigArg,
    amend: Annotated[
        bool,
        typer.Option(
            "--amend", help="A new file beside the declaration: the changed plan."
        ),
    ] = False,
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Why the plan changes (--amend needs one)."),
    ] = None,
    after_data: Annotated[
        bool,
        typer.Option(
            "--after-data",
            help="Declare although solutions exist, recorded as made after the data.",
        ),
    ] = False,
    base_dir: BaseDir = None,
    json_out: Json = False,
) -> None:
    """Freeze the config's `analysis:` (pairs, metrics, alpha, correction, interval,
    reducer, stopping rule) and the item set's hash into
    <study>/preregistration/<time>-declaration.json, before the first generate;
    amendments are new files. No file is ever rewritten.

    \b
    Example: itemeval preregister configs/demo.yaml
    Example: itemeval preregister configs/demo.yaml --amend --reason "a third arm"
    """
    from ..console import render as console
    from ..console.preregistration import render_declaration
    from ..study.preregistration import preregister as write_declaration

    study = open_study(config, base_dir)
    written = write_declaration(
        study, amend=amend, reason=reason, after_data=after_data
    )
    if json_out:
        console.print_json({"file": str(written.path), **written.body})
    else:
        render_declaration(written.body, str(written.path), console.stdout())
