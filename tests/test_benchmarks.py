"""The benchmarks import itemeval's internals by name; `make bench` is not part of
`make test`, so a rename would otherwise only show when someone next measures."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _imported_names() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(BENCHMARKS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "itemeval"
            ):
                found += [(path.name, node.module, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize(("bench", "module", "name"), _imported_names())
def test_every_name_a_benchmark_imports_exists(bench, module, name):
    imported = importlib.import_module(module)
    assert hasattr(imported, name) or importlib.util.find_spec(f"{module}.{name}"), (
        f"{bench}: from {module} import {name}"
    )


@pytest.mark.parametrize(
    ("delays", "connections", "expected"),
    [
        ([3, 1, 1, 1], 2, 3),  # the slow call first: the ideal, max(3, 6 / 2)
        ([1, 1, 1, 3], 2, 4),  # the slow call last starts at 1 s on a free connection
        ([1, 1, 1, 1], 4, 1),
        ([2, 2, 2], 1, 6),
        ([0.5, 4, 0.5, 0.5, 0.5], 2, 4),
        ([], 3, 0),
    ],
)
def test_the_longtail_in_order_bound_starts_each_call_on_the_first_free_connection(
    monkeypatch, delays, connections, expected
):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    bench = importlib.import_module("bench_longtail")
    assert bench.in_order_bound(delays, connections) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("ratios", "expected"),
    [
        ({"1": 1.3, "2": 1.1, "3": 1.2}, "3"),
        ({"1": 1.3, "2": 1.1, "3": 1.2, "4": 1.4}, "3"),  # the lower of two middles
        ({"1": 1.2, "2": 1.2, "3": 1.2}, "2"),  # ties ranked by salt
        ({"7": 1.5}, "7"),
    ],
)
def test_the_longtail_benchmark_takes_the_median_draw(monkeypatch, ratios, expected):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    bench = importlib.import_module("bench_longtail")
    assert bench.median_salt(ratios) == expected


def test_a_salt_changes_the_longtail_draw_and_no_salt_keeps_the_old_one(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    bench = importlib.import_module("bench_longtail")
    prompts = [f"What is {n} + {n}?" for n in range(400)]
    unsalted = [bench.latency(prompt) for prompt in prompts]
    assert unsalted == [bench.latency(prompt, "") for prompt in prompts]
    salted = [bench.latency(prompt, "33") for prompt in prompts]
    assert salted != unsalted
    assert all(0 < delay <= bench.CAP_S for delay in salted)
    # log-normal with median 0.5 s: about half the calls below it
    assert 0.4 < sum(delay < bench.MEDIAN_S for delay in salted) / len(salted) < 0.6
    ratio = bench.draw_ratio(prompts, 8, "33")
    assert ratio == pytest.approx(
        bench.in_order_bound(salted, 8) / bench.ideal_wall(salted, 8)
    )
    assert ratio >= 1.0
