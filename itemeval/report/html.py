"""HTML pieces the report's sections share: escaping, numbers, tables and plots."""

from __future__ import annotations

import html
import io
from typing import Any


def esc(value: Any) -> str:
    return html.escape(str(value))


def num(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def html_table(headers: list[str], rows: list[list[Any]], left: int = 1) -> str:
    head = "".join(
        f'<th class="{"l" if i < left else ""}">{esc(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"l" if i < left else ""}">{esc(v)}</td>'
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def svg(figure: Any) -> str:
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
