"""The price table: packaged coverage, lookup normalisation, cost arithmetic and
override files."""

from __future__ import annotations

import json
import math

import pytest

from itemeval.errors import ConfigError
from itemeval.plan.pricing import (
    Price,
    PriceTable,
    load_prices,
    normalise_model_id,
    packaged_prices,
)


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("openai/gpt-4.1-mini", (0.4, 1.6)),
        ("  OpenAI/GPT-4o-mini ", (0.15, 0.6)),
        ("openai/gpt-5", (1.25, 10.0)),
        ("anthropic/claude-sonnet-4-20250514", (3.0, 15.0)),
        ("google/gemini-2.5-flash", (0.3, 2.5)),
        ("itemeval/arith-good", (1.0, 4.0)),
        ("itemeval/judge", (0.5, 1.5)),
    ],
)
def test_packaged_prices(model_id, expected):
    price = load_prices().lookup(model_id)
    assert price is not None and (price.input, price.output) == expected


@pytest.mark.parametrize(
    "model_id",
    [
        "openai-api/local/gpt-4o",  # another host sets its own prices
        "openai/gpt-4o-2099-01-01",  # dated snapshots are never folded into their alias
        "itemeval/judge-strict",
        "mockllm/model",
        "",
    ],
)
def test_unpriced_models_are_none(model_id):
    assert load_prices().lookup(model_id) is None
    assert model_id not in load_prices()


def test_packaged_table_says_where_its_prices_come_from():
    table = packaged_prices()
    assert table.date == "2025-10-01" and "openai.com/api/pricing" in table.source
    demo = {m for m, p in table.prices.items() if p.demo}
    assert demo == {
        "itemeval/arith-good",
        "itemeval/arith-fair",
        "itemeval/arith-weak",
        "itemeval/judge",
    }
    assert all(m == normalise_model_id(m) for m in table.prices)


@pytest.mark.parametrize(
    ("price", "tokens", "usd"),
    [
        (Price(input=1.0, output=4.0), (1_000_000, 0), 1.0),
        (Price(input=1.0, output=4.0), (500_000, 250_000), 1.5),
        (
            Price(input=2.0, output=8.0, cache_read=0.5),
            (1000, 1000, 4000),
            (2000 + 8000 + 2000) / 1e6,
        ),
        (
            Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
            (100, 10, 1000, 2000),
            (300 + 150 + 300 + 7500) / 1e6,
        ),
        (
            Price(input=2.0, output=8.0),
            (0, 0, 1000, 1000),
            4000 / 1e6,
        ),  # no cache rates: the input rate
        (Price(input=0.5, output=1.5), (0, 0), 0.0),
    ],
)
def test_cost(price, tokens, usd):
    assert math.isclose(price.cost(*tokens), usd, rel_tol=1e-12, abs_tol=1e-15)


def test_tables_and_prices_are_frozen():
    table = load_prices()
    with pytest.raises(TypeError):
        table.prices["x/y"] = Price(1, 1)  # type: ignore[index]
    with pytest.raises(AttributeError):
        table.date = "now"  # type: ignore[misc]
    assert PriceTable().lookup("openai/gpt-4o") is None


def test_override_replaces_and_adds_models(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "date": "2030-01-01",
                "models": {
                    "openai/gpt-4.1-mini": {
                        "input": 0.2,
                        "output": 0.8,
                        "cache_read": 0.05,
                    },
                    "OpenAI-API/Local/My-Model": {"input": 0.0, "output": 0.0},
                },
            }
        )
    )
    table = load_prices(path)
    assert table.lookup("openai/gpt-4.1-mini") == Price(
        input=0.2, output=0.8, cache_read=0.05
    )
    assert table.lookup("openai-api/local/my-model") == Price(input=0.0, output=0.0)
    assert table.lookup("openai/gpt-4o") == packaged_prices().lookup("openai/gpt-4o")
    assert str(path) in table.source and "2030-01-01" in table.source


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON (line 1, column 2"),
        ('{"prices": {}}', "models: Field required"),
        ('{"models": {"a/b": {"input": 1}}}', "models.a/b.output: Field required"),
        (
            '{"models": {"a/b": {"input": -1, "output": 1}}}',
            "models.a/b.input: Input should be greater than or equal to 0",
        ),
        (
            '{"models": {"a/b": {"input": "cheap", "output": 1}}}',
            "models.a/b.input: Input should be a valid number",
        ),
        (
            '{"models": {"a/b": {"input": 1, "output": 1, "cache_reed": 0.1}}}',
            "models.a/b.cache_reed: Extra inputs",
        ),
        ('{"models": []}', "models: Input should be a valid dictionary"),
    ],
)
def test_bad_override_names_the_file_and_the_problem(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as raised:
        load_prices(path)
    assert str(path) in str(raised.value) and problem in str(raised.value)


def test_missing_override_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_prices(tmp_path / "nope.json")
