"""The report's interval charts (forest and facets): the axis holds every value
between round ticks, and each row's marker and whisker sit where its numbers say."""

from __future__ import annotations

import math
import re

import pytest

from itemeval.report.intervals import Interval, axis, interval_chart


@pytest.mark.parametrize(
    "values",
    [
        [0.326, 0.412, 0.839, 0.899],  # two solvers far apart on a 0/1 scale
        [0.559, 0.676],  # a narrow band: ticks finer than 0.1
        [0.0, 1.0],
        [0.5],  # one cell, no interval
        [0.0, 0.0],  # all zero: room made around it
        [-0.21, 0.07],  # differences straddle zero
        [12.0, 480.0],  # a numeric scorer's raw scale
        [3.0, float("nan"), 4.0],  # a NaN is ignored
        [1e-4, 1.2e-4],
    ],
)
def test_the_axis_holds_every_value_between_round_ticks(values):
    scale = axis(values)
    finite = [v for v in values if math.isfinite(v)]
    assert scale.start <= min(finite) and scale.stop >= max(finite)
    assert scale.start < scale.stop and 2 <= len(scale.ticks) <= 8
    assert all(scale.start <= t <= scale.stop for t in scale.ticks)
    steps = {round(b - a, 12) for a, b in zip(scale.ticks, scale.ticks[1:])}
    assert len(steps) == 1  # evenly spaced
    step = steps.pop()
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5, 10))
    assert scale.at(scale.start) == 0 and math.isclose(scale.at(scale.stop), 100)


def test_an_empty_axis_is_zero_to_one():
    scale = axis([])
    assert (scale.start, scale.stop) == (0.0, 1.0)


def rows_of(html: str) -> list[dict]:
    """Each body row: its label, value text, marker and whisker positions (%)."""
    body = html[html.index("<tbody>") :]
    found = []
    for row in re.findall(r"<tr title=.*?</tr>", body):
        point = re.search(r'class="pt" style="left:([\d.-]+)%"', row)
        whisker = re.search(r'class="ci" style="left:([\d.-]+)%;width:([\d.-]+)%"', row)
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
        found.append(
            {
                "label": cells[0],
                "value": re.sub(r"<[^>]+>", "", cells[-1]),
                "point": float(point.group(1)),
                "whisker": (
                    (float(whisker.group(1)), float(whisker.group(2)))
                    if whisker
                    else None
                ),
            }
        )
    return found


def ticks_of(html: str) -> list[tuple[float, float]]:
    """The axis as a reader sees it: (position %, the number written there)."""
    return [
        (float(left), float(text))
        for left, text in re.findall(
            r'<span style="left:([\d.-]+)%">([^<]+)</span>', html
        )
    ]


def reading(html: str, value: float) -> float:
    """Where a reader would put `value` on the track, from two of its ticks."""
    (x0, v0), (x1, v1) = ticks_of(html)[0], ticks_of(html)[-1]
    return x0 + (value - v0) * (x1 - x0) / (v1 - v0)


def test_each_row_sits_where_its_numbers_say():
    rows = [
        Interval("good · judge", 0.872, 0.839, 0.899, "on 469 items"),
        Interval("weak · judge", 0.368, 0.326, 0.412, "on 473 items"),
        Interval("one item", 0.5, None, None),
    ]
    html = interval_chart(rows, "mean score per item, 95% CI", heading="cells")
    read = rows_of(html)
    assert [r["label"] for r in read] == ["good · judge", "weak · judge", "one item"]
    assert [r["value"] for r in read] == [
        "0.872 [0.839, 0.899]",
        "0.368 [0.326, 0.412]",
        "0.500",
    ]
    for row, seen in zip(rows, read):
        assert seen["point"] == pytest.approx(reading(html, row.mean), abs=0.02)
        if row.low is None:
            assert seen["whisker"] is None
        else:
            left, width = seen["whisker"]
            assert left == pytest.approx(reading(html, row.low), abs=0.02)
            assert left + width == pytest.approx(reading(html, row.high), abs=0.03)
    assert 'title="good · judge: 0.872 [0.839, 0.899] on 469 items"' in html


def test_labels_are_text_escaped_not_markup():
    html = interval_chart([Interval("<b>a & b</b>", 0.1, 0.0, 0.2)], "c<aption>")
    assert "&lt;b&gt;a &amp; b&lt;/b&gt;" in html and "<b>a" not in html
    assert "<caption>c&lt;aption&gt;</caption>" in html
