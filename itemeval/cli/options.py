"""The options and arguments several commands share, typed once."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Optional

import typer

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
    typer.Option(
        "--items",
        help="Only the items with these ids: repeatable, or ids joined by commas.",
        metavar="ID[,ID...]",
    ),
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
Only = Annotated[
    Optional[list[str]],
    typer.Option(
        "--only",
        help="Only the grades that are parse-failures or "
        "errors (repeatable); add --fresh for new draws.",
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
        "(--seed) until an anytime-valid confidence sequence decides "
        "(docs/guides/spending-less.md).",
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
    typer.Option(
        "--max-items", min=1, help="--until-decided, --race: stop after N items."
    ),
]
RoundSize = Annotated[
    int,
    typer.Option("--round", min=1, help="--until-decided, --race: items per round."),
]
Race = Annotated[
    bool,
    typer.Option(
        "--race",
        help="Race every generate condition in rounds of items (--seed order); a "
        "condition leaves once pairwise confidence sequences show it cannot be in "
        "the --top K (docs/guides/racing.md).",
    ),
]
Top = Annotated[
    Optional[str],
    typer.Option(
        "--top",
        metavar="K|all",
        help="--race: how many best conditions to name (default 1), or all for a "
        "full ranking.",
    ),
]

# ---- options of one command each (named here so each command reads as a list) ----

EstimateStage = Annotated[str, typer.Option("--stage", help="all, generate or grade.")]
LaunchStage = Annotated[str, typer.Argument(metavar="STAGE", help="generate or grade.")]
Shards = Annotated[int, typer.Option("--shards", min=1, help="How many shards.")]
Engine = Annotated[
    str,
    typer.Option(
        "--engine",
        help="local: a process pool on this machine; ray: Ray tasks "
        "(pip install 'itemeval[ray]').",
    ),
]
Address = Annotated[
    Optional[str],
    typer.Option(
        "--address",
        help="--engine ray: the cluster (auto, ray://host:port); "
        "default: RAY_ADDRESS, else Ray on this machine.",
    ),
]
GpusPerShard = Annotated[
    float,
    typer.Option(
        "--gpus-per-shard",
        min=0,
        help="--engine ray: GPUs each shard task asks for (a local model per node).",
    ),
]
Detect = Annotated[
    float,
    typer.Option("--detect", help="The difference of mean scores to detect."),
]
Power = Annotated[float, typer.Option("--power", help="The chance of detecting it.")]
PlanCompare = Annotated[
    Optional[tuple[str, str]],
    typer.Option(
        "--compare",
        metavar="A B",
        help="The two generate conditions (default: the pair that varies most).",
    ),
]
PlanPilot = Annotated[
    Optional[int],
    typer.Option(
        "--pilot",
        min=2,
        help="First generate and grade N random items of the conditions (kept).",
    ),
]
PlanSeed = Annotated[
    int, typer.Option("--seed", help="Seed of the --pilot's random items.")
]
Judges = Annotated[
    bool,
    typer.Option(
        "--judges",
        help="A reliability card per judge: test-retest across draws, verdict "
        "flips, agreement with people, self-preference.",
    ),
]
Variance = Annotated[
    bool,
    typer.Option(
        "--variance",
        help="The G-study: each facet's share of the score variance, the G "
        "coefficient of the model ranking, and cheaper designs.",
    ),
]
