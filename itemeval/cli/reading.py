"""The commands that read a study: status, commit, export, results, report and
show."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import ConfigError
from ..textfiles import write_named
from .app import app, open_study
from .options import (
    BaseDir,
    Conditions,
    ConfigArg,
    Ids,
    Json,
    Judges,
    Sample,
    Stratify,
    Variance,
)

if TYPE_CHECKING:
    from ..result_values import ResultsReport
    from ..results.options import ResultsOptions
    from ..study.load import Study


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
    from ..console import render as console
    from ..engine.batch.listing import batch_rows, render
    from ..results.status import study_status

    report = study_status(open_study(config, base_dir, reads="snapshot"))
    open_batches = batch_rows(report.study.paths)
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
def commit(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Merge the journal parts of finished shards (`generate|grade --shard K/N`) into
    the stores; safe to repeat.

    \b
    Example: itemeval generate configs/demo.yaml --shard 0/2 & itemeval generate configs/demo.yaml --shard 1/2; wait; itemeval commit configs/demo.yaml
    """  # noqa: E501 (an example line: click prints it as written)
    from ..console import render as console
    from ..stages.commit import commit as commit_study

    recovered = commit_study(open_study(config, base_dir))
    if json_out:
        console.print_json({"recovered_rows": recovered})
    else:
        rows = ", ".join(f"{n} {store} rows" for store, n in recovered.items())
        console.tell(
            f"committed: {rows} from journal parts"
            if rows
            else "committed: no journal part was waiting (nothing to merge)"
        )


@app.command()
def export(config: ConfigArg, base_dir: BaseDir = None, json_out: Json = False) -> None:
    """Write export/grades_long.parquet and .csv: one row per grade joined to its
    solution and item.

    Never aggregated: every grading event, with facet values, ready for IRT or mixed
    models.

    \b
    Example: itemeval export configs/demo.yaml && python -c "import pandas; print(pandas.read_csv('studies/demo/export/grades_long.csv').groupby(['grade_condition_slug', 'model']).score.mean())"
    """  # noqa: E501 (an example line: click prints it as written)
    from ..bridges.export import run_export
    from ..console import render as console

    result = run_export(open_study(config, base_dir, reads="snapshot"))
    if json_out:
        console.print_json(console.export_dict(result))
    else:
        console.render_export(result, console.stderr())


Reducer = Annotated[
    str,
    typer.Option(
        "--reducer",
        help="Replications to one score per item: mean, median, mode, "
        "max, min, majority, pass@K or at_least:K.",
    ),
]
Draws = Annotated[
    str,
    typer.Option(
        "--draws",
        help="A judge's draws of one answer to one score: mean, majority or median.",
    ),
]
Interval = Annotated[
    str,
    typer.Option(
        "--ci",
        help="Interval over items: auto (Wilson for 0/1 scores, bounded Wilson "
        "for other scores: never off their scale), t, wilson or bootstrap.",
    ),
]
Seed = Annotated[
    int,
    typer.Option("--seed", help="Seed of the bootstrap's resampling and of --sample."),
]
ResultItems = Annotated[
    Optional[list[str]],
    typer.Option(
        "--items",
        help="Only the items with these ids (repeatable, or joined by commas). "
        "Bare (`results CONFIG "
        "--items`): the item analysis: pass rate (the mean score, higher is "
        "easier), discrimination, 2PL IRT and flags per item (--csv then writes "
        "these rows).",
    ),
]
By = Annotated[
    Optional[list[str]],
    typer.Option(
        "--by",
        help="Marginals per level of a facet: model, prompt, "
        "model_config, grader, rubric, scorer or an item metadata column "
        "(repeatable).",
    ),
]
Compare = Annotated[
    Optional[list[str]],
    typer.Option(
        "--compare",
        help="Paired comparison of two generate "
        "conditions, `--compare A B`, or of every pair, "
        "`--compare all`; with `--by model` (or prompt, model_config) also the "
        "facet's levels, each item averaged over the other facets.",
    ),
]
Threshold = Annotated[
    Optional[float],
    typer.Option(
        "--threshold",
        help="Pass mark of the agreement confusion "
        "(default: the middle of the observed scale).",
    ),
]
Csv = Annotated[
    Optional[Path],
    typer.Option("--csv", help="Also write the cells to this CSV file."),
]
Compared = Annotated[
    Optional[list[str]], typer.Argument(hidden=True, show_default=False)
]


@app.command()
def results(
    config: ConfigArg,
    compared: Compared = None,
    base_dir: BaseDir = None,
    json_out: Json = False,
    reducer: Reducer = "mean",
    draws: Draws = "mean",
    ci: Interval = "auto",
    seed: Seed = 0,
    sample: Sample = None,
    stratify: Stratify = None,
    item_ids: ResultItems = None,
    by: By = None,
    compare: Compare = None,
    threshold: Threshold = None,
    csv: Csv = None,
    judges: Judges = False,
    variance: Variance = False,
) -> None:
    """Per cell of the grid: mean item score with SE and 95% CI; marginals, paired
    comparisons, grader agreement and calibration. Computed from the stores; never
    writes them.

    \b
    Example: itemeval results configs/demo.yaml --by model --compare arith-good arith-weak
    """  # noqa: E501 (an example line: click prints it as written)
    from ..console import render as console
    from ..results.compute import study_results
    from ..results.reliability import reliability_sections

    chosen = (compared, compare, item_ids, reducer, ci, seed, by, threshold)
    options = replace(_results_options(*chosen, sample, stratify), draws=draws)
    items = ITEM_ANALYSIS in (item_ids or ())  # a bare --items: the item analysis
    study = open_study(config, base_dir, reads="snapshot")
    report = study_results(study, options)
    data = _results_data(study, report, options, csv, items=items)
    data |= reliability_sections(study, options, judges=judges, variance=variance)
    if json_out:
        console.print_json(data)
    else:
        _render_results(report, data, items=items)


def _results_options(
    compared, compare, item_ids, reducer, ci, seed, by, threshold, sample, stratify
) -> ResultsOptions:
    """The options as the library takes them; `compare`'s second condition may come
    as a stray argument (`--compare A B`)."""
    from ..results.options import ResultsOptions

    if compared and not compare:
        raise ConfigError(
            f"unexpected argument(s) {' '.join(compared)}; did you mean --compare A B?"
        )
    chosen = (*(compare or ()), *(compared or ()))
    # --compare with --by a generate facet compares that facet's levels
    return ResultsOptions(
        reducer=reducer,
        ci=ci,
        seed=seed,
        by=tuple(by or ()),
        compare=chosen,
        threshold=threshold,
        sample=sample,
        stratify=stratify,
        ids=tuple(i for i in item_ids or () if i != ITEM_ANALYSIS),
    )


def _results_data(
    study: Study,
    report: ResultsReport,
    options: ResultsOptions,
    csv: Path | None,
    *,
    items: bool,
) -> dict[str, Any]:
    """The JSON document: the results, the item analysis of a bare --items, and a
    sequential comparison's figures; the cells (or items) written to --csv."""
    from ..adaptive import race_record, until_decided
    from ..results.declared import exploratory

    data = report.as_dict()
    if csv is not None and not items:
        import dataclasses

        import pandas as pd

        from ..result_values import Cell

        # the header even without a cell (a study of pairwise judges only)
        columns = [f.name for f in dataclasses.fields(Cell)]
        frame = pd.DataFrame(data["cells"])
        frame = frame.reindex(columns=list(frame.columns) or columns)
        write_named(csv, lambda path: frame.to_csv(path, index=False), "--csv")
    if items:
        data = _item_analysis(study, data, csv, options.ids)
    data = race_record.with_race(study, until_decided.with_sequential(study, data))
    return exploratory(data)


def _render_results(
    report: ResultsReport, data: dict[str, Any], *, items: bool
) -> None:
    """The results' tables; then a sequential comparison's, the last race's and the
    item analysis'."""
    from ..console import efficiency as efficiency_render
    from ..console import reliability as reliability_render
    from ..console import render as console

    console.render_results(report, console.stdout())
    efficiency_render.render_beside_results(data, console.stdout())
    if items:
        efficiency_render.render_items(data["items"], console.stdout(), report.slugs)
    if "judges" in data:
        reliability_render.render_judges(data["judges"], console.stdout())
    if "variance" in data:
        reliability_render.render_variance(data["variance"], console.stdout())


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
    from ..console import render as console
    from ..report.document import write_report

    written = write_report(open_study(config, base_dir, reads="snapshot"), out)
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
    from ..console import render as console
    from ..console.show import render_show
    from ..results.show import ShowOptions, show_study

    options = ShowOptions(
        item_id=item_id, conditions=tuple(condition or ()), failures=failures
    )
    view = show_study(open_study(config, base_dir, reads="snapshot"), options)
    if json_out:
        console.print_json(view.as_dict())
    else:
        render_show(view, console.stdout())


def _item_analysis(
    study: Study, data: dict[str, Any], csv: Path | None, ids: tuple[str, ...]
) -> dict[str, Any]:
    """`results --items`: the per-item rows go in the document (and the CSV)."""
    from ..result_values import clean
    from ..results.compute import grade_conditions
    from ..results.items import items_frame, study_items

    rows = clean(study_items(study, grade_conditions(study)))
    if ids:  # --items ID as well: those items' rows (the analysis uses every item)
        rows = [row for row in rows if row["item_id"] in ids]
    if csv is not None:
        frame = items_frame(rows)
        write_named(csv, lambda path: frame.to_csv(path, index=False), "--csv")
    return {**data, "items": rows}


ITEM_ANALYSIS = "*"
"""The value a bare `results --items` gets: the item analysis."""
