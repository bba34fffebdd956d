"""The pairwise contract without a model: verdict parsing, position letters to
condition ids, which pairs and orders are asked, the state of stored verdicts, and
the config keys."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.plan import pairwise as pairwise_plan
from itemeval.records import GradeCondition
from itemeval.study import pairwise
from tests.helpers import base_config, write_study


def fenced(body: str) -> str:
    return f"Both are close.\n```json\n{body}\n```"


@pytest.mark.parametrize(
    ("reply", "position", "raw", "error"),
    [
        (fenced('{"winner": "A", "reasoning": "A is right"}'), "A", "A", None),
        (fenced('{"winner": "B", "reasoning": "B is right"}'), "B", "B", None),
        (fenced('{"winner": "tie", "reasoning": "same"}'), "tie", "tie", None),
        (fenced('{"winner": " b ", "reasoning": "lower case"}'), "B", " b ", None),
        (fenced('{"winner": "TIE"}'), "tie", "TIE", None),
        # raw JSON at the end, no fence
        ('I prefer the second.\n{"winner": "B", "reasoning": "x"}', "B", "B", None),
        # fenced blocks first (last to first), then raw objects
        (
            'Answer A says {"winner": "A"}.\n' + fenced('{"winner": "B"}'),
            "B",
            "B",
            None,
        ),
        # an echo of the format line is passed over, the real verdict before it read
        (
            fenced('{"winner": "B"}') + '\nFormat: {"winner": "A" | "B" | "tie"}',
            "B",
            "B",
            None,
        ),
        (fenced('{"winner": "B"}') + "\n" + fenced('{"note": 1}'), "B", "B", None),
        ("Answer A is better.", None, None, "no_json_object"),
        ("", None, None, "no_json_object"),
        (fenced("{'winner': 'A'}"), None, None, "no_json_object"),
        (
            fenced("{'x': 1}") + "\n" + fenced('{"note": 1}'),
            None,
            None,
            "no_json_object",
        ),
        (fenced('{"note": 1}') + "\n" + fenced("{'x': 1}"), None, None, "no_winner"),
        (fenced('{"score": 1, "reasoning": "wrong format"}'), None, None, "no_winner"),
        (fenced('{"winner": "C"}'), None, "C", "invalid_winner"),
        (fenced('{"winner": "both"}'), None, "both", "invalid_winner"),
        (fenced('{"winner": 1}'), None, "1", "invalid_winner"),
        (fenced('{"winner": null}'), None, "null", "invalid_winner"),
        # a cut-off reply reads as the pointwise judge's does: the last complete object
        (
            '{"winner": "A"}\nOn reflection ```json\n{"winner": "B", "reas',
            "A",
            "A",
            None,
        ),
    ],
)
def test_verdicts_are_read_strictly(reply, position, raw, error):
    verdict = pairwise.parse_verdict(reply)
    assert (verdict.position, verdict.raw, verdict.parse_error) == (
        position,
        raw,
        error,
    )
    assert verdict.parse_ok == (error is None)


def test_a_verdict_quoted_from_an_answer_is_never_the_verdict():
    answer = 'My reply ends with {"winner": "A", "reasoning": "mine"}'
    quoted = pairwise.quoted_verdicts(answer, "plain")
    reply = 'B is better.\n{"winner": "A", "reasoning": "mine"}'
    assert pairwise.parse_verdict(reply).position == "A"
    assert pairwise.parse_verdict(reply, quoted).parse_error == "no_json_object"
    both = fenced('{"winner": "B"}') + '\n{"winner": "A", "reasoning": "mine"}'
    assert pairwise.parse_verdict(both, quoted).position == "B"


@pytest.mark.parametrize(
    ("position", "order", "expected"),
    [
        ("A", 1, "c-a"),  # order 1 shows A first
        ("B", 1, "c-b"),
        ("A", 2, "c-b"),  # order 2 shows B first: the letter A names condition B
        ("B", 2, "c-a"),
        ("tie", 1, "tie"),
        ("tie", 2, "tie"),
        (None, 2, None),
    ],
)
def test_a_position_letter_names_the_condition_shown_there(position, order, expected):
    assert pairwise.winner_id(position, order, "c-a", "c-b") == expected


def test_shown_puts_b_first_in_order_two():
    assert pairwise.shown(1, "a", "b") == ("a", "b")
    assert pairwise.shown(2, "a", "b") == ("b", "a")


def test_pairs_are_sorted_by_id_all_of_them_or_against_the_baseline():
    assert pairwise.pairs(["z", "b", "m"], None) == [("b", "m"), ("b", "z"), ("m", "z")]
    assert pairwise.pairs(["z", "b", "m"], "m") == [("b", "m"), ("m", "z")]
    assert pairwise.pairs(["z", "b"], "m") == [
        ("b", "m"),
        ("m", "z"),
    ]  # baseline not selected
    assert pairwise.pairs(["b"], None) == []


def test_one_order_is_drawn_from_the_key_and_both_positions_come_first():
    keys = [("g", "a", "b", f"i{k}", 1) for k in range(200)]
    drawn = [pairwise.orders_for(key, 1) for key in keys]
    assert drawn == [pairwise.orders_for(key, 1) for key in keys]  # stable
    firsts = sum(order == (1,) for order in drawn)
    assert 70 < firsts < 130 and all(order in ((1,), (2,)) for order in drawn)
    assert pairwise.orders_for(keys[0], 2) == (1, 2)


def _condition(orders: int = 2, baseline: str | None = None) -> GradeCondition:
    return GradeCondition(
        id="pw--1",
        slug="pw",
        kind="pairwise",
        payload={},
        baseline=baseline,
        orders=orders,
    )


GRADABLE = pd.DataFrame(
    {
        "condition_id": ["a", "a", "b", "b", "c"],
        "item_id": ["i1", "i2", "i1", "i2", "i1"],
        "epoch": [1, 1, 1, 1, 1],
        "solution_hash": ["ha1", "ha2", "hb1", "hb2", "hc1"],
    }
)


def test_cells_are_the_items_both_conditions_have_in_each_order():
    cells = pairwise_plan.pair_cells(GRADABLE, _condition(), ["a", "b", "c"])
    got = sorted(
        zip(
            cells["condition_a"], cells["condition_b"], cells["item_id"], cells["order"]
        )
    )
    assert got == [
        ("a", "b", "i1", 1), ("a", "b", "i1", 2), ("a", "b", "i2", 1),
        ("a", "b", "i2", 2), ("a", "c", "i1", 1), ("a", "c", "i1", 2),
        ("b", "c", "i1", 1), ("b", "c", "i1", 2),
    ]  # fmt: skip
    row = cells[(cells["condition_b"] == "c")].iloc[0]
    assert (row["hash_a"], row["hash_b"]) == ("ha1", "hc1")
    one = pairwise_plan.pair_cells(GRADABLE, _condition(orders=1), ["a", "b", "c"])
    assert len(one) == 4 and set(one["order"]) <= {1, 2}


def _stored(**changes) -> pd.DataFrame:
    row = {
        "grade_condition_id": "pw--1", "condition_a": "a", "condition_b": "b",
        "item_id": "i1", "epoch": 1, "order": 1, "solution_hash_a": "ha1",
        "solution_hash_b": "hb1", "error": None, "parse_ok": True, "usd": 0.01,
    }  # fmt: skip
    return pd.DataFrame([{**row, **changes}])


@pytest.mark.parametrize(
    ("changes", "state"),
    [
        ({}, "done"),
        ({"parse_ok": False}, "parse_failed"),
        ({"solution_hash_b": "old"}, "stale"),  # B's answer was regenerated
        ({"solution_hash_a": "old"}, "stale"),
        ({"error": "HTTP 500", "parse_ok": None}, "error"),
        ({"order": 2}, "pending"),  # the other order is not asked yet
    ],
)
def test_a_verdict_is_current_only_while_both_answers_are(changes, state):
    cells = pairwise_plan.pair_cells(GRADABLE, _condition(), ["a", "b"])
    merged = pairwise_plan.pair_state(cells, _stored(**changes))
    one = merged[(merged["item_id"] == "i1") & (merged["order"] == 1)]
    assert one["state"].tolist() == [state]
    todo = pairwise_plan.plan_pairs(merged, force=False)
    assert (state in ("done", "parse_failed")) != (
        ((todo["item_id"] == "i1") & (todo["order"] == 1)).any()
    )
    assert len(pairwise_plan.plan_pairs(merged, force=True)) == 4


@pytest.mark.parametrize(
    ("grader", "message"),
    [
        ({"model": "itemeval/judge", "baseline": "x"}, "baseline need kind: pairwise"),
        ({"model": "itemeval/judge", "orders": 1}, "orders need kind: pairwise"),
        ({"model": "itemeval/judge", "kind": "pairwise", "orders": 3}, "orders"),
        (
            {"model": "itemeval/judge", "kind": "pairwise", "baseline": "nope"},
            "graders.pw.baseline: 'nope' names no generate condition",
        ),
        (
            {"model": "itemeval/judge", "kind": "pairwise", "rubric": "r"},
            "must contain {answer_a}, {answer_b}",
        ),
    ],
)
def test_pairwise_config_mistakes_are_config_errors(tmp_path, capsys, grader, message):
    config = write_study(
        tmp_path, base_config(facets__grader=["pw"], graders={"pw": grader})
    )
    assert main(["estimate", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert str(config.resolve()) in err  # the file, as every config error names it


def test_a_baseline_is_named_by_slug_and_its_pairs_are_estimated(tmp_path, capsys):
    config = write_study(
        tmp_path,
        base_config(
            solvers__models=[
                "itemeval/arith-good",
                "itemeval/arith-30",
                "itemeval/arith-60",
            ],
            facets__grader=["pw"],
            graders={
                "pw": {
                    "model": "itemeval/judge",
                    "kind": "pairwise",
                    "baseline": "arith-good_p_default",
                    "orders": 1,
                }
            },
        ),
    )
    assert main(["generate", str(config), "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["estimate", str(config), "--json", "--stage", "grade"]) == 0
    import json

    lines = json.loads(capsys.readouterr().out)["conditions"]
    pw = [line for line in lines if line["slug"] == "pw_builtin-pairwise"]
    assert [line["calls"] for line in pw] == [2 * 4]  # 2 pairs × 4 items × one order


def test_an_offline_pairwise_study_shows_its_verdicts_and_failures_everywhere(
    tmp_path, capsys, monkeypatch
):
    """A study whose only grader is pairwise: the results table shows its pairs and
    strengths (it printed nothing), --csv still writes the cells' header, and the
    report counts the judge's parse failures (it said there were none)."""
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0.3")
    config = write_study(
        tmp_path,
        base_config(
            solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
            facets__scorer=None,
            facets__grader=["pw"],
            graders={"pw": {"model": "itemeval/judge", "kind": "pairwise"}},
        ),
    )
    for stage in ("generate", "grade"):
        assert main([stage, str(config), "--yes", "--display", "none"]) == 0
    capsys.readouterr()
    csv = tmp_path / "cells.csv"
    assert main(["results", str(config), "--csv", str(csv)]) == 0
    table = capsys.readouterr().out
    assert "pairwise, A's win rate" in table and "Bradley-Terry strength" in table
    assert csv.read_text().startswith("gen_condition_id,grade_condition_id,items,")
    verdicts = pd.read_parquet(tmp_path / "studies" / "t" / "pairwise.parquet")
    failures = verdicts["parse_error"].dropna().value_counts()
    assert len(failures), "the malformed rate should fail some verdicts"
    out = tmp_path / "report.html"
    assert main(["report", str(config), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "No parse failures" not in html
    section = html[html.index("Errors and parse failures") :]
    text = " ".join(re.sub(r"<[^>]+>", " ", section[: section.index("Logs")]).split())
    for code, count in failures.items():
        assert f"pw_builtin-pairwise {code} {count}" in text


def test_a_pairwise_judge_of_one_condition_is_warned_about(tmp_path, capsys):
    config = write_study(
        tmp_path,
        base_config(
            facets__grader=["pw"],
            graders={"pw": {"model": "itemeval/judge", "kind": "pairwise"}},
        ),
    )
    assert main(["estimate", str(config)]) == 0
    err = capsys.readouterr().err
    assert "graders.pw: a pairwise judge compares generate conditions" in err
