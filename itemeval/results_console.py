"""The parts of `itemeval results` on the console that name cells: the headline, then
one table per grade condition whose rows are named by the facets that vary (model |
prompt | config), so nothing is cut in its middle at 80 columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from .cell_names import HEADERS, cell_name
from .tables import Column, Row, count, fitted

CI_NAMES = {  # README "Intervals" says how the bounded one differs
    "wilson": "Wilson",
    "wilson_bounded": "Wilson",
    "t": "t",
    "bootstrap": "bootstrap",
}


def render_headline(data: dict[str, Any], console: Console) -> None:
    """Per grade condition, the sentence a reader can quote (headline.py)."""
    if not data.get("headline"):
        return
    console.print(Text(f"{data['study']}: headline", style="bold"))
    for row in data["headline"]:
        console.print(Text(f"- {row['text']}"))
    console.print()


def facet_columns(data: dict[str, Any]) -> list[Column]:
    """One name column per varying facet of the generate conditions; the slug when
    the results carry no facets."""
    facets = data.get("cell_facets") or {}
    if not facets:
        slugs = data["slugs"]
        return [Column("solver", lambda row: slugs[row["gen_condition_id"]], "name")]
    shown = next(iter(facets.values())).keys()
    return [
        Column(HEADERS[facet], _level(facets, facet), kind="name") for facet in shown
    ]


def _level(facets: dict[str, dict[str, str]], facet: str) -> Callable[[Row], str]:
    return lambda row: facets.get(row["gen_condition_id"], {}).get(facet, "")


def per_grade(
    console: Console,
    data: dict[str, Any],
    rows: Sequence[Row],
    title: Callable[[str, list[Row]], str],
    columns: Sequence[Column],
    named: bool = True,
) -> None:
    """`rows` as one table per grade condition (in the order they come), titled by
    `title(grade condition slug, its rows)`, its rows named by facet columns when
    `named`."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row["grade_condition_id"], []).append(row)
    for grade_id, group in groups.items():
        slug = data["slugs"].get(grade_id, grade_id) or "every grade condition"
        shown = [*facet_columns(data), *columns] if named else list(columns)
        # the title on a line of its own: as the table's title it wraps at the
        # table's width, which is often narrower than the terminal
        console.print(Text(title(slug, group), style="italic"))
        console.print(fitted(console, None, shown, group))


def ci_names(rows: Sequence[Row]) -> str:
    """The interval methods the rows used ("Wilson, bounded Wilson")."""
    methods = dict.fromkeys(
        CI_NAMES.get(m, m) for r in rows if (m := r.get("ci_method"))
    )
    return ", ".join(methods) or "-"


def cell_tables(
    console: Console, data: dict[str, Any], numbers: Sequence[Column]
) -> None:
    """The grid's cells: a table per grade condition."""

    reducer = "" if data["reducer"] == "mean" else f" ({data['reducer']})"

    def title(slug: str, rows: list[Row]) -> str:
        return f"{slug}: mean per item{reducer}, 95% CI ({ci_names(rows)})"

    counts = [("pend", "pending"), ("err", "errors"), ("pfail", "parse_failures")]
    zero = {key for _, key in counts if not any(c[key] for c in data["cells"])}
    per_grade(
        console,
        data,
        data["cells"],
        title,
        [
            *numbers,
            *(
                # a count that is 0 everywhere gives way first when space is short
                Column(header, count(key), min_width=len(header), optional=rank)
                if key in zero
                else Column(header, count(key), min_width=len(header))
                for rank, (header, key) in enumerate(counts, start=1)
            ),
        ],
    )


def render_metrics(
    console: Console, data: dict[str, Any], numbers: Sequence[Column]
) -> None:
    """Global metrics beside the means: per cell, then per --by level, a table per
    grade condition each."""
    columns = [
        Column("metric", _metric, kind="name"),
        Column("n", count("n"), min_width=3),
        Column("value", lambda row: _num(row["value"]), min_width=5),
        *numbers,
    ]
    cells = [r for r in data["metrics"] if not r.get("facet") and "a" not in r]
    levels = [row for row in data["metrics"] if row.get("facet")]
    pairs = [row for row in data["metrics"] if "a" in row]
    title = "metrics, 95% CI (item bootstrap)"
    per_grade(console, data, cells, lambda slug, rows: f"{slug}: {title}", columns)
    per_grade(
        console,
        data,
        levels,
        lambda slug, rows: f"{slug}: by facet, {title}",
        [
            Column("facet", lambda row: row["facet"], kind="name"),
            Column("level", lambda row: str(row["level"]), kind="name"),
            *columns,
        ],
        named=False,
    )
    names = _cell_names(data)
    per_grade(
        console,
        data,
        pairs,
        lambda slug, rows: f"{slug}: metrics A − B, 95% CI (paired item bootstrap)",
        [
            Column("A", lambda row: names.get(row["a"], row["a"]), kind="name"),
            Column("B", lambda row: names.get(row["b"], row["b"]), kind="name"),
            columns[0],
            columns[1],
            Column("A − B", lambda row: _num(row["value"]), min_width=6),
            *numbers,
        ],
        named=False,
    )


def _cell_names(data: dict[str, Any]) -> dict[str, str]:
    return {
        gen_id: cell_name(facets)
        for gen_id, facets in (data.get("cell_facets") or {}).items()
    } or dict(data["slugs"])


def _metric(row: Row) -> str:
    """precision[b] for a per-class row."""
    return f"{row['metric']}[{row['class']}]" if "class" in row else row["metric"]


def render_comparisons(console: Console, data: dict[str, Any], ci: Column) -> None:
    """`--compare`: A − B per grade condition, the pair named by its facets."""
    names = _cell_names(data)
    per_grade(
        console,
        data,
        data["comparisons"],
        lambda slug, rows: f"{slug}: paired differences A − B (Holm-adjusted p)",
        [
            Column("A", lambda row: names.get(row["a"], row["a"]), kind="name"),
            Column("B", lambda row: names.get(row["b"], row["b"]), kind="name"),
            Column("n", count("n"), min_width=3),
            Column("diff", lambda row: _num(row["diff"]), min_width=6),
            ci,
            Column("p adj", lambda row: _p(row["p_adjusted"]), min_width=6),
        ],
        named=False,
    )


def _p(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(row: dict[str, Any]) -> str:
    return "-" if row["ci_low"] is None else f"{row['ci_low']:.3f}–{row['ci_high']:.3f}"


def _number(header: str, cell: Any, width: int) -> Column:
    """A results number: a fixed minimum width, so columns line up from table to
    table."""
    return Column(header, cell, min_width=width)


def render_results(data: dict[str, Any], console: Console) -> None:
    """The results as tables designed for 80 columns: slugs cut from the middle only
    when needed, ids in `--json`."""
    slugs = data["slugs"]

    def name(header: str, key: str, default: str = "") -> Column:
        return Column(
            header, lambda row: slugs[row[key]] if row[key] else default, kind="name"
        )

    n = _number("n", count("items"), 3)
    mean, ci = (
        _number("mean", lambda row: _num(row["mean"]), 5),
        _number("95% CI", _ci, 11),
    )
    render_headline(data, console)
    cell_tables(console, data, [n, mean, ci])
    if data["marginals"]:
        per_grade(
            console,
            data,
            data["marginals"],
            lambda slug, rows: f"{slug}: by facet, mean per item, 95% CI",
            [
                Column("facet", lambda row: row["facet"], kind="name"),
                Column("level", lambda row: str(row["level"]), kind="name"),
                n,
                mean,
                ci,
            ],
            named=False,
        )
    if data.get("metrics"):
        render_metrics(console, data, [_number("95% CI", _ci, 11)])
    if data.get("criteria"):
        per_grade(
            console,
            data,
            data["criteria"],
            lambda slug, rows: f"{slug}: criteria, mean per item, 95% CI",
            [
                Column("criterion", lambda row: row["criterion"], kind="name"),
                n,
                mean,
                ci,
            ],
        )
    if data.get("criteria_agreement"):
        console.print(
            fitted(
                console,
                "agreement per criterion",
                [
                    name("A", "a"),
                    name("B", "b"),
                    Column("criterion", lambda row: row["criterion"], kind="name"),
                    _number("n", count("n"), 3),
                    _number("exact", lambda row: _num(row["exact"]), 5),
                    _number("rho", lambda row: _num(row["spearman"]), 5),
                    _number("kappa", lambda row: _num(row["kappa_quadratic"]), 5),
                ],
                data["criteria_agreement"],
            )
        )
    if data["comparisons"]:
        render_comparisons(console, data, ci)
    if data["agreement"]:
        console.print(
            fitted(
                console,
                "grader agreement",
                [
                    name("A", "a"),
                    name("B", "b"),
                    _number("n", count("n"), 3),
                    *(
                        _number(header, lambda row, key=key: _num(row[key]), 5)
                        for header, key in (
                            ("exact", "exact"),
                            ("rho", "spearman"),
                            ("kappa", "kappa_quadratic"),
                            ("alpha", "alpha_interval"),
                        )
                    ),
                ],
                data["agreement"],
            )
        )
    if data.get("corrected"):
        console.print(
            fitted(
                console,
                "judge means corrected by human labels (prediction-powered)",
                [
                    name("solver", "gen_condition_id"),
                    name("judge", "grade_condition_id"),
                    Column("rater", lambda row: row["rater"], kind="name"),
                    _number("labels", count("n_labelled"), 6),
                    _number("mean", lambda row: _num(row["mean"]), 5),
                    _number("95% CI", _ci, 11),
                ],
                data["corrected"],
            )
        )
    if data.get("cascades"):
        console.print(
            fitted(
                console,
                "cascades: which stage decided",
                [
                    name("solver", "gen_condition_id"),
                    name("cascade", "grade_condition_id"),
                    Column("decided by", lambda row: row["decided_by"], kind="name"),
                    _number("n", count("n"), 4),
                ],
                data["cascades"],
            )
        )
    if data["calibration"]:
        console.print(
            fitted(
                console,
                "calibration",
                [
                    name("solver", "gen_condition_id"),
                    name("scorer", "grade_condition_id"),
                    _number("n", count("n"), 3),
                    *(
                        _number(header, lambda row, key=key: _num(row[key]), width)
                        for header, key, width in (
                            ("ECE", "ece", 5),
                            ("ECE mass", "ece_equal_mass", 8),
                            ("Brier", "brier", 5),
                            ("AUC", "auc", 5),
                        )
                    ),
                ],
                data["calibration"],
            )
        )
