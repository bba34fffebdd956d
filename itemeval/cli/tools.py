"""The commands around the stages: init, schema, batches, view, labels and import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import ConfigError
from .app import app, open_study
from .options import (
    BaseDir,
    ConfigArg,
    Json,
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
    from ..console import render as console
    from ..study.scaffold import scaffold

    target = base_dir / directory if base_dir is not None else directory
    written = scaffold(target, force=force)
    if json_out:
        console.print_json(
            {"directory": str(target), "written": [str(path) for path in written]}
        )
    else:
        # what was written is the command's output: stdout, as `ls` would print it
        console.render_init(written, target, console.stdout())


@app.command()
def schema() -> None:
    """Print the study config's JSON Schema (the one `itemeval init`'s configs name
    for editors that complete and check keys as one types).

    \b
    Example: itemeval schema > itemeval.schema.json
    """
    from ..study.schema import schema_text

    typer.echo(schema_text(), nl=False)


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
    from ..console import render as console
    from ..engine.batch.listing import batch_rows, cancel_open, render
    from ..store.recovery import locked

    study = open_study(config, base_dir)
    cancelled = None
    if cancel:
        with locked(study.paths, "batches"):
            cancelled = cancel_open(study.paths)
    rows = batch_rows(study.paths)
    if json_out:
        extra = {} if cancelled is None else {"cancelled": cancelled}
        console.print_json({"batches": rows, **extra})
        return
    out = console.stdout()
    for row in cancelled or []:
        out.print(f"{row['batch_id']}: {row['state']}", markup=False, highlight=False)
    render(rows, lambda line: out.print(line, markup=False, highlight=False))


Port = Annotated[
    int,
    typer.Option("--port", min=0, help="Port to listen on (default: a free one)."),
]
Host = Annotated[
    str,
    typer.Option("--host", help="Address to bind (default 127.0.0.1; others warn)."),
]
Label = Annotated[
    bool, typer.Option("--label", help="Serve the labelling queue (needs --rater).")
]
Rater = Annotated[
    Optional[str],
    typer.Option("--rater", help="Who labels: grade condition human-NAME."),
]
Rubric = Annotated[
    Optional[str], typer.Option("--rubric", help="The rubric to label against.")
]
Scale = Annotated[
    Optional[str],
    typer.Option(
        "--scale", help="Score range LOW-HIGH (default: the rubric's, else 0-1)."
    ),
]
LabelSample = Annotated[
    Optional[int],
    typer.Option("--sample", min=1, help="Label a random N answers (fixed by --seed)."),
]
QueueSeed = Annotated[int, typer.Option("--seed", help="Seed of the queue's order.")]
Blind = Annotated[
    bool,
    typer.Option("--blind", help="Hide each answer's condition while labelling."),
]
Active = Annotated[
    bool,
    typer.Option(
        "--active",
        help="Draw each next answer where its label narrows the corrected means "
        "most (by cell and the judge's verdict, each with a known probability).",
    ),
]
ActiveJudge = Annotated[
    Optional[str],
    typer.Option(
        "--active-judge",
        help="The judge whose verdicts --active follows (default: the first "
        "grading under the rater's rubric).",
    ),
]
ActiveShare = Annotated[
    float,
    typer.Option(
        "--active-share",
        min=0.01,
        max=1.0,
        help="--active's uniform share of each draw (each answer keeps at least "
        "share/N).",
    ),
]


@app.command()
def view(
    config: ConfigArg,
    base_dir: BaseDir = None,
    port: Port = 0,
    host: Host = "127.0.0.1",
    label: Label = False,
    rater: Rater = None,
    rubric: Rubric = None,
    scale: Scale = None,
    sample: LabelSample = None,
    seed: QueueSeed = 0,
    blind: Blind = False,
    active: Active = False,
    active_judge: ActiveJudge = None,
    active_share: ActiveShare = 0.2,
) -> None:
    """Serve the study as a local web app (grid, items, one item, labelling queue) until
    interrupted.

    \b
    Example: itemeval view configs/demo.yaml --label --rater alice --sample 200 --blind
    Example: itemeval view configs/demo.yaml --label --rater alice --active
    """
    from ..results.label_queue import QueueOptions
    from ..view import ViewSettings
    from ..view.serve import serve

    queue = QueueOptions(
        sample=sample,
        seed=seed,
        blind=blind,
        active=active,
        judge=active_judge,
        share=active_share,
    )
    settings = ViewSettings(
        warm=True, label=_label_settings(label, rater, rubric, scale, queue)
    )
    serve(
        open_study(config, base_dir, reads="snapshot"), settings, host=host, port=port
    )


def _label_settings(label, rater, rubric, scale, queue) -> Any:
    """The labelling settings, None without --label; a queue option without it is
    refused (it would shape nothing)."""
    from ..results.label_queue import QueueOptions
    from ..results.labels import check_rater
    from ..view import LabelSettings

    if label and not rater:
        raise ConfigError("--label needs --rater NAME (whose labels these are)")
    plain = QueueOptions()
    given = {
        "--rater": rater is not None,
        "--rubric": rubric is not None,
        "--scale": scale is not None,
        "--sample": queue.sample is not None,
        "--seed": queue.seed != plain.seed,
        "--blind": queue.blind,
        "--active": queue.active,
        "--active-judge": queue.judge is not None,
        "--active-share": queue.share != plain.share,
    }
    unused = [name for name, on in given.items() if on]
    if unused and not label:
        raise ConfigError(
            f"{', '.join(unused)} shape the labelling queue: add --label (e.g. "
            "--label --rater alice), or leave them out to browse the study"
        )
    if not label:
        return None
    return LabelSettings(
        rater=check_rater(rater), rubric=rubric, scale=scale, queue=queue
    )


@app.command()
def labels(
    config: ConfigArg,
    file: Annotated[
        Path,
        typer.Argument(
            help="A .csv (with a header) or .jsonl of labels: condition (id, id "
            "prefix or slug), item_id, epoch (default 1), score."
        ),
    ],
    rater: Annotated[
        str, typer.Option("--rater", help="Whose labels these are (e.g. alice).")
    ],
    rubric: Annotated[
        Optional[str],
        typer.Option(
            "--rubric", help="The rubric the labels follow (default: the first)."
        ),
    ] = None,
    base_dir: BaseDir = None,
    json_out: Json = False,
) -> None:
    """Add human labels from a file, as the view's labelling queue writes them.

    Every row is checked (a stored answer, a score on the rubric's scale) before any is
    written; a label of an answer the rater labelled before replaces it.

    \b
    Example: itemeval labels configs/demo.yaml labels.csv --rater alice
    """
    from dataclasses import asdict

    from ..bridges.labels import import_labels
    from ..console import render as console
    from ..results.labels import check_rater

    done = import_labels(open_study(config, base_dir), file, check_rater(rater), rubric)
    if json_out:
        console.print_json(asdict(done))
    else:
        console.tell(
            f"{done.labels} label(s) by {done.rater} against rubric {done.rubric} "
            f"written ({done.replaced} replaced earlier ones); the corrected "
            f"estimates: itemeval results {config}"
        )


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
    from ..bridges.importer import run_import
    from ..console import render as console
    from ..study.load import load_study

    study = load_study(config, base_dir, pin=True)
    result = run_import(study, list(logs), id_field=id_field)
    if json_out:
        console.print_json(result.as_dict())
    else:
        console.render_import(result, console.stderr())
