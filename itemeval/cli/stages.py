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
    Race,
    RoundSize,
    Rubrics,
    Sample,
    SampleSeed,
    ShardBy,
    ShardOpt,
    Stratify,
    Top,
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
    race: Race = False,
    top: Top = None,
) -> int:
    """Stage 1: run every missing (condition, item, replication) cell and store one row
    per cell.

    Resumable: re-running it runs only cells that are missing or errored. Race the
    conditions for the best one (docs/guides/racing.md): --race --top 1.

    \b
    Example: itemeval generate configs/demo.yaml --condition arith-good_concise_default --limit 5
    """  # noqa: E501 (an example line: click prints it as written)
    from ..console import render as console
    from ..plan.options import GenerateOptions
    from ..stages.generate import run_generate

    chosen = (condition, item_ids, limit, sample, stratify, force, fresh, pilot, shard)
    run = dict(alpha=alpha, max_items=max_items, seed=seed, yes=yes, max_usd=max_usd)
    adaptive = dict(race=race, top=top, until_decided=until_decided, margin=margin)
    if race or until_decided or top is not None:
        run |= dict(round_size=round_size, display=display or "none")
        return _adaptive((config, base_dir), adaptive, chosen, run, json_out)
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


def _adaptive(
    where: tuple[Path, Path | None],
    adaptive: dict[str, Any],
    chosen: tuple[Any, ...],
    run: dict[str, Any],
    json_out: bool,
) -> int:
    """--race or --until-decided, each alone: they choose conditions and items."""
    if adaptive["top"] is not None and not adaptive["race"]:
        raise ConfigError("--top names how many conditions --race keeps: add --race")
    if adaptive["race"] and (adaptive["until_decided"] or adaptive["margin"]):
        raise ConfigError(
            "--race races every condition and --until-decided decides one pair: use "
            "one of them (--margin belongs to --until-decided)"
        )
    flag = "--race" if adaptive["race"] else "--until-decided"
    if any(chosen):
        raise ConfigError(
            f"{flag} chooses its own conditions and items: drop "
            "--condition, --items, --limit, --sample, --stratify, --force, "
            "--fresh, --pilot and --shard"
        )
    if adaptive["race"]:
        return _race(where, _top(adaptive["top"]), run, json_out)
    pair, round_size = adaptive["until_decided"], run.pop("round_size")
    return _until_decided(
        where, pair, run | {"margin": adaptive["margin"]}, round_size, json_out
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


def _top(given: str | None) -> int | str:
    """--top K (a whole number from 1) or all; 1 when not given."""
    if given is None or given == "all":
        return given or 1
    if given.isdigit() and int(given) >= 1:
        return int(given)
    raise ConfigError(
        f"--top {given}: name how many best conditions to keep (1, 2, ...) or all"
    )


def _race(
    where: tuple[Path, Path | None],
    top: int | str,
    chosen: dict[str, Any],
    json_out: bool,
) -> int:
    from ..adaptive.racing import RaceOptions, run_race
    from ..console import render as console
    from ..console.race import render_race

    result = run_race(
        open_study(*where),
        RaceOptions(top=top, **chosen),
        ask=asker(),
        tell=console.tell,
    )
    if json_out:
        console.print_json(result.as_dict())
    else:
        render_race(result.as_dict(), console.stderr())
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
