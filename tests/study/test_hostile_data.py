"""Hostile dataset values and prompts (issue 49): each is exit 2 naming the file, the
row and the field, never a traceback, and nothing is written."""

from __future__ import annotations

import json

import pytest

from itemeval.errors import ConfigError
from itemeval.study import json_rows
from itemeval.study.prompts import PromptTooLong, render
from tests.helpers import ARITH, base_config, cli_json, write_study

DEEP = "[" * 100_000 + "]" * 100_000
LONG = "7" * 5001


@pytest.mark.parametrize(
    "text, where, message",
    [
        ('{"a": 1, "extra": ' + DEEP + "}", "f: line 2", "field 'extra' is nested"),
        ('{"a": "[[[[", "extra": ' + DEEP + "}", "f", "field 'extra' is nested"),
        ('{"a": "\\"]", "b": ' + DEEP + "}", "f", "field 'b' is nested"),
        ('[{"a": 1}, {"a": 2, "x": ' + DEEP + "}]", "f", "row 2, field 'x' is nested"),
        ('{"data": [{"a": 1}, {"y": ' + DEEP + "}]}", "f", "row 2, field 'y'"),
        ('{"v": ' + "[" * 101 + "]" * 101 + "}", "f", "field 'v' is nested more"),
        ('{"n": ' + LONG + "}", "f", "field 'n' is a number of 5,001 digits"),
        ('{"n": -' + LONG + "}", "f", "a number of 5,001 digits"),
        ('[{"n": 1}, {"m": [1, ' + LONG + "]}]", "f", "row 2, field 'm' is a number"),
    ],
)
def test_a_value_python_cannot_hold_is_refused_naming_its_place(text, where, message):
    with pytest.raises(ConfigError) as caught:
        json_rows.loads(text, where)
    assert str(caught.value).startswith(f"{where}: ") and message in str(caught.value)


@pytest.mark.parametrize(
    "text, value",
    [
        ('{"v": ' + "[" * 99 + "]" * 99 + "}", {"v": json.loads("[" * 99 + "]" * 99)}),
        ('{"n": ' + "9" * 4300 + "}", {"n": int("9" * 4300)}),
        ('{"s": "' + "[" * 5000 + '"}', {"s": "[" * 5000}),  # brackets in a string
        ('{"f": 1e400}', {"f": float("inf")}),
    ],
)
def test_values_inside_the_limits_read_as_json_reads_them(text, value):
    assert json_rows.loads(text, "f") == value


def test_a_malformed_text_is_still_the_callers_to_word():
    with pytest.raises(json.JSONDecodeError):
        json_rows.loads('{"a": ', "f")


def test_a_prompt_past_the_limit_is_refused_before_it_is_built():
    with pytest.raises(PromptTooLong) as caught:
        render(
            "{input}\n" * 1000 + "{id}", {"input": "x" * 20_000, "id": "a"}, limit=10**7
        )
    assert caught.value.name == "input"
    assert str(caught.value) == (
        "renders to 20,001,001 characters, past the limit of 10,000,000 "
        "(most from {input}: 19,993,000)"
    )
    assert render("{input} {x} \\frac{a}{b}", {"input": "q", "a": "1"}, limit=100) == (
        "q {x} \\frac{a}{b}"
    )


@pytest.mark.parametrize(
    "row, prompt, message",
    [
        ({"extra": json.loads("[" * 200 + "]" * 200)}, None, "field 'extra' is nested"),
        ({"question": "q" * 200_000}, "{input}\n" * 60, "row 2 (id 'a2'): prompt 'p'"),
    ],
)
def test_every_command_refuses_a_hostile_row_with_exit_2(
    tmp_path, capsys, row, prompt, message
):
    rows = [dict(r) for r in ARITH]
    rows[1].update(row)
    config = base_config(benchmark__mapping__metadata=["difficulty", "extra"])
    for r in rows:
        r.setdefault("extra", 1)
    path = write_study(tmp_path, config, rows=rows, prompt=prompt or "Q: {input}")
    for command in ("estimate", "generate"):
        code, _, err = cli_json(capsys, command, str(path))
        assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()


def test_a_long_number_in_a_jsonl_dataset_names_its_line(tmp_path, capsys):
    path = write_study(tmp_path, base_config())
    data = tmp_path / "data" / "arith.jsonl"
    lines = data.read_text().splitlines()
    lines[2] = lines[2][:-1] + ', "note": ' + LONG + "}"
    data.write_text("\n".join(lines) + "\n")
    code, _, err = cli_json(capsys, "generate", str(path))
    assert code == 2 and "arith.jsonl: line 3: field 'note' is a number of 5,001" in err


def test_a_config_past_its_size_limit_is_refused_before_it_is_parsed(tmp_path, capsys):
    config = base_config(solvers__models=["itemeval/" + "x" * 1_100_000])
    path = write_study(tmp_path, config)
    code, _, err = cli_json(capsys, "status", str(path))
    assert code == 2 and "bytes; a study config is at most 1,000,000" in err


@pytest.mark.parametrize(
    "override, message",
    [
        ({"solvers__models": ["itemeval/" + "x" * 200_000]}, "unknown offline model"),
        ({"facets__scorer": "s" * 200_000}, "unknown scorer"),
        ({"facets__prompt": ["p" * 200_000]}, "longer than a file name can be (250)"),
    ],
)
def test_a_long_value_is_quoted_back_cut_to_its_ends(
    tmp_path, capsys, override, message
):
    path = write_study(tmp_path, base_config(**override))
    code, _, err = cli_json(capsys, "status", str(path))
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err) < 2000 and ("characters)" in err or "200,000 characters" in err)


@pytest.mark.parametrize(
    "text, got", [("", "an empty file"), ("- a\n- b\n", "a list"), ("hi\n", "a single")]
)
def test_a_config_that_is_no_mapping_says_what_it_is(tmp_path, capsys, text, got):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    code, _, err = cli_json(capsys, "status", str(path))
    assert code == 2 and f"got {got}" in err and "NoneType" not in err
