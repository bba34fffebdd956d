"""The report's cascade table: per cascade cell, the solutions its cheap scorers
settled, those sent to its judge, and the judge calls and cost saved; checked on
tables of cases and on a real cascade study graded through the local server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from itemeval.cli import main
from itemeval.plan.cascade_counts import Settled, settled
from itemeval.result_values import Decided
from itemeval.study.cell_names import cell_name
from tests.helpers import base_config, write_study
from tests.study.test_cascade import ROWS, server  # noqa: F401 (the local server fixture)


def cascade(grade_id: str, judge: str = "j") -> SimpleNamespace:
    return SimpleNamespace(id=grade_id, is_cascade=True, grader_name=judge)


@pytest.mark.parametrize(
    ("decided", "spend", "expected"),
    [
        pytest.param(
            [("g1", "c", "numeric", 3), ("g1", "c", "j", 1), ("g1", "c", "none", 1)],
            {"c": 0.5},
            [Settled("g1", "c", 5, 3, 2, 0.75)],
            id="settled-judged-and-no-verdict",
        ),
        pytest.param(
            # two solvers share the cascade's spend per judge call (4 judge calls)
            [("g1", "c", "numeric", 2), ("g1", "c", "j", 3), ("g2", "c", "j", 1)],
            {"c": 0.2},
            [Settled("g1", "c", 5, 2, 3, 0.1), Settled("g2", "c", 1, 0, 1, 0.0)],
            id="two-solvers",
        ),
        pytest.param(
            [("g1", "c", "numeric", 4)],
            {"c": 0.0},
            [Settled("g1", "c", 4, 4, 0, None)],
            id="no-judge-call-yet",
        ),
        pytest.param(
            [("g1", "c", "exact", 1), ("g1", "c", "match", 2), ("g1", "c", "j", 1)],
            {"c": None},
            [Settled("g1", "c", 4, 3, 1, None)],
            id="two-cheap-stages-unpriced-judge",
        ),
        pytest.param(
            # a cascade whose condition is not given: its judge is unknown, left out
            [("g1", "c", "numeric", 1), ("g1", "other", "numeric", 2)],
            {"c": 0.1},
            [Settled("g1", "c", 1, 1, 0, None)],
            id="unknown-cascade-left-out",
        ),
    ],
)
def test_settled_counts_judge_calls_saved_and_their_cost(decided, spend, expected):
    rows = [Decided(*row) for row in decided]
    assert settled(rows, [cascade("c")], spend) == pytest.approx(expected)


def _sections(html: str) -> dict[str, str]:
    return dict(re.findall(r'<section id="([^"]+)">(.*?)</section>', html, re.S))


def _cells(table: str) -> list[list[str]]:
    return [
        re.findall(r"<td[^>]*>(.*?)</td>", row)
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
        if "<td" in row
    ]


PRICES = {
    "models": {
        "openai-api/local/solver": {"input": 1.0, "output": 2.0},
        "openai-api/local/judge": {"input": 3.0, "output": 15.0},
    }
}


def _run(*args: str, capsys) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_report_shows_what_the_cascade_settled_and_saved(
    tmp_path: Path,
    capsys,
    server,  # noqa: F811
):
    (tmp_path / "prices.json").write_text(json.dumps(PRICES))
    config = base_config(
        cache=False,
        solvers__models=["openai-api/local/solver"],
        graders={"j": {"model": "openai-api/local/judge", "max_tokens": 64}},
        facets__rubric=["r"],
        facets__scorer=[
            {
                "name": "cascade",
                "params": {"first": ["numeric"], "then": {"grader": "j"}},
            }
        ],
        budget__pricing_path="prices.json",
    )
    config["benchmark"]["mapping"]["metadata"] = []
    path = str(write_study(tmp_path, config, rows=ROWS))
    _run("generate", path, capsys=capsys)
    solver_calls = len(server.requests)
    _run("grade", path, capsys=capsys)
    assert len(server.requests) - solver_calls == 2  # w1 and w2: numeric read a1, a2

    results = _run("results", path, capsys=capsys)
    decided = {row["decided_by"]: row["n"] for row in results["cascades"]}
    assert decided == {"numeric": 2, "j": 1, "none": 1}
    (grade,) = _run("status", path, capsys=capsys)["grade"]
    assert grade["usd"] > 0  # the two judge calls, priced

    out = tmp_path / "report.html"
    written = _run("report", path, "--out", str(out), capsys=capsys)
    assert "cascades" in written["sections"]
    section = _sections(out.read_text())["cascades"]
    (solver,) = results["slugs"].keys() - {grade["condition_id"]}
    # numeric settled 2 of 4; the judge saw 2 (one without a verdict); 2 calls
    # saved, at the judge's spend per call: as much again as the judge cost
    assert _cells(section) == [
        [
            cell_name(results["cell_facets"][solver]),  # as the report names it
            grade["slug"],
            "4",
            "2",
            "2",
            "2",
            f"${grade['usd']:,.4f}",
        ]
    ]
