"""canonical_json, hashes and slugs: the primitives every id is minted from."""

from __future__ import annotations

import pytest

from itemeval.hashing import canonical_json, condition_id, content_hash, slug_part


@pytest.mark.parametrize(
    "value, text",
    [
        ({"b": 1, "a": [1, 2]}, '{"a":[1,2],"b":1}'),
        ({"é": "ü"}, '{"é":"ü"}'),
        ({"x": 0.7, "y": None, "z": True}, '{"x":0.7,"y":null,"z":true}'),
        ([{"b": {"d": 1, "c": 2}}], '[{"b":{"c":2,"d":1}}]'),
    ],
)
def test_canonical_json(value, text):
    assert canonical_json(value) == text


def test_canonical_json_refuses_nan():
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


@pytest.mark.parametrize(
    "text, slug",
    [
        ("gpt-4.1-mini", "gpt-4-1-mini"),
        ("builtin:standard", "builtin-standard"),
        ("Claude 3.5 Sonnet", "claude-3-5-sonnet"),
        ("a__b", "a-b"),
        ("hot", "hot"),
    ],
)
def test_slug_part(text, slug):
    assert slug_part(text) == slug


def test_content_hash_normalises_crlf():
    expected = "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78"
    assert content_hash("a\r\nb") == content_hash("a\nb") == expected


def test_condition_id_literal():
    assert condition_id("s", {"a": 1}) == "s--015abd7f5cc5"
