"""`itemeval report`: one self-contained HTML file of a study's results.

Plots are matplotlib SVG written inline (glyphs as paths), heatmaps are shaded tables,
styles are inline, and there is no script: the file opens from disk in any browser with
no network. Every number comes from `itemeval results`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..errors import StoreError
from ..plan.cascade_counts import settled
from ..plan.state import shared_states
from ..result_values import ResultsReport
from ..results.cells import graded_frame
from ..results.compute import grade_conditions, study_results
from ..results.facets import GEN_FACETS, facet_level
from ..results.options import ResultsOptions
from ..results.status import StatusReport, study_status
from ..store import mirror, read_store
from ..study.load import Study
from ..textfiles import write_named
from . import headline as report_headline
from . import plots as report_plots
from .html import esc, html_table, num, svg
from .intervals import STYLE as _INTERVAL_STYLE
from .items import items_section
from .judges import judges_section
from .metrics import criteria_section, metrics_section
from .pairwise import pairwise_section
from .preregistration import preregistration_section

_STYLE = (  # the report's stylesheet
    "\n"
    "body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,"
    "sans-serif;margin:2rem auto;max-width:1100px;\n"
    "color:#1d1d1f;padding:0 1rem}\n"
    "h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;"
    "border-bottom:1px solid #ddd;padding-bottom:.3rem}\n"
    "table{border-collapse:collapse;font-size:.85rem;"
    "margin:.6rem 0}th,td{padding:.25rem .6rem;"
    "border-bottom:1px solid #eee;\n"
    "text-align:right}"
    "th:first-child,td:first-child,th.l,td.l{text-align:left}"
    "code{background:#f4f4f4;padding:.1rem .3rem}\n"
    ".muted{color:#666}.plot svg{max-width:100%;height:auto}\n"
    # the paired-difference heatmaps: tables, their column names read upwards
    ".heat{overflow-x:auto}.heat table{font-size:.75rem}"
    ".heat caption{text-align:left;font-weight:600;padding:.3rem 0}"
    ".heat td{text-align:center;padding:.2rem .35rem;border:1px solid #fff;"
    "white-space:nowrap}.heat th.c{vertical-align:bottom;text-align:center}"
    ".heat th.c span{writing-mode:vertical-rl;transform:rotate(180deg);"
    "white-space:nowrap;display:inline-block;padding:.2rem 0}"
    ".heat th.c{overflow:visible;height:auto}.heat td.self{background:#f4f4f4}"
    ".heat td.sig{outline:2px solid #000;outline-offset:-2px;font-weight:600}\n"
    + _INTERVAL_STYLE
)


@dataclass(frozen=True)
class ReportResult:
    path: Path
    sections: list[str]
    shared: str | None = None
    """A study on object storage: the copy written beside it (not for --out)."""


def write_report(study: Study, out: Path | None = None) -> ReportResult:
    """Render the report and write it; returns where it went and which sections it
    has."""
    import matplotlib

    matplotlib.use("svg")
    # the text as paths: no font files needed to show it
    matplotlib.rcParams["svg.fonttype"] = "path"
    metadata = (
        sorted(set().union(*(item.metadata for item in study.items)))
        if study.items
        else []
    )
    # the graded frame read once: the results, agreement and difficulty use it, and
    # the grades joined with the solutions once for it, the status and the items
    with shared_states():
        frame = graded_frame(study, grade_conditions(study))
        results = study_results(study, _options(study, metadata), frame)
        sections = _sections(study, results, study_status(study), metadata, frame)
    stamp = datetime.now(timezone.utc)
    name = f"{study.config.study}-{stamp.strftime('%Y%m%dT%H%M%SZ')}.html"
    page = _document(study, sections, stamp)
    if out is not None:
        write_named(out, lambda p: p.write_text(page, encoding="utf-8"), "--out")
        path = out
    else:
        path = study.paths.root / "reports" / name
        _write_in_study(path, page)
    shared = mirror.beside_the_study(study.paths, [path] if out is None else [])
    return ReportResult(path, [key for key, _ in sections], next(iter(shared), None))


def _write_in_study(path: Path, page: str) -> None:
    """The report in the study's reports/ folder; a study dir that cannot be written
    is a StoreError as other commands give it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise StoreError(
            f"cannot write the report in {path.parent}: {exc.strerror or exc}; check "
            "output_dir, or name another file with --out"
        ) from None


def _document(study: Study, sections: list[tuple[str, str]], stamp: datetime) -> str:
    """The page: its title, the note on how the figures were computed, the sections."""
    body = "\n".join(
        f'<section id="{key}">{content}</section>' for key, content in sections
    )
    title = esc(study.config.study)
    return (
        '<!doctype html><html lang="en"><head><meta '
        f'charset="utf-8"><title>{title} — itemeval report</title>'
        f"<style>{_STYLE}</style></head><body><h1>{title}</h1>"
        f'<p class="muted">itemeval report, {stamp:%Y-%m-%d %H:%M} UTC. Means '
        "are over items (replications "
        "reduced per item first); intervals are 95% Wilson intervals "
        "(0/1 scores) or bounded Wilson intervals (other scores), inside "
        f"the scores' scale.</p>{body}</body></html>"
    )


def _options(study: Study, metadata: list[str]) -> ResultsOptions:
    """Every varying generate facet and metadata key by level, every pair compared."""
    facets = [
        name
        for name in GEN_FACETS
        if len({facet_level(c, name) for c in study.generate}) > 1
    ]
    return ResultsOptions(
        by=tuple(facets + metadata), compare=("all",), metric_differences=False
    )


def _sections(
    study: Study,
    results: ResultsReport,
    status: StatusReport,
    metadata: list[str],
    frame: pd.DataFrame,
) -> list[tuple[str, str]]:
    slugs = report_headline.names(results)  # generate conditions by their facets
    notes = _notes(results, status)
    sections = [
        ("headline", report_headline.headline_section(results)),
        *([("notes", notes)] if notes else []),
        *_declared(study, results),
        ("grid", _grid(study, status)),
        ("results", _results_table(results, slugs)),
        ("forest", report_plots.forest(results, slugs)),
    ]
    if results.metrics:
        sections.append(("metrics", metrics_section(results, slugs)))
    if results.criteria:
        sections.append(("criteria", criteria_section(results, slugs)))
    if results.marginals:
        sections.append(("marginals", report_plots.marginal_plots(results, slugs)))
    if results.comparisons:
        sections.append(("differences", report_headline.differences_section(results)))
    if results.agreement:
        sections.append(("agreement", report_plots.agreement(frame, results, slugs)))
    if results.corrected:
        sections.append(("corrected", _corrected(results, slugs)))
    if (judges := judges_section(study, grade_conditions(study))) is not None:
        sections.append(("judges", judges))
    if results.calibration:
        sections.append(("calibration", report_plots.reliability(results, slugs)))
    if results.cascades:
        sections.append(("cascades", _cascades(results, status, slugs)))
    if results.pairwise:
        sections.append(("pairwise", pairwise_section(results, slugs, svg)))
    if metadata:
        sections.append(("difficulty", report_plots.difficulty(study, metadata, frame)))
    sections.append(("items", items_section(study, grade_conditions(study))))
    sections += [("problems", _problems(study, slugs)), ("logs", _logs(study))]
    return sections


# ---- pieces
# --------------------------------------------------------------------------------------


def _declared(study: Study, results: ResultsReport) -> list[tuple[str, str]]:
    section = preregistration_section(study, results)
    return [] if section is None else [("declared", section)]


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


_GENERATE_HEADERS = ["generate condition", "model", "prompt", "cells", "done"]
_GRADE_HEADERS = ["grade condition", "kind", "solutions", "done", "parse fail"]


def _grid(study: Study, status: StatusReport) -> str:
    gen = [
        [
            *(row.condition.slug, row.condition.model, row.condition.prompt.ref),
            *(row.cells, row.done, row.errors, _usd(row.usd)),
        ]
        for row in status.generate
    ]
    grade = [
        [
            *(row.condition.slug, row.condition.kind, row.solutions, row.done),
            *(row.parse_failed, row.errors, row.pending, _usd(row.usd)),
        ]
        for row in status.grade
    ]
    return (
        "<h2>The grid and its spend</h2>"
        f"<p>{len(study.items)} items, {study.replications} replication(s).</p>"
        + html_table([*_GENERATE_HEADERS, "errors", "spend"], gen, left=3)
        + html_table([*_GRADE_HEADERS, "errors", "pending", "spend"], grade, left=2)
    )


def _results_table(results: ResultsReport, slugs: dict[str, str]) -> str:
    rows = [
        [
            slugs[c.gen_condition_id],
            slugs[c.grade_condition_id],
            c.items,
            num(c.mean),
            f"{num(c.ci_low)} – {num(c.ci_high)}",
            c.pending,
            c.errors,
            c.parse_failures,
        ]
        for c in results.cells
    ]
    return "<h2>Results</h2>" + html_table(
        [
            "solver",
            "grader",
            "items",
            "mean",
            "95% CI",
            "pending",
            "errors",
            "parse failures",
        ],
        rows,
        left=2,
    )


def _corrected(results: ResultsReport, slugs: dict[str, str]) -> str:
    """Judge means corrected by a rater's labels (prediction-powered inference)."""
    headers = ["solver", "judge", "rater", "labelled", "judged", "judge mean"]
    rows = [
        [
            slugs.get(r.gen_condition_id, r.gen_condition_id),
            slugs.get(r.grade_condition_id, r.grade_condition_id),
            r.rater,
            r.n_labelled,
            r.n_judged,
            num(r.judge_mean),
            num(r.mean),
            f"[{num(r.ci_low)}, {num(r.ci_high)}]",
            r.design,
            r.labels_saved,
        ]
        for r in results.corrected
    ]
    return "<h2>Judge means corrected by human labels</h2>" + html_table(
        [*headers, "corrected mean", "95% CI", "design", "labels saved"], rows, left=3
    )


def _cascades(
    results: ResultsReport, status: StatusReport, slugs: dict[str, str]
) -> str:
    """Per cascade cell: the solutions its cheap scorers settled, those sent to its
    judge, and the judge calls (and their cost) the scorers saved."""
    spend = {row.condition.id: row.usd for row in status.grade}
    rows = [
        [
            slugs.get(row.gen_condition_id, row.gen_condition_id),
            slugs.get(row.grade_condition_id, row.grade_condition_id),
            row.graded,
            row.settled,
            row.judged,
            row.settled,
            "unknown" if row.usd_saved is None else _usd(row.usd_saved),
        ]
        for row in settled(
            results.cascades, [row.condition for row in status.grade], spend
        )
    ]
    headers = ["solver", "cascade", "graded", "settled by scorers", "sent to judge"]
    return (
        '<h2>Cascades</h2><p class="muted">A cascade asks its judge only about the '
        "solutions its cheap scorers leave undecided; each one they settle is a "
        "judge call saved. Its cost is estimated at the cascade's judge spend per "
        "judge call.</p>"
        + html_table([*headers, "judge calls saved", "cost saved"], rows, left=2)
    )


def _notes(results: ResultsReport, status: StatusReport) -> str:
    """What a reader should know before the numbers (a changed item's answers, a
    condition whose id changed), said once; empty when there is nothing."""
    notes = list(dict.fromkeys([*status.notes, *results.notes]))
    if not notes:
        return ""
    items = "".join(f"<li>{esc(note)}</li>" for note in notes)
    return f'<h2>Notes</h2><ul class="notes">{items}</ul>'


def _problems(study: Study, slugs: dict[str, str]) -> str:
    solutions = read_store(
        study.paths, "solutions", ["condition_id", "error"]
    ).to_pandas()
    columns = ["grade_condition_id", "error", "parse_ok", "parse_error"]
    # a pairwise judge's verdicts are grades too: its failures belong here
    grades = pd.concat(
        [
            read_store(study.paths, store, columns).to_pandas()
            for store in ("grades", "pairwise")
        ],
        ignore_index=True,
    )
    return "".join(
        [
            "<h2>Errors and parse failures</h2>",
            _errors("generate", solutions),
            _errors("grade", grades),
            _parse_failures(grades, slugs),
        ]
    )


def _errors(what: str, frame: pd.DataFrame) -> str:
    """How many rows of a store have an error, and its ten commonest first lines."""
    errors = frame[frame["error"].notna()]
    messages = (
        errors["error"].astype(str).str.strip().str.split("\n").str[0].str.slice(0, 160)
    )
    top = messages.value_counts().head(10)
    counted = f"<p>{what}: {len(errors)} error row(s).</p>"
    if not len(top):
        return counted
    rows = [[int(n), m] for m, n in top.items()]
    return counted + html_table(["count", "message"], rows, left=0)


def _parse_failures(grades: pd.DataFrame, slugs: dict[str, str]) -> str:
    """The twenty commonest (grade condition, failure) pairs."""
    # a null parse_ok (an error row) is not a failure
    failed = grades[grades["parse_ok"] == False]  # noqa: E712
    if not len(failed):
        return "<p>No parse failures.</p>"
    counts = (
        failed.groupby(["grade_condition_id", "parse_error"])
        .size()
        .sort_values(ascending=False)
        .head(20)
    )
    return html_table(
        ["grade condition", "failure", "count"],
        [[slugs.get(g, g), code, int(n)] for (g, code), n in counts.items()],
        left=2,
    )


def _logs(study: Study) -> str:
    root = study.paths.root
    return (
        "<h2>Logs</h2><p>Every model call's transcript is in inspect's logs:</p>"
        f"<p><code>inspect view --log-dir {esc(root / 'logs' / 'generate')}</code><br>"
        f"<code>inspect view --log-dir {esc(root / 'logs' / 'grade')}</code></p>"
    )
