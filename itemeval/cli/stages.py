"""The commands that run the stages: estimate, generate, grade and launch."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import ConfigError
from .app import _asker, _finish, _stage_options, _study, app
from .options import (
    Alpha,
    BaseDir,
    Conditions,
    ConfigArg,
    Display,
    Force,
    Fresh,
    Graders,
    Ids,
    ItemIds,
    Json,
    LaunchDisplay,
    Limit,
    Margin,
    MaxItems,
    MaxUsd,
    Pilot,
    RoundSize,
    Rubrics,
    Sample,
    SampleSeed,
    ShardBy,
    ShardOpt,
    Stratify,
    UntilDecided,
    Yes,
)


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
    from .. import console
    from ..estimate import EstimateOptions, run_estimate

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
        from ..generate import GenerateOptions, run_pilot

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
    from .. import console
    from ..generate import GenerateOptions, run_generate
    from ..plan import Shard

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
    from .. import console
    from ..grade import GradeOptions, run_grade
    from ..plan import ONLY_STATES, Shard

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
    from .. import console
    from ..generate import GenerateOptions
    from ..grade import GradeOptions
    from ..launch import LaunchOptions, run_launch

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


def _until_decided(
    config: Path,
    base_dir: Path | None,
    pair: tuple[str, str],
    sequence: dict[str, Any],
    run: dict[str, Any],
    json_out: bool,
) -> int:
    from .. import console
    from ..efficiency_render import render_sequential
    from ..until_decided import SequentialOptions, run_until_decided

    options = SequentialOptions(pair=tuple(pair), **sequence, **run)
    result = run_until_decided(
        _study(config, base_dir), options, ask=_asker(), tell=console.tell
    )
    if json_out:
        console.print_json(result.as_dict())
    else:
        render_sequential(result.as_dict(), console.stderr())
    return result.exit_code
