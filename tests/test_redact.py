"""Credentials never reach a stored or printed error text."""

from __future__ import annotations

import pytest

from itemeval.redact import REDACTED, redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "401: Incorrect API key provided: sk-proj-AbCdEf0123456789xyz",
            f"401: Incorrect API key provided: {REDACTED}",
        ),
        (
            "header Authorization: Bearer abcdefghijklmnopqrstuv",
            f"header Authorization: Bearer {REDACTED}",
        ),
        (
            "key=AIzaSyA1234567890abcdefghijklmnopqrstu rejected",
            f"key={REDACTED} rejected",
        ),
        ("a task failed: timeout", "a task failed: timeout"),
        ("sk-short", "sk-short"),
        (None, None),
        ("", ""),
    ],
)
def test_shapes_of_keys_are_redacted(text, expected):
    assert redact(text) == expected


def test_the_values_of_credential_variables_in_use_are_redacted(monkeypatch):
    monkeypatch.setenv("MYPROVIDER_API_KEY", "plain-looking-key-77")
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefgh12345")
    monkeypatch.setenv(
        "SHORT_API_KEY", "abc"
    )  # too short to be a key: left alone, or every "abc" would go
    text = "bad key plain-looking-key-77 (token hf_abcdefgh12345) abc"
    assert redact(text) == f"bad key {REDACTED} (token {REDACTED}) abc"
