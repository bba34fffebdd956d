"""The package's import graph: imports run one way (cli → stages → run → building
blocks → nouns), no cycles, and inspect-ai is touched only from its adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "itemeval"

INSPECT_ADAPTERS = {
    "itemeval.inspect_tasks",
    "itemeval.inspect_scorers",
    "itemeval.inspect_graders",
    "itemeval.offline",
    "itemeval.cache_lookup",
    "itemeval.inspect_dataset",
    "itemeval.inspect_logs",
}
"""The only modules that may import inspect_ai: building and running tasks, running
inspect's scorers over stored solutions, the offline provider, a task as a dataset
and reading inspect's logs."""

LAYERS = [
    {
        "itemeval.errors",
        "itemeval.hashing",
        "itemeval.paths",
        "itemeval.records",
        "itemeval.outcomes",
        "itemeval.signals",
        "itemeval.heap",
    },
    None,  # every other module: the building blocks
    {"itemeval.run", "itemeval.runner"},
    {
        "itemeval.generate",
        "itemeval.grade",
        "itemeval.estimate",
        "itemeval.export",
        "itemeval.status",
        "itemeval.scaffold",
        "itemeval.results",
        "itemeval.report",
        "itemeval.show",
        "itemeval.launch",
        "itemeval.label_writer",
        "itemeval.importer",
        "itemeval.dataframes",
        "itemeval.sizing",
        "itemeval.until_decided",
        "itemeval.report_metrics",
    },
    {
        "itemeval.cli",
        "itemeval.console",
        "itemeval.show_render",
        "itemeval.view",
        "itemeval.view.app",
        "itemeval.view.data",
        "itemeval.view.pages",
        "itemeval.view.serve",
        "itemeval.__main__",
        "itemeval",
    },
]
"""Lowest first: a module may import its own layer or lower ones, never a higher one."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def runtime_imports(path: Path, modules: set[str] = frozenset()) -> set[str]:
    """Absolute names of every module imported anywhere in the file (function bodies
    too), except under `if TYPE_CHECKING:`, which never runs. `from pkg import name`
    counts as `pkg.name` when that is one of `modules`, else as `pkg`."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                found.add(
                    f"{base}.{alias.name}"
                    if f"{base}.{alias.name}" in modules
                    else base
                )
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {
        name: {
            m for m in runtime_imports(path, set(modules)) if m in modules and m != name
        }
        for name, path in modules.items()
    }


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def layer_of(module: str) -> int:
    for index, members in enumerate(LAYERS):
        if members is not None and module in members:
            return index
    return LAYERS.index(None)


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_imports_run_one_way():
    wrong = sorted(
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a, targets in graph().items()
        for b in targets
        if layer_of(b) > layer_of(a)
    )
    assert wrong == []


def test_only_the_adapters_import_inspect_ai():
    importers = sorted(
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        if any(
            m == "inspect_ai" or m.startswith("inspect_ai.")
            for m in runtime_imports(path)
        )
    )
    assert set(importers) <= INSPECT_ADAPTERS, importers


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
        ({"a": {"a"}}, ["a", "a"]),
    ],
)
def test_find_cycle_finds_exactly_the_cycles(edges, expected):
    assert find_cycle(edges) == expected


def test_runtime_imports_resolve_relative_and_skip_type_checking(tmp_path, monkeypatch):
    package = tmp_path / "itemeval"
    (package / "sub").mkdir(parents=True)
    source = (
        "from typing import TYPE_CHECKING\nfrom . import plan\nfrom ..records "
        "import Item\n"
        "if TYPE_CHECKING:\n    from ..study import Study\n\ndef f():\n    "
        "from .local import upsert\n"
    )
    (package / "sub" / "mod.py").write_text(source)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", package)
    found = runtime_imports(package / "sub" / "mod.py", {"itemeval.sub.plan"})
    assert {
        "itemeval.sub.plan",
        "itemeval.records",
        "itemeval.sub.local",
    } <= found and "itemeval.sub" not in found
    assert "itemeval.study" not in found
