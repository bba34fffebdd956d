"""The report's headline, Holm marks on the paired-difference heatmaps and the
confusion table of two 0/1 graders, checked by parsing the written HTML against
`results --json` and the export."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study

MAPPING = {"input": "question", "target": "answer", "id": "qid"}
ROWS = [
    {"qid": f"q{i}", "question": f"What is {i} + {i * 5}?", "answer": str(i * 6)}
    for i in range(1, 31)
]


class Page(HTMLParser):
    """What the checks read: section ids, the headline's items, the confusion
    tables' cells, and the ids of elements."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.headline: list[str] = []
        self.confusion: list[list[str]] = []
        self.ids: list[str] = []
        self._open: list[str] = []
        self._in_headline = self._in_confusion = False
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section":
            self.sections.append(attributes.get("id", ""))
        if tag == "ul" and attributes.get("class") == "headline":
            self._in_headline = True
        if tag == "table" and attributes.get("class") == "confusion":
            self._in_confusion = True
            self.confusion.append([])
        if attributes.get("id"):
            self.ids.append(attributes["id"])
        if tag in ("li", "td"):
            self._text = []
        self._open.append(tag)

    def handle_endtag(self, tag):
        if tag == "ul":
            self._in_headline = False
        if tag == "table":
            self._in_confusion = False
        if tag == "li" and self._in_headline:
            self.headline.append("".join(self._text))
        if tag == "td" and self._in_confusion:
            self.confusion[-1].append("".join(self._text))

    def handle_data(self, data):
        self._text.append(data)


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """arith-good vs arith-weak on 30 items, scored by numeric and a 0/1 judge."""
    root = tmp_path_factory.mktemp("report")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(root, config, rows=ROWS)
    base = ["-C", str(root)]
    assert main(["generate", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none", *base]) == 0
    assert main(["export", str(path), *base]) == 0
    return path


def run_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def page(study, tmp_path_factory) -> Page:
    out = tmp_path_factory.mktemp("out") / "r.html"
    assert main(["report", str(study), "--out", str(out), "-C", str(study.parent)]) == 0
    parsed = Page()
    parsed.feed(out.read_text(encoding="utf-8"))
    parsed.text = out.read_text(encoding="utf-8")
    return parsed


def test_the_report_opens_with_the_headline_of_results(study, page, capsys):
    data = run_json(capsys, "results", str(study), "-C", str(study.parent))
    assert page.sections[0] == "headline"
    assert page.headline == [row["text"] for row in data["headline"]]
    numeric = next(t for t in page.headline if t.startswith("scorer_numeric: "))
    assert len(page.headline) == 2 and "arith-good is best (" in numeric


def test_heatmap_cells_significant_after_holm_are_marked(study, page, capsys):
    data = run_json(
        capsys, "results", str(study), "--compare", "all", "-C", str(study.parent)
    )
    significant = [c for c in data["comparisons"] if c["p_adjusted"] < 0.05]
    assert significant  # arith-good beats arith-weak on 30 items
    marks = [i for i in page.ids if i.startswith("holm-significant-")]
    assert len(marks) == 2 * len(significant)  # both halves of the matrix
    assert {re.fullmatch(r"holm-significant-(\d)-(\d)", m).groups() for m in marks} <= {
        ("0", "1"),
        ("1", "0"),
    }


def heat_tables(text: str) -> dict[str, list[list[str]]]:
    """Each heatmap's caption -> its rows of cell texts (the row name first)."""
    tables = {}
    for caption, body in re.findall(
        r'<div class="heat"><table><caption>(.*?)</caption>.*?<tbody>(.*?)</tbody>',
        text,
    ):
        rows = re.findall(r"<tr>(.*?)</tr>", body)
        tables[caption] = [
            [
                re.sub(r"<[^>]+>", "", cell)
                for cell in re.findall(r"<t[hd].*?</t[hd]>", r)
            ]
            for r in rows
        ]
    return tables


def test_the_heatmap_table_holds_each_difference_both_ways(study, page, capsys):
    data = run_json(
        capsys, "results", str(study), "--compare", "all", "-C", str(study.parent)
    )
    tables = heat_tables(page.text)
    assert len(tables) == len({c["grade_condition_id"] for c in data["comparisons"]})
    numeric = next(
        rows for caption, rows in tables.items() if caption.startswith("scorer_numeric")
    )
    [comparison] = [
        c
        for c in data["comparisons"]
        if c["grade_condition_id"].startswith("scorer_numeric")
    ]
    names = [row[0] for row in numeric]
    assert names == ["arith-good", "arith-weak"]
    i, j = (
        names.index(comparison["a"].split("_")[0]),
        names.index(comparison["b"].split("_")[0]),
    )
    diff = comparison["diff"]
    assert numeric[i][1 + j].startswith(f"{diff:+.2f}") and diff > 0.2
    assert numeric[j][1 + i].startswith(f"{-diff:+.2f}")
    assert numeric[i][1 + i] == numeric[j][1 + j] == ""  # the diagonal is blank
    assert numeric[i][1 + j].endswith("★")  # Holm-significant, as marked


def test_two_zero_one_graders_agree_in_a_confusion_table(study, page):
    table = pd.read_parquet(study.parent / "studies/t/export/grades_long.parquet")
    scored = table[~table["stale"] & table["parse_ok"].fillna(False)]
    wide = scored.pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_id",
        values="score",
    ).dropna()
    judge = next(c for c in wide.columns if c.startswith("j_"))
    numeric = next(c for c in wide.columns if c.startswith("scorer_numeric"))
    [cells] = page.confusion
    expected = [
        ((wide[judge] == a) & (wide[numeric] == b)).sum()
        for a in (1, 0)
        for b in (1, 0)
    ]
    assert [cells[1], cells[2], cells[4], cells[5]] == [str(n) for n in expected]
    assert (cells[0], cells[3]) == ("1", "0")


def charts(text: str) -> dict[str, list[tuple[str, str]]]:
    """Each interval chart's caption -> its rows (label, the numbers written)."""
    found = {}
    for caption, body in re.findall(
        r'<div class="ivl \w+"><table><caption>(.*?)</caption>.*?<tbody>(.*?)</tbody>',
        text,
    ):
        found[caption] = [
            (label, re.sub(r"<[^>]+>", "", value))
            for label, value in re.findall(
                r'<tr title="[^"]*"><th class="l">(.*?)</th>.*?<td>(.*?)</td></tr>',
                body,
            )
        ]
    return found


def written(mean: float, low: float, high: float) -> str:
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def named(label: str, parts: list[str]) -> bool:
    """A chart label "a · b" names `parts` (the report shortens slugs to what
    differs)."""
    return all(short in full for short, full in zip(label.split(" · "), parts))


def test_the_forest_has_a_row_per_graded_cell_with_its_interval(study, page, capsys):
    data = run_json(capsys, "results", str(study), "-C", str(study.parent))
    slug = data["slugs"]
    rows = charts(page.text)["mean score per item, 95% CI"]
    assert len(rows) == len(data["cells"]) == 4
    for (label, value), c in zip(rows, data["cells"]):
        assert value == written(c["mean"], c["ci_low"], c["ci_high"])
        assert named(
            label, [slug[c["gen_condition_id"]], slug[c["grade_condition_id"]]]
        )


def test_the_facet_chart_holds_results_by_model(study, page, capsys):
    data = run_json(
        capsys, "results", str(study), "--by", "model", "-C", str(study.parent)
    )
    rows = charts(page.text)["by model"]
    assert len(rows) == len(data["marginals"]) == 4
    for (label, value), m in zip(rows, data["marginals"]):
        assert value == written(m["mean"], m["ci_low"], m["ci_high"])
        assert named(label, [m["level"], data["slugs"][m["grade_condition_id"]]])


def test_a_difference_that_rounds_to_zero_reads_0_not_minus_0():
    from itemeval.report import headline as report_headline

    cell = {
        "diff": -0.0004,
        "ci": (-0.01, 0.009),
        "n": 5,
        "p": 0.9,
        "significant": False,
        "shade": ("#ffffff", "#000000"),
    }
    html = report_headline._cell(cell, 0, 1, 2)
    assert ">0.00<" in html and "-0.00" not in html
