"""The report's tables of global metrics and of criteria, beside the means."""

from __future__ import annotations

from ..result_values import ResultsReport


def metrics_section(results: ResultsReport, slugs: dict[str, str]) -> str:
    from .html import html_table, num

    rows = [
        [
            slugs.get(r.gen_condition_id or "", f"{r.facet} = {r.level}"),
            slugs[r.grade_condition_id],
            r.name,
            r.n,
            num(r.value),
            f"{num(r.ci_low)} – {num(r.ci_high)}",
        ]
        for r in results.metrics
    ]
    return (
        '<h2>Metrics</h2><p class="muted">Global metrics over each cell\'s items; '
        "95% intervals from 2,000 item-bootstrap resamples.</p>"
        + html_table(
            ["solver", "grader", "metric", "n", "value", "95% CI"], rows, left=3
        )
    )


def criteria_section(results: ResultsReport, slugs: dict[str, str]) -> str:
    from .html import html_table, num

    rows = [
        [
            slugs[r.gen_condition_id],
            slugs[r.grade_condition_id],
            r.criterion,
            r.items,
            num(r.mean),
            f"{num(r.ci_low)} – {num(r.ci_high)}",
        ]
        for r in results.criteria
    ]
    parts = [
        "<h2>Criteria</h2>",
        html_table(
            ["solver", "grader", "criterion", "items", "mean", "95% CI"], rows, 3
        ),
    ]
    if results.criteria_agreement:
        agreement = [
            [
                slugs[r.a],
                slugs[r.b],
                r.criterion,
                r.n,
                num(r.exact),
                num(r.spearman),
                num(r.kappa_quadratic),
            ]
            for r in results.criteria_agreement
        ]
        headers = ["A", "B", "criterion", "n", "exact", "Spearman", "kappa"]
        parts += ["<h3>Agreement per criterion</h3>", html_table(headers, agreement, 3)]
    return "".join(parts)
