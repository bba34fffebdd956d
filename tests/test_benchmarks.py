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
