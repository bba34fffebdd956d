"""`itemeval report`: one self-contained HTML file of a study's results.

Plots are matplotlib SVG written inline (glyphs as paths), styles are inline, and there
is no script: the file opens from disk in any browser with no network. Every number
comes from `itemeval results`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import report_headline
from .pairwise_report import pairwise_section
from .report_html import _e, _num, _table
from .report_items import items_section
from .report_metrics import criteria_section, metrics_section
from .results import (
    GEN_FACETS,
    ResultsOptions,
    facet_level,
    grade_conditions,
    graded_frame,
    item_scores,
    study_results,
)
from .status import study_status
from .store import mirror, read_store
from .study import Study

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2rem auto;max-width:1100px;
color:#1d1d1f;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.3rem}
table{border-collapse:collapse;font-size:.85rem;margin:.6rem 0}th,td{padding:.25rem .6rem;border-bottom:1px solid #eee;
text-align:right}th:first-child,td:first-child,th.l,td.l{text-align:left}code{background:#f4f4f4;padding:.1rem .3rem}
.muted{color:#666}.plot svg{max-width:100%;height:auto}
"""  # noqa: E501 (the report's stylesheet, byte for byte as before)


_SCATTER_POINTS = 2_000


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
    matplotlib.rcParams["svg.fonttype"] = (
        "path"  # no font files needed to show the text
    )
    facets = [
        name
        for name in GEN_FACETS
        if len({facet_level(c, name) for c in study.generate}) > 1
    ]
    metadata = (
        sorted(set().union(*(item.metadata for item in study.items)))
        if study.items
        else []
    )
    frame = graded_frame(
        study, grade_conditions(study)
    )  # read once: the results, agreement and difficulty use it
    options = ResultsOptions(by=tuple(facets + metadata), compare=("all",))
    results = study_results(study, options, frame).as_dict()
    sections = _sections(study, results, metadata, frame)
    stamp = datetime.now(timezone.utc)
    path = (
        out
        or study.paths.root
        / "reports"
        / f"{study.config.study}-{stamp.strftime('%Y%m%dT%H%M%SZ')}.html"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(
        f'<section id="{key}">{content}</section>' for key, content in sections
    )
    document = (
        '<!doctype html><html lang="en"><head><meta '
        f'charset="utf-8"><title>{_e(study.config.study)} — '
        "itemeval "
        f"report</title><style>{_STYLE}</style></head><body><h1>{_e(study.config.study)}</h1>"
        f'<p class="muted">itemeval report, {stamp:%Y-%m-%d %H:%M} UTC. Means '
        "are over items (replications "
        "reduced per item first); intervals are 95% Wilson intervals "
        "(0/1 scores) or bounded Wilson intervals (other scores), inside "
        f"the scores' scale.</p>{body}</body></html>"
    )
    path.write_text(document, encoding="utf-8")
    shared = mirror.beside_the_study(study.paths, [path] if out is None else [])
    return ReportResult(path, [key for key, _ in sections], next(iter(shared), None))


def _sections(
    study: Study, results: dict[str, Any], metadata: list[str], frame: pd.DataFrame
) -> list[tuple[str, str]]:
    slugs = report_headline.names(results)  # generate conditions by their facets
    sections = [
        ("headline", report_headline.headline_section(results)),
        ("grid", _grid(study)),
        ("results", _results_table(results, slugs)),
        ("forest", _forest(results, slugs)),
    ]
    if results.get("metrics"):
        sections.append(("metrics", metrics_section(results, slugs)))
    if results.get("criteria"):
        sections.append(("criteria", criteria_section(results, slugs)))
    if results["marginals"]:
        sections.append(("marginals", _marginal_plots(results, slugs)))
    if results["comparisons"]:
        sections.append(
            ("differences", report_headline.differences_section(results, _svg))
        )
    if results["agreement"]:
        sections.append(("agreement", _agreement(frame, results, slugs)))
    if results.get("corrected"):
        sections.append(("corrected", _corrected(results, slugs)))
    if results["calibration"]:
        sections.append(("calibration", _reliability(results, slugs)))
    if results.get("pairwise"):
        sections.append(("pairwise", pairwise_section(results, slugs, _svg)))
    if metadata:
        sections.append(("difficulty", _difficulty(study, metadata, frame)))
    sections.append(("items", items_section(study, grade_conditions(study))))
    sections += [("problems", _problems(study, slugs)), ("logs", _logs(study))]
    return sections


# ---- pieces
# --------------------------------------------------------------------------------------


def _svg(figure: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    # no metadata block: it only names matplotlib's web site and the date, and makes the
    # file differ run to run
    figure.savefig(
        buffer,
        format="svg",
        bbox_inches="tight",
        metadata={"Creator": None, "Date": None, "Format": None, "Type": None},
    )
    plt.close(figure)
    text = buffer.getvalue()
    return f'<div class="plot">{text[text.index("<svg") :]}</div>'


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _grid(study: Study) -> str:
    status = study_status(study)
    gen = [
        [
            row.condition.slug,
            row.condition.model,
            row.condition.prompt.ref,
            row.cells,
            row.done,
            row.errors,
            _usd(row.usd),
        ]
        for row in status.generate
    ]
    grade = [
        [
            row.condition.slug,
            row.condition.kind,
            row.solutions,
            row.done,
            row.parse_failed,
            row.errors,
            row.pending,
            _usd(row.usd),
        ]
        for row in status.grade
    ]
    return (
        "<h2>The grid and its spend</h2>"
        f"<p>{len(study.items)} items, {study.replications} replication(s).</p>"
        + _table(
            [
                "generate condition",
                "model",
                "prompt",
                "cells",
                "done",
                "errors",
                "spend",
            ],
            gen,
            left=3,
        )
        + _table(
            [
                "grade condition",
                "kind",
                "solutions",
                "done",
                "parse fail",
                "errors",
                "pending",
                "spend",
            ],
            grade,
            left=2,
        )
    )


def _results_table(results: dict[str, Any], slugs: dict[str, str]) -> str:
    rows = [
        [
            slugs[c["gen_condition_id"]],
            slugs[c["grade_condition_id"]],
            c["items"],
            _num(c["mean"]),
            f"{_num(c['ci_low'])} – {_num(c['ci_high'])}",
            c["pending"],
            c["errors"],
            c["parse_failures"],
        ]
        for c in results["cells"]
    ]
    return "<h2>Results</h2>" + _table(
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


def _forest(results: dict[str, Any], slugs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    cells = [c for c in results["cells"] if c["mean"] is not None][:200]
    if not cells:
        return "<h2>Forest plot</h2><p>No graded cell yet.</p>"
    figure, axes = plt.subplots(figsize=(8, 0.28 * len(cells) + 1))
    labels = [
        f"{slugs[c['gen_condition_id']]} · {slugs[c['grade_condition_id']]}"
        for c in cells
    ]
    means = np.array([c["mean"] for c in cells])
    low = np.array(
        [c["ci_low"] if c["ci_low"] is not None else c["mean"] for c in cells]
    )
    high = np.array(
        [c["ci_high"] if c["ci_high"] is not None else c["mean"] for c in cells]
    )
    positions = np.arange(len(cells))[::-1]
    axes.errorbar(
        means,
        positions,
        xerr=[means - low, high - means],
        fmt="o",
        color="#1f5fa8",
        capsize=3,
    )
    axes.set_yticks(positions, labels, fontsize=7)
    axes.set_xlabel("mean score per item, 95% CI")
    axes.grid(axis="x", alpha=0.3)
    return "<h2>Forest plot</h2>" + _svg(figure)


def _marginal_plots(results: dict[str, Any], slugs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    parts = ["<h2>By facet</h2>"]
    frame = pd.DataFrame(results["marginals"])
    for facet, rows in frame.groupby("facet", sort=False):
        figure, axes = plt.subplots(figsize=(8, 0.35 * len(rows) + 1))
        labels = [
            f"{level} · {slugs.get(grade, 'all') if grade else 'all'}"
            for level, grade in zip(rows["level"], rows["grade_condition_id"])
        ]
        means = rows["mean"].to_numpy(dtype=float)
        low, high = (
            rows["ci_low"].fillna(rows["mean"]).to_numpy(float),
            rows["ci_high"].fillna(rows["mean"]).to_numpy(float),
        )
        positions = np.arange(len(rows))[::-1]
        axes.errorbar(
            means,
            positions,
            xerr=[means - low, high - means],
            fmt="s",
            color="#2e7d32",
            capsize=3,
        )
        axes.set_yticks(positions, labels, fontsize=8)
        axes.set_title(f"by {facet}", fontsize=10)
        axes.grid(axis="x", alpha=0.3)
        parts.append(_svg(figure))
    return "".join(parts)


def _corrected(results: dict[str, Any], slugs: dict[str, str]) -> str:
    """Judge means corrected by a rater's labels (prediction-powered inference)."""
    headers = ["solver", "judge", "rater", "labelled", "judged", "judge mean"]
    rows = [
        [
            slugs.get(r["gen_condition_id"], r["gen_condition_id"]),
            slugs.get(r["grade_condition_id"], r["grade_condition_id"]),
            r["rater"],
            r["n_labelled"],
            r["n_judged"],
            _num(r["judge_mean"]),
            _num(r["mean"]),
            f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]",
        ]
        for r in results["corrected"]
    ]
    return "<h2>Judge means corrected by human labels</h2>" + _table(
        [*headers, "corrected mean", "95% CI"], rows, left=3
    )


def _agreement(
    frame: pd.DataFrame, results: dict[str, Any], slugs: dict[str, str]
) -> str:
    import matplotlib.pyplot as plt

    wide = frame[frame["status"] == "scored"].pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_id",
        values="score",
    )
    parts = [
        "<h2>Grader agreement</h2>",
        _table(
            [
                "A",
                "B",
                "n",
                "exact",
                "Spearman",
                "kappa (quadratic)",
                "alpha (interval)",
                "bias A − B [95% CI]",
                "threshold",
                "both pass",
                "A only",
                "B only",
                "both fail",
            ],
            [
                [
                    slugs[r["a"]],
                    slugs[r["b"]],
                    r["n"],
                    _num(r["exact"]),
                    _num(r["spearman"]),
                    _num(r["kappa_quadratic"]),
                    _num(r["alpha_interval"]),
                    f"{_num(r.get('bias'))} "
                    f"[{_num(r.get('bias_ci_low'))}, {_num(r.get('bias_ci_high'))}]",
                    _num(r["threshold"], 2),
                    *r["confusion"].values(),
                ]
                for r in results["agreement"]
            ],
            left=2,
        ),
    ]
    rng = np.random.default_rng(0)
    for row in results["agreement"][:12]:
        both = wide[[row["a"], row["b"]]].dropna()
        if report_headline.is_zero_one(both):
            parts.append(
                report_headline.confusion_table(both, slugs[row["a"]], slugs[row["b"]])
            )
            continue
        if (
            len(both) > _SCATTER_POINTS
        ):  # a sample keeps the SVG small; the table above uses every pair
            both = both.sample(_SCATTER_POINTS, random_state=0)
        figure, axes = plt.subplots(figsize=(3.6, 3.4))
        jitter = rng.uniform(-0.04, 0.04, size=(len(both), 2)) * (
            np.ptp(both.to_numpy()) or 1
        )
        axes.scatter(
            both[row["a"]] + jitter[:, 0],
            both[row["b"]] + jitter[:, 1],
            s=8,
            alpha=0.4,
            color="#6a1b9a",
        )
        axes.set_xlabel(slugs[row["a"]], fontsize=7)
        axes.set_ylabel(slugs[row["b"]], fontsize=7)
        parts.append(_svg(figure))
    return "".join(parts)


def _reliability(results: dict[str, Any], slugs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    parts = [
        "<h2>Calibration</h2>",
        _table(
            ["solver", "scorer", "n", "ECE", "ECE (equal mass)", "Brier", "AUC"],
            [
                [
                    slugs[r["gen_condition_id"]],
                    slugs[r["grade_condition_id"]],
                    r["n"],
                    _num(r["ece"]),
                    _num(r["ece_equal_mass"]),
                    _num(r["brier"]),
                    _num(r["auc"]),
                ]
                for r in results["calibration"]
            ],
            left=2,
        ),
    ]
    for row in results["calibration"][:12]:
        figure, axes = plt.subplots(figsize=(3.6, 3.4))
        points = row["reliability"]
        axes.plot([0, 1], [0, 1], color="#999", linestyle="--", linewidth=1)
        axes.scatter(
            [p["predicted"] for p in points],
            [p["observed"] for p in points],
            s=[10 + 4 * p["count"] for p in points],
            color="#c62828",
            alpha=0.7,
        )
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1)
        axes.set_xlabel("predicted P(positive)", fontsize=8)
        axes.set_ylabel("observed rate", fontsize=8)
        axes.set_title(
            f"{slugs[row['gen_condition_id']]}\n{slugs[row['grade_condition_id']]}",
            fontsize=7,
        )
        parts.append(_svg(figure))
    return "".join(parts)


def _difficulty(study: Study, metadata: list[str], frame: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    items = item_scores(frame, "mean").groupby("item_id")["score"].mean()
    if items.empty:
        return "<h2>Item difficulty</h2><p>No graded item yet.</p>"
    meta = pd.DataFrame(
        [
            {"item_id": item.id, **{m: item.metadata.get(m) for m in metadata}}
            for item in study.items
        ]
    )
    joined = meta.merge(items.rename("mean_score").reset_index(), on="item_id")
    parts = [
        '<h2>Item difficulty</h2><p class="muted">Each item\'s mean score over '
        "every condition, against "
        "its metadata.</p>"
    ]
    for column in metadata[:6]:
        values = joined[[column, "mean_score"]].dropna()
        if values.empty:
            continue
        figure, axes = plt.subplots(figsize=(6, 3))
        if pd.api.types.is_numeric_dtype(values[column]):
            axes.scatter(values[column], values["mean_score"], s=10, alpha=0.5)
        else:
            levels = sorted(values[column].astype(str).unique())[:30]
            groups = [
                values.loc[values[column].astype(str) == level, "mean_score"]
                for level in levels
            ]
            axes.boxplot(groups, tick_labels=levels)
            axes.tick_params(axis="x", labelrotation=30, labelsize=7)
        axes.set_xlabel(column)
        axes.set_ylabel("mean score")
        parts.append(_svg(figure))
    return "".join(parts)


def _problems(study: Study, slugs: dict[str, str]) -> str:
    solutions = read_store(
        study.paths, "solutions", ["condition_id", "error"]
    ).to_pandas()
    grades = read_store(
        study.paths,
        "grades",
        ["grade_condition_id", "error", "parse_ok", "parse_error"],
    ).to_pandas()
    parts = ["<h2>Errors and parse failures</h2>"]
    for what, frame, key in (
        ("generate", solutions, "condition_id"),
        ("grade", grades, "grade_condition_id"),
    ):
        errors = frame[frame["error"].notna()]
        messages = (
            errors["error"]
            .astype(str)
            .str.strip()
            .str.split("\n")
            .str[0]
            .str.slice(0, 160)
        )
        top = messages.value_counts().head(10)
        parts.append(f"<p>{what}: {len(errors)} error row(s).</p>")
        if len(top):
            parts.append(
                _table(
                    ["count", "message"], [[int(n), m] for m, n in top.items()], left=0
                )
            )
    failed = grades[grades["parse_ok"] == False]  # noqa: E712 - a null parse_ok (an error row) is not a failure
    if len(failed):
        counts = (
            failed.groupby(["grade_condition_id", "parse_error"])
            .size()
            .sort_values(ascending=False)
            .head(20)
        )
        parts.append(
            _table(
                ["grade condition", "failure", "count"],
                [[slugs.get(g, g), code, int(n)] for (g, code), n in counts.items()],
                left=2,
            )
        )
    else:
        parts.append("<p>No parse failures.</p>")
    return "".join(parts)


def _logs(study: Study) -> str:
    root = study.paths.root
    return (
        "<h2>Logs</h2><p>Every model call's transcript is in inspect's logs:</p>"
        f"<p><code>inspect view --log-dir {_e(root / 'logs' / 'generate')}</code><br>"
        f"<code>inspect view --log-dir {_e(root / 'logs' / 'grade')}</code></p>"
    )
