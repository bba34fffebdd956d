"""What the second new-user trial of issue 48 still found, each held here: the
headline answers the facet asked for (`--by model`), a path whole on its own line,
the estimate's expected column before any reply, identical replies on a small study,
an item table's `mean` on a wider scale, a label's line in `show`, the view's items
page over graders of different ranges."""

from __future__ import annotations

import io
from types import SimpleNamespace

import numpy as np
import pandas as pd
from rich.console import Console

from itemeval.console import render
from itemeval.console.efficiency import _item_columns
from itemeval.results.headline import headlines
from itemeval.view.data import _on_one_scale
from tests.helpers import base_config, cli_json, write_study
from tests.results.test_headline import cells, scores


def _crossed() -> tuple[pd.DataFrame, dict[str, dict[str, str]]]:
    # prompts differ most (0.9 vs 0.1); models differ a little (0.6 vs 0.4)
    by_condition = {
        "good-a": [1, 1, 1, 1, 1, 1, 1, 1, 1, 0] * 2,
        "good-b": [0, 0, 0, 0, 0, 0, 0, 0, 0, 1] * 2,
        "weak-a": [1, 1, 1, 1, 1, 1, 1, 0, 0, 0] * 2,
        "weak-b": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0] * 2,
    }
    facets = {
        "model": {g: g.split("-")[0] for g in by_condition},
        "prompt": {g: g.split("-")[1] for g in by_condition},
    }
    return scores("g", by_condition), facets


def test_the_headline_answers_the_facet_asked_for_else_the_one_that_varies_most():
    items, facets = _crossed()
    grade = [SimpleNamespace(id="g", slug="g", kind="verifiable")]
    names = {g: g for g in items["gen_condition_id"].unique()}
    plain = headlines(items, cells(items), grade, names, facets)
    asked = headlines(items, cells(items), grade, names, facets, "model")
    assert plain[0]["facet"] == "prompt" and asked[0]["facet"] == "model"
    assert asked[0]["text"].startswith("g, by model:")


def test_a_path_too_long_for_the_line_goes_whole_on_its_own(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(
        render, "stderr", lambda: Console(file=out, width=80, color_system=None)
    )
    path = "/work/trial/mystudy/studies/mystudy/reports/mystudy-20261202T015349Z.html"
    render.tell(f"report written: {path}")
    assert out.getvalue().splitlines() == ["report written:", f"  {path}"]


def test_before_any_reply_the_estimate_shows_no_expected_figure(tmp_path, capsys):
    from itemeval.cli import main

    path = write_study(tmp_path, base_config())
    capsys.readouterr()
    code = main(["estimate", str(path)])
    captured = capsys.readouterr()
    lines = (captured.err + captured.out).splitlines()
    table = [line for line in lines if line.startswith("arith-good")]
    assert code == 0 and table and all("–" in line for line in table), lines


def test_identical_replies_to_two_items_are_warned_and_results_repeat_it(
    tmp_path, capsys
):
    rows = [
        {"qid": "w1", "question": "Why is the sky blue?", "answer": "1"},
        {"qid": "w2", "question": "Name a prime minister.", "answer": "1"},
    ]
    config = base_config(
        benchmark__mapping={"input": "question", "target": "answer", "id": "qid"},
        facets__replications=2,
    )
    path = write_study(tmp_path, config, rows=rows)
    code, result, _ = cli_json(capsys, "generate", str(path), "--json")
    assert code == 0 and any(
        "every reply is the same text" in n for n in result["notes"]
    )
    code, data, _ = cli_json(capsys, "results", str(path), "--json")
    assert code == 0 and any("every reply is the same text" in n for n in data["notes"])


def test_an_item_table_on_a_wider_scale_says_mean_not_pass_rate():
    zero_one = [{"difficulty": 0.5}, {"difficulty": 1.0}]
    wider = [{"difficulty": 2.0}, {"difficulty": 3.0}]
    assert _item_columns(zero_one)[1].header == "pass rate"
    assert _item_columns(wider)[1].header == "mean"


def test_the_items_page_rescales_graders_of_different_ranges_before_averaging():
    every = pd.DataFrame(
        {
            "grade": [0, 0, 1, 1],
            "item": [0, 1, 0, 1],
            "score": [0.0, 3.0, 0.0, 1.0],  # a 0-3 judge, a 0/1 scorer
        }
    )
    assert np.allclose(_on_one_scale(every, every), [0.0, 1.0, 0.0, 1.0])
    one = every[every["grade"] == 0]
    assert np.allclose(_on_one_scale(every, one), [0.0, 3.0])  # one grader: as is


def test_a_difference_on_two_items_stays_within_the_scores_range():
    items = scores("g", {"a": [1.0, 1.0], "b": [0.0, 1.0]})
    grade = [SimpleNamespace(id="g", slug="g", kind="verifiable")]
    [row] = headlines(items, cells(items), grade, {"a": "a", "b": "b"})
    assert row["diff"] == 0.5 and (row["ci_low"], row["ci_high"]) == (-1.0, 1.0)
    from itemeval.results.cells import comparison_rows

    [compared] = comparison_rows(items, [("a", "b")], grade)
    assert (compared["ci_low"], compared["ci_high"]) == (-1.0, 1.0)
