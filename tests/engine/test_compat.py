"""inspect-ai's private parts, as `engine/compat.py` reaches them on the installed
release (run at both ends of the tested range: `make test`, `make test-oldest`)."""

from __future__ import annotations

import asyncio

import pytest

from itemeval.engine import compat
from itemeval.version import inspect_version, release
from tests.test_imports import PACKAGE, inspect_imports, is_private_inspect

INSTALLED = release(inspect_version() or "")


def test_every_part_compat_reaches_is_in_the_installed_inspect():
    assert compat.missing_parts(inspect_version() or "", optional=True) == []


def test_parts_names_exactly_the_private_modules_compat_imports():
    imported = {
        module
        for module in inspect_imports(PACKAGE / "engine" / "compat.py")
        if is_private_inspect(module)
    }
    named = {
        name.partition(":")[0]
        for forms in compat.PARTS.values()
        for names in forms.values()
        for name in names
    }
    # the HTTP logger is reached by its name, not imported
    assert imported == named - {compat.HTTP_LOGGER}


def test_each_entry_of_parts_is_an_entry_of_compat():
    assert all(hasattr(compat, entry) for entry in compat.PARTS)
    assert compat.OPTIONAL <= set(compat.PARTS)


def test_a_newer_release_is_asked_for_the_newest_tested_names(monkeypatch):
    monkeypatch.setattr(compat, "_present", lambda name: "_prepare_input" not in name)
    assert compat.missing_parts("0.3.292") == ["prepared_input"]
    assert compat.missing_parts("0.3.270") == []  # its form is the inline one


NEWEST_ONLY = pytest.mark.skipif(
    INSTALLED < (0, 3, 279),
    reason="compares a shim for older releases with the newer form it stands in "
    "for, which this inspect-ai does not have (the oldest end runs the shim through "
    "the cache and log tests instead)",
)


def _conversations():
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
    )

    return [
        [ChatMessageUser(content="What is 2 + 3?")],
        [
            ChatMessageSystem(content="You are terse."),
            ChatMessageUser(content="Q: 1 + 1"),
            ChatMessageAssistant(content="ANSWER: 2"),
            ChatMessageUser(content="Q: 2 + 2"),
            ChatMessageUser(content="End with ANSWER: <n>."),
        ],
    ]


@NEWEST_ONLY
@pytest.mark.parametrize("name", ["itemeval/arith-good", "openai-api/local/m"])
def test_the_inline_preparation_is_what_prepare_input_makes(monkeypatch, name):
    from inspect_ai.model import GenerateConfig, get_model

    monkeypatch.setenv("LOCAL_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LOCAL_API_KEY", "k")
    model = get_model(name, memoize=False)
    config = model.config.merge(GenerateConfig(max_tokens=64))
    for messages in _conversations():
        prepared = asyncio.run(model._prepare_input(messages, [], None, config))
        inline = compat.prepared_inline(model, messages, config)
        assert [m.model_dump(exclude={"id"}) for m in inline.input] == [
            m.model_dump(exclude={"id"}) for m in prepared.input
        ]
        assert (inline.tools, inline.tool_choice) == (
            prepared.tools,
            prepared.tool_choice,
        )


@NEWEST_ONLY
@pytest.mark.parametrize(
    ("task", "model", "pattern"),
    [
        ("arith_p_default--c0123edf3466", "itemeval/arith-good", None),
        ("my_pkg/gsm8k", "openai-api/local/m", None),
        ("hf/org/task", "none/none", None),
        ("t", "openai/gpt-4o", "{task}_{model}_{id}"),
    ],
)
def test_the_log_name_of_older_releases_is_the_newer_rule(
    monkeypatch, task, model, pattern
):
    from inspect_ai._util.log_layout import eval_log_name

    if pattern:
        monkeypatch.setenv("INSPECT_EVAL_LOG_FILE_PATTERN", pattern)
    given = dict(
        task=task, task_id="hdkjDj8B", created="2026-12-01T23:38:00+00:00", model=model
    )
    assert compat.log_name_before_269(**given) == eval_log_name(**given)
