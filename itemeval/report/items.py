"""The report's item-analysis section: the items the flags of `results --items` point
at, one table per grade condition."""

from __future__ import annotations

import html
from typing import Any

from ..records import GradeCondition
from ..results.items import study_items
from ..study.load import Study

SHOWN = 50
"""At most this many flagged items per grade condition (the rest: `results --items`)."""


def num(value: Any) -> str:
    return "–" if value is None or value != value else f"{value:.2f}"


def items_section(study: Study, grade: list[GradeCondition]) -> str:
    """HTML: per grade condition, the flagged items with difficulty, discrimination,
    the answer most conditions gave and the target. The IRT fit is left to
    `results --items` (it can take minutes on large studies)."""
    rows = study_items(study, grade, irt=False)
    slugs = {c.id: c.slug for c in grade}
    parts = [
        '<h2>Items worth a look</h2><p class="muted">suspect_target: most '
        "conditions agree on an answer the grade says is wrong (the target may be); "
        "no_signal: every condition scores the same; negative_discrimination: the "
        "stronger conditions do worse on it. All items: <code>itemeval results "
        "CONFIG --items</code>.</p>"
    ]
    for grade_id in dict.fromkeys(row["grade_condition_id"] for row in rows):
        flagged = [
            r for r in rows if r["grade_condition_id"] == grade_id and r["flags"]
        ]
        total = sum(r["grade_condition_id"] == grade_id for r in rows)
        parts.append(
            f"<h3>{html.escape(slugs.get(grade_id, grade_id))}: {len(flagged)} of "
            f"{total} items flagged</h3>"
        )
        if flagged:
            parts.append(html_table(flagged[:SHOWN]))
    return "".join(parts)


def html_table(rows: list[dict[str, Any]]) -> str:
    head = "".join(
        f"<th>{h}</th>"
        for h in ("item", "flags", "pass rate", "discrimination", "answer", "target")
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                r["item_id"],
                ", ".join(r["flags"]),
                num(r["difficulty"]),
                num(r["discrimination"]),
                r["consensus_answer"] or "–",
                r["target"],
            )
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
