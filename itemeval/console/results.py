"""The parts of `itemeval results` on the console that name cells: the headline, then
one table per grade condition whose rows are named by the facets that vary (model |
prompt | config), so nothing is cut in its middle at 80 columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from ..result_values import ResultsReport
from ..study.cell_names import HEADERS
from .graders import cell_names, print_grader_pairs, print_pairs
from .tables import Column, Row, count, field, fitted

CI_NAMES = {  # README "Intervals" says how the bounded one differs
    "wilson": "Wilson",
    "wilson_bounded": "Wilson",
    "t": "t",
    "bootstrap": "bootstrap",
}


def render_headline(results: ResultsReport, console: Console) -> None:
    """Per grade condition, the sentence a reader can quote (headline.py)."""
    if not results.headline:
        return
    console.print(Text(f"{results.study}: headline", style="bold"))
    for row in results.headline:
        console.print(Text(f"- {row.text}"))
    console.print()


def facet_columns(results: ResultsReport) -> list[Column]:
    """One name column per varying facet of the generate conditions; the slug when
    the results carry no facets."""
    facets = results.cell_facets
    if not facets:
        slugs = results.slugs
        return [
            Column("solver", lambda row: slugs[field(row, "gen_condition_id")], "name")
        ]
    shown = next(iter(facets.values())).keys()
    return [
        Column(HEADERS[facet], _level(facets, facet), kind="name") for facet in shown
    ]


def _level(facets: dict[str, dict[str, str]], facet: str) -> Callable[[Row], str]:
    return lambda row: facets.get(field(row, "gen_condition_id"), {}).get(facet, "")


def per_grade(
    console: Console,
    results: ResultsReport,
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
        groups.setdefault(field(row, "grade_condition_id"), []).append(row)
    for grade_id, group in groups.items():
        slug = results.slugs.get(grade_id, grade_id) or "every grade condition"
        shown = [*facet_columns(results), *columns] if named else list(columns)
        # the title on a line of its own: as the table's title it wraps at the
        # table's width, which is often narrower than the terminal
        console.print(Text(title(slug, group), style="italic"))
        console.print(fitted(console, None, shown, group))


def ci_names(rows: Sequence[Row]) -> str:
    """The interval methods the rows used ("Wilson, bounded Wilson")."""
    methods = dict.fromkeys(
        CI_NAMES.get(m, m) for r in rows if (m := field(r, "ci_method"))
    )
    return ", ".join(methods) or "-"


def cell_tables(
    console: Console, results: ResultsReport, numbers: Sequence[Column]
) -> None:
    """The grid's cells: a table per grade condition."""

    reducer = "" if results.reducer == "mean" else f" ({results.reducer})"

    def title(slug: str, rows: list[Row]) -> str:
        return f"{slug}: mean per item{reducer}, 95% CI ({ci_names(rows)})"

    counts = [("pend", "pending"), ("err", "errors"), ("pfail", "parse_failures")]
    zero = {key for _, key in counts if not any(field(c, key) for c in results.cells)}
    per_grade(
        console,
        results,
        results.cells,
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
    console: Console, results: ResultsReport, numbers: Sequence[Column]
) -> None:
    """Global metrics beside the means: per cell, then per --by level, a table per
    grade condition each."""
    columns = [
        Column("metric", lambda row: row.name, kind="name"),
        Column("n", count("n"), min_width=3),
        Column("value", lambda row: _num(field(row, "value")), min_width=5),
        *numbers,
    ]
    cells = [r for r in results.metrics if not r.facet and r.a is None]
    levels = [row for row in results.metrics if row.facet]
    pairs = [row for row in results.metrics if row.a is not None]
    title = "metrics, 95% CI (item bootstrap)"
    per_grade(console, results, cells, lambda slug, rows: f"{slug}: {title}", columns)
    per_grade(
        console,
        results,
        levels,
        lambda slug, rows: f"{slug}: by facet, {title}",
        [
            Column("facet", lambda row: field(row, "facet"), kind="name"),
            Column("level", lambda row: str(field(row, "level")), kind="name"),
            *columns,
        ],
        named=False,
    )
    _metric_differences(console, results, pairs, [*columns[:2], *numbers])


def _metric_differences(
    console: Console, results: ResultsReport, pairs: list[Row], columns: list[Column]
) -> None:
    """`--compare A B`: each metric's A − B, the pair named by its cells' facets."""
    pair_tables(
        console,
        results,
        pairs,
        "metrics A − B, 95% CI (paired item bootstrap, Holm-adjusted p)",
        [
            *columns[:2],
            Column("A − B", lambda row: _num(field(row, "value")), min_width=6),
            *columns[2:],
            Column("p adj", lambda row: _p(row.p_adjusted), min_width=6),
        ],
    )


def pair_tables(
    console: Console,
    results: ResultsReport,
    rows: Sequence[Row],
    title: str,
    columns: Sequence[Column],
) -> None:
    """Rows comparing two generate conditions (A, B), a table per grade condition;
    A and B named by their facets, or by keys where those would be cut."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(field(row, "grade_condition_id"), []).append(row)
    for grade_id, group in groups.items():
        print_pairs(
            console,
            f"{results.slugs.get(grade_id, grade_id)}: {title}",
            lambda names: [*_pair_columns(names), *columns],
            group,
            cell_names(results),
            ("C", "conditions"),
            results,
        )


def _pair_columns(names: dict[str, str]) -> list[Column]:
    """A and B of a comparison, each named by its cell's facets."""
    return [
        Column(side.upper(), lambda row, s=side: names[field(row, s)], kind="name")
        for side in ("a", "b")
    ]


def render_comparisons(console: Console, results: ResultsReport, ci: Column) -> None:
    """`--compare`: A − B per grade condition, the pair named by its facets."""
    pair_tables(
        console,
        results,
        results.comparisons,
        "paired differences A − B (Holm-adjusted p)",
        [
            Column("n", count("n"), min_width=3),
            Column("diff", lambda row: _num(field(row, "diff")), min_width=6),
            ci,
            Column("p adj", lambda row: _p(field(row, "p_adjusted")), min_width=6),
        ],
    )


def _p(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(row: Row) -> str:
    return (
        "-"
        if field(row, "ci_low") is None
        else f"{field(row, 'ci_low'):.3f}–{field(row, 'ci_high'):.3f}"
    )


def _number(header: str, cell: Any, width: int) -> Column:
    """A results number: a fixed minimum width, so columns line up from table to
    table."""
    return Column(header, cell, min_width=width)


def render_results(results: ResultsReport, console: Console) -> None:
    """The results as tables designed for 80 columns: slugs cut from the middle only
    when needed, ids in `--json`."""
    n = _number("n", count("items"), 3)
    mean = _number("mean", lambda row: _num(field(row, "mean")), 5)
    ci = _number("95% CI", _ci, 11)
    render_headline(results, console)
    cell_tables(console, results, [n, mean, ci])
    _marginal_tables(results, console, [n, mean, ci])
    if results.metrics:
        render_metrics(console, results, [_number("95% CI", _ci, 11)])
    _criteria_tables(results, console, [n, mean, ci])
    _agreement_tables(results, console, ci)
    _pairwise_tables(results, console, ci)
    _side_tables(results, console)
    for note in results.notes:
        console.print(Text(note, style="yellow"))


def _marginal_tables(
    results: ResultsReport, console: Console, numbers: list[Column]
) -> None:
    """The means per `--by` level."""
    per_grade(
        console,
        results,
        results.marginals,
        lambda slug, rows: f"{slug}: by facet, mean per item, 95% CI",
        [
            Column("facet", lambda row: row.facet, kind="name"),
            Column("level", lambda row: str(row.level), kind="name"),
            *numbers,
        ],
        named=False,
    )


def _criteria_tables(
    results: ResultsReport, console: Console, numbers: list[Column]
) -> None:
    """The means per criterion of grades with several."""
    per_grade(
        console,
        results,
        results.criteria,
        lambda slug, rows: f"{slug}: criteria, mean per item, 95% CI",
        [Column("criterion", lambda row: row.criterion, kind="name"), *numbers],
    )


def _named(slugs: dict[str, str], header: str, key: str) -> Column:
    """A column of condition slugs."""
    return Column(
        header, lambda row: slugs[field(row, key)] if field(row, key) else "", "name"
    )


def _agreement_tables(results: ResultsReport, console: Console, ci: Column) -> None:
    """Agreement per criterion, the paired differences, and grader agreement."""
    print_grader_pairs(
        console,
        results,
        "agreement per criterion",
        _criteria_agreement,
        results.criteria_agreement,
    )
    if results.comparisons:
        render_comparisons(console, results, ci)
    print_grader_pairs(
        console, results, "grader agreement", _grader_agreement, results.agreement
    )


def _pairwise_tables(results: ResultsReport, console: Console, ci: Column) -> None:
    """A pairwise judge's verdicts per pair, then each condition's Bradley-Terry
    strength: a table of each per judge."""
    slugs = results.slugs
    per_grade(
        console,
        results,
        results.pairwise,
        lambda slug, rows: f"{slug}: pairwise, A's win rate (ties half), 95% CI",
        [
            _named(slugs, "A", "a"),
            _named(slugs, "B", "b"),
            _number("n", count("n"), 3),
            _number("A wins", count("wins_a"), 6),
            _number("B wins", count("wins_b"), 6),
            _number("ties", count("ties"), 4),
            _number("win rate", lambda row: _num(row.win_rate), 8),
            ci,
            _number("flip", lambda row: _num(row.flip_rate), 5),
            Column("flags", lambda row: ", ".join(row.flags), kind="name"),
        ],
        named=False,
    )
    per_grade(
        console,
        results,
        results.strengths,
        lambda slug, rows: (
            f"{slug}: Bradley-Terry strength (the first condition by id is 0), 95% CI"
        ),
        [
            _number("strength", lambda row: _num(row.strength), 8),
            ci,
            _number("Elo", lambda row: _num(row.elo, 0), 5),
        ],
    )


def _side_tables(results: ResultsReport, console: Console) -> None:
    """Corrected judge means, who decided in each cascade, and calibration: a table
    per grade condition, rows named by the generate conditions' facets."""
    for title, columns, rows in (
        (
            "judge mean corrected by human labels (prediction-powered)",
            _corrected(),
            results.corrected,
        ),
        ("which stage decided", _cascades(), results.cascades),
        ("calibration", _calibration(), results.calibration),
    ):
        per_grade(
            console, results, rows, lambda slug, rows, t=title: f"{slug}: {t}", columns
        )


def _criteria_agreement(slugs: dict[str, str]) -> list[Column]:
    return [
        _named(slugs, "A", "a"),
        _named(slugs, "B", "b"),
        Column("criterion", lambda row: row.criterion, kind="name"),
        _number("n", count("n"), 3),
        _number("exact", lambda row: _num(row.exact), 5),
        _number("rho", lambda row: _num(row.spearman), 5),
        _number("kappa", lambda row: _num(row.kappa_quadratic), 5),
    ]


def _grader_agreement(slugs: dict[str, str]) -> list[Column]:
    return [
        _named(slugs, "A", "a"),
        _named(slugs, "B", "b"),
        _number("n", count("n"), 3),
        *(
            _number(header, lambda row, key=key: _num(field(row, key)), 5)
            for header, key in (
                ("exact", "exact"),
                ("rho", "spearman"),
                ("kappa", "kappa_quadratic"),
                ("alpha", "alpha_interval"),
            )
        ),
    ]


def _corrected() -> list[Column]:
    return [
        Column("rater", lambda row: row.rater, kind="name"),
        _number("labels", count("n_labelled"), 6),
        _number("mean", lambda row: _num(row.mean), 5),
        _number("95% CI", _ci, 11),
    ]


def _cascades() -> list[Column]:
    return [
        Column("decided by", lambda row: row.decided_by, kind="name"),
        _number("n", count("n"), 4),
    ]


def _calibration() -> list[Column]:
    return [
        _number("n", count("n"), 3),
        *(
            _number(header, lambda row, key=key: _num(field(row, key)), width)
            for header, key, width in (
                ("ECE", "ece", 5),
                ("ECE mass", "ece_equal_mass", 8),
                ("Brier", "brier", 5),
                ("AUC", "auc", 5),
            )
        ),
    ]
