"""The commands that run the two stages: generate and grade."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from ..errors import ConfigError
from .app import app, asker, chosen_display, finish, open_study, selection
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
    Limit,
    Margin,
    MaxItems,
    MaxUsd,
    Only,
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

if TYPE_CHECKING:
    from pathlib import Path

    from ..records import Shard


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
    from ..console import render as console
    from ..plan.options import GenerateOptions
    from ..stages.generate import run_generate

    if until_decided:
        chosen = (condition, item_ids, limit, sample, stratify, force, fresh, pilot)
        _alone_with_until_decided(chosen, shard)
        sequence = dict(alpha=alpha, margin=margin, max_items=max_items)
        run = dict(seed=seed, yes=yes, max_usd=max_usd, display=display or "none")
        return _until_decided(
            (config, base_dir), until_decided, sequence | run, round_size, json_out
        )
    options = GenerateOptions.of(
        selection(condition, limit, item_ids, sample, seed, stratify),
        force=force,
        fresh=fresh,
        yes=yes,
        max_usd=max_usd,
        pilot=pilot,
        shard=_shard(shard, shard_by),
        display=chosen_display(display),
    )
    study = open_study(config, base_dir)
    return finish(
        run_generate(study, options, ask=asker(), tell=console.tell), json_out, ids=ids
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
    only: Only = None,
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
    from ..console import render as console
    from ..plan.options import GradeOptions
    from ..stages.grade.stage import run_grade

    options = GradeOptions.of(
        selection(condition, limit, item_ids, sample, seed, stratify),
        force=force,
        fresh=fresh,
        yes=yes,
        max_usd=max_usd,
        graders=tuple(grader or ()),
        rubrics=tuple(rubric or ()),
        only=_only(only),
        shard=_shard(shard, shard_by),
        display=chosen_display(display),
    )
    study = open_study(config, base_dir)
    return finish(
        run_grade(study, options, ask=asker(), tell=console.tell),
        json_out,
        config,
        ids=ids,
    )


def _until_decided(
    where: tuple[Path, Path | None],
    pair: tuple[str, str],
    chosen: dict[str, Any],
    round_size: int,
    json_out: bool,
) -> int:
    from ..adaptive.until_decided import SequentialOptions, run_until_decided
    from ..console import render as console
    from ..console.efficiency import render_sequential

    options = SequentialOptions(pair=tuple(pair), round_size=round_size, **chosen)
    result = run_until_decided(
        open_study(*where), options, ask=asker(), tell=console.tell
    )
    if json_out:
        console.print_json(result.as_dict())
    else:
        render_sequential(result.as_dict(), console.stderr())
    return result.exit_code


def _only(only: list[str] | None) -> tuple[str, ...]:
    """--only's states, each one the grade stage knows."""
    from ..plan.cells import ONLY_STATES

    unknown = sorted(set(only or ()) - set(ONLY_STATES))
    if unknown:
        raise typer.BadParameter(
            f"{', '.join(unknown)}: use {' or '.join(ONLY_STATES)}", param_hint="--only"
        )
    return tuple(only or ())


def _shard(shard: str | None, shard_by: str) -> Shard | None:
    from ..records import Shard

    return Shard.parse(shard, shard_by) if shard is not None else None


def _alone_with_until_decided(chosen: tuple[Any, ...], shard: str | None) -> None:
    """--until-decided picks the conditions and items itself."""
    if any(chosen) or shard:
        raise ConfigError(
            "--until-decided chooses its own conditions and items: drop "
            "--condition, --items, --limit, --sample, --stratify, --force, "
            "--fresh, --pilot and --shard"
        )
