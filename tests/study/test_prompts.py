"""Templates: builtin vs local resolution, content hashes, placeholder checks and
brace-safe rendering."""

from __future__ import annotations

import hashlib

import pytest

from itemeval.errors import ConfigError
from itemeval.study.prompts import (
    RUBRIC_FIELDS,
    builtin_names,
    check_template,
    load_template,
    placeholders,
    render,
)


def test_packaged_templates_exist():
    assert {"minimal", "standard"} <= set(builtin_names("prompt"))
    assert "standard" in builtin_names("rubric")


def test_builtin_and_local_never_shadow_each_other(tmp_path):
    (tmp_path / "standard.md").write_text("LOCAL {input}")
    local = load_template("standard", "prompt", tmp_path, field="f")
    packaged = load_template("builtin:standard", "prompt", tmp_path, field="f")
    assert local.text == "LOCAL {input}" and local.source == "local"
    assert packaged.source == "builtin" and packaged.text != local.text


def test_hash_ignores_line_endings(tmp_path):
    (tmp_path / "a.md").write_bytes(b"line one\r\n{input}\r\n")
    (tmp_path / "b.md").write_bytes(b"line one\n{input}\n")
    a = load_template("a", "prompt", tmp_path, field="f")
    b = load_template("b", "prompt", tmp_path, field="f")
    assert a.hash == b.hash == hashlib.sha256(b"line one\n{input}\n").hexdigest()


def test_path_like_names_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_template("../secret", "prompt", tmp_path, field="f")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{input}", ["input"]),
        ("Solve {input} for {id}.", ["input", "id"]),
        (r"Use \frac{a}{b} here: {input}", ["input"]),
        (r"x^{n} and y_{i} then {input}", ["input"]),
        ('Reply {"score": 1} to {input}', ["input"]),
        ("{ input }", []),
        ("{{input}}", ["input"]),
        ("{9lives} {topic}", ["topic"]),
    ],
)
def test_placeholders(text, expected):
    assert placeholders(text) == expected


@pytest.mark.parametrize(
    "text, values, expected",
    [
        ("Q: {input}", {"input": "2+2"}, "Q: 2+2"),
        (r"\frac{input}{2} {input}", {"input": "x"}, r"\frac{input}{2} x"),
        ('End with {"score": 1}. {input}', {"input": "q"}, 'End with {"score": 1}. q'),
        ("{unknown} {input}", {"input": "q"}, "{unknown} q"),
        ("{input}", {"input": "has {solution} inside"}, "has {solution} inside"),
        ("{target}|{input}", {"input": "q", "target": None}, "|q"),
        ("{n} items", {"n": 3}, "3 items"),
    ],
)
def test_render_replaces_only_known_tokens(text, values, expected):
    assert render(text, values) == expected


def test_rubric_needs_input_and_solution(tmp_path):
    (tmp_path / "r.md").write_text("Grade {input}")
    template = load_template("r", "rubric", tmp_path, field="facets.rubric[0]")
    with pytest.raises(ConfigError, match=r"must contain \{solution\}"):
        check_template(template, RUBRIC_FIELDS, field="facets.rubric[0]")


def test_unknown_placeholder_is_a_warning(tmp_path):
    (tmp_path / "r.md").write_text("Grade {input} {solution} {answr}")
    template = load_template("r", "rubric", tmp_path, field="f")
    warnings = check_template(template, RUBRIC_FIELDS, field="f")
    assert len(warnings) == 1 and "{answr}" in warnings[0]


def test_empty_template_is_an_error(tmp_path):
    (tmp_path / "e.md").write_text("  \n")
    with pytest.raises(ConfigError, match="is empty"):
        load_template("e", "prompt", tmp_path, field="f")
