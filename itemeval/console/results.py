"""The parts of `itemeval results` on the console that name cells: the headline, then
one table per grade condition whose rows are named by the facets that vary (model |
prompt | config), so nothing is cut in its middle at 80 columns."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from ..result_values import ResultsReport
from .cells import (
    SCALES_DIFFER,
    cell_tables,
    ci_text,
    named_column,
    num,
    number_column,
    p_text,
    per_grade,
    render_headline,
)
from .graders import Naming, cell_names, print_grader_pairs, print_pairs
from .preregistration import render_declared
from .tables import Column, Row, count, field


def render_metrics(
    console: Console, results: ResultsReport, numbers: Sequence[Column]
) -> None:
    """Global metrics beside the means: per cell, then per --by level, a table per
    grade condition each."""
    columns = [
        Column("metric", lambda row: row.name, kind="name"),
        Column("n", count("n"), min_width=3),
        Column("value", lambda row: num(field(row, "value")), min_width=5),
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
            Column("A − B", lambda row: num(field(row, "value")), min_width=6),
            *columns[2:],
            Column("p adj", lambda row: p_text(row.p_adjusted), min_width=6),
        ],
    )


def pair_tables(
    console: Console,
    results: ResultsReport,
    rows: Sequence[Row],
    title: str,
    columns: Sequence[Column],
    naming: Naming | None = None,
) -> None:
    """Rows comparing two generate conditions (A, B), a table per grade condition;
    A and B named by their facets (or by `naming`), or by keys where those would be
    cut."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(field(row, "grade_condition_id"), []).append(row)
    for grade_id, group in groups.items():
        print_pairs(
            console,
            results,
            f"{results.slugs.get(grade_id, grade_id)}: {title}",
            lambda names: [*_pair_columns(names), *columns],
            group,
            naming or Naming(cell_names(results), "C", "conditions"),
        )


def _pair_columns(names: dict[str, str]) -> list[Column]:
    """A and B of a comparison, each named by its cell's facets."""
    return [
        Column(side.upper(), lambda row, s=side: names[field(row, s)], kind="name")
        for side in ("a", "b")
    ]


def render_comparisons(console: Console, results: ResultsReport, ci: Column) -> None:
    """`--compare`: A − B per grade condition, the pair named by its facets (or,
    compared by a facet, by its levels)."""
    columns = [
        Column("n", count("n"), min_width=3),
        Column("diff", lambda row: num(field(row, "diff")), min_width=6),
        ci,
        Column("p adj", lambda row: p_text(field(row, "p_adjusted")), min_width=6),
    ]
    conditions = [row for row in results.comparisons if row.facet is None]
    if conditions:
        title = "paired differences A − B (Holm-adjusted p)"
        pair_tables(console, results, conditions, title, columns)
    for facet in dict.fromkeys(r.facet for r in results.comparisons if r.facet):
        rows = [row for row in results.comparisons if row.facet == facet]
        levels = {level: str(level) for row in rows for level in (row.a, row.b)}
        title = f"by {facet}: A − B, each item averaged over the other facets"
        pair_tables(
            console, results, rows, title, columns, Naming(levels, "L", "levels")
        )


def render_results(results: ResultsReport, console: Console) -> None:
    """The results as tables designed for 80 columns: slugs cut from the middle only
    when needed, ids in `--json`."""
    n = number_column("n", count("items"), 3)
    mean = number_column("mean", lambda row: num(field(row, "mean")), 5)
    ci = number_column("95% CI", ci_text, 11)
    # what to run first, above tables that are still empty
    first = [
        n
        for n in results.notes
        if n.startswith(("nothing generated", "nothing graded"))
    ]
    for note in first:
        console.print(Text(note, style="yellow"))
    render_headline(results, console)
    render_declared(results, console)
    cell_tables(console, results, [n, mean, ci])
    _marginal_tables(results, console, [n, mean, ci])
    if results.metrics:
        render_metrics(console, results, [number_column("95% CI", ci_text, 11)])
    _criteria_tables(results, console, [n, mean, ci])
    _agreement_tables(results, console, ci)
    _pairwise_tables(results, console, ci)
    _side_tables(results, console)
    for note in (n for n in results.notes if n not in first):
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
    if any(not row.common_scale for row in results.agreement):
        console.print(Text(SCALES_DIFFER, style="italic"))


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
            named_column(slugs, "A", "a"),
            named_column(slugs, "B", "b"),
            number_column("n", count("n"), 3),
            number_column("A wins", count("wins_a"), 6),
            number_column("B wins", count("wins_b"), 6),
            number_column("ties", count("ties"), 4),
            number_column("win rate", lambda row: num(row.win_rate), 8),
            ci,
            number_column("flip", lambda row: num(row.flip_rate), 5),
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
            number_column("strength", lambda row: num(row.strength), 8),
            ci,
            number_column("Elo", lambda row: num(row.elo, 0), 5),
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
        named_column(slugs, "A", "a"),
        named_column(slugs, "B", "b"),
        Column("criterion", lambda row: row.criterion, kind="name"),
        number_column("n", count("n"), 3),
        number_column("exact", lambda row: num(row.exact), 5),
        number_column("rho", lambda row: num(row.spearman), 5),
        number_column("kappa", lambda row: num(row.kappa_quadratic), 5),
    ]


def _grader_agreement(slugs: dict[str, str]) -> list[Column]:
    return [
        named_column(slugs, "A", "a"),
        named_column(slugs, "B", "b"),
        number_column("n", count("n"), 3),
        *(
            number_column(header, lambda row, key=key: num(field(row, key)), 5)
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
        number_column("labels", count("n_labelled"), 6),
        number_column("judge", lambda row: num(row.judge_mean), 5),
        number_column("corrected", lambda row: num(row.mean), 9),
        number_column("95% CI", ci_text, 11),
        Column("design", lambda row: row.design, kind="name"),
        number_column("saved", count("labels_saved"), 5),
    ]


def _cascades() -> list[Column]:
    return [
        Column("decided by", lambda row: row.decided_by, kind="name"),
        number_column("n", count("n"), 4),
    ]


def _calibration() -> list[Column]:
    return [
        number_column("n", count("n"), 3),
        *(
            number_column(header, lambda row, key=key: num(field(row, key)), width)
            for header, key, width in (
                ("ECE", "ece", 5),
                ("ECE mass", "ece_equal_mass", 8),
                ("Brier", "brier", 5),
                ("AUC", "auc", 5),
            )
        ),
    ]
