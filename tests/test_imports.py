"""The house in wings (docs/architecture.md): every module belongs to one layer, and
imports run one way, from each layer to the layers below it.

Every import counts, wherever it is written: at the top, inside a function, or under
`if TYPE_CHECKING:` (an annotation is a dependency too). Also held here: no module
imports another module's private name, inspect-ai is imported only under `engine/`
(its private parts only through `engine/compat.py`), and the size limits of
STYLE.md: modules, functions and parameter lists.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "itemeval"

LAYERS: list[tuple[str, ...]] = [
    ("ground",),
    ("stats",),
    ("store",),
    ("scorers",),
    ("study",),
    ("plan",),
    ("engine",),
    ("stages",),
    ("results",),
    ("adaptive",),
    ("console", "report", "view", "bridges"),
    ("cli",),
    ("facade",),
]
"""Lowest first. A module imports modules of its own package or of a lower layer;
packages that share a layer (console, report, view, bridges) import none of each
other. `ground` is the flat modules of `itemeval/`; `facade` is `itemeval/__init__`
and `__main__`, which only point at the library."""

MAX_GROUND = 20
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 6
"""Parameters of a function outside `cli/` (self and cls not counted): typer's
commands take one per option."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> str:
    """The layer package a module belongs to: `itemeval.stats.ppi` -> `stats`."""
    parts = module.split(".")
    if module in ("itemeval", "itemeval.__main__"):
        return "facade"
    if len(parts) == 2 and not (PACKAGE / parts[1]).is_dir():
        return "ground"
    return parts[1]


def rank_of(package: str) -> int:
    for rank, members in enumerate(LAYERS):
        if package in members:
            return rank
    raise AssertionError(f"package {package!r} is in no layer of LAYERS")


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: set[str], *, type_checking: bool = True) -> set[str]:
    """Absolute names of the modules a file imports, anywhere in it. `from pkg
    import name` counts as `pkg.name` when that is a module of `known`, else as
    `pkg`."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not type_checking and _is_type_checking(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _is_type_checking(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


def _absolute(node: ast.ImportFrom, package: str) -> str:
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {
        name: {m for m in imports_of(path, known) if m in known and m != name}
        for name, path in found.items()
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


def wrong_way(edges: dict[str, set[str]]) -> list[str]:
    """Each import of a higher layer, or of a sibling package of the same layer."""
    wrong = []
    for source, targets in edges.items():
        mine = package_of(source)
        for target in targets:
            theirs = package_of(target)
            if theirs == mine or package_of(target) == "facade" and mine == "facade":
                continue
            if rank_of(theirs) >= rank_of(mine):
                wrong.append(f"{source} ({mine}) imports {target} ({theirs})")
    return sorted(wrong)


# ---- the order ----------------------------------------------------------------------


def test_every_package_is_in_a_layer():
    packages = {package_of(name) for name in modules()}
    layered = {package for members in LAYERS for package in members}
    assert packages <= layered, sorted(packages - layered)
    assert layered - {"ground", "facade"} <= packages, "a layer names no package"


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_imports_run_one_way():
    assert wrong_way(graph()) == []


def test_the_ground_is_small():
    ground = sorted(n for n in modules() if package_of(n) == "ground")
    assert len(ground) <= MAX_GROUND, ground


def test_the_facade_points_at_the_library_only():
    """`itemeval/__init__` names its public objects by module and loads them on
    first use, so `import itemeval` imports nothing of the package."""
    assert graph()["itemeval"] == set()


# ---- private names ------------------------------------------------------------------


def private_imports(path: Path, known: set[str]) -> list[str]:
    """`from module import _name` of another itemeval module, and `module._name` of
    a module imported as a name."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = _absolute(node, package)
        if base != "itemeval" and not base.startswith("itemeval."):
            continue
        for alias in node.names:
            full = f"{base}.{alias.name}"
            if full in known:
                aliases[alias.asname or alias.name] = full
            elif _private(alias.name):
                found.append(f"{name} imports {base}.{alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _private(node.attr)
        ):
            found.append(f"{name} uses {aliases[node.value.id]}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_module_uses_another_modules_private_names():
    found = modules()
    known = set(found)
    used = [line for path in found.values() for line in private_imports(path, known)]
    assert sorted(used) == []


def test_private_names_are_found(tmp_path, monkeypatch):
    package = tmp_path / "itemeval"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "other.py").write_text("_hidden = 1\n")
    (package / "sub" / "mod.py").write_text(
        "from . import other\nfrom .other import _hidden\nx = other._hidden\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    known = {"itemeval.sub.other", "itemeval.sub.mod"}
    assert private_imports(package / "sub" / "mod.py", known) == [
        "itemeval.sub.mod imports itemeval.sub.other._hidden",
        "itemeval.sub.mod uses itemeval.sub.other._hidden",
    ]


# ---- inspect-ai ---------------------------------------------------------------------

COMPAT = "itemeval.engine.compat"

PRIVATE_INSPECT = {
    "inspect_ai._eval.loader": "load_task_spec: `file.py@task` as `inspect eval`",
    "inspect_ai._eval.task.util": "sample_messages: a sample's messages, the cache key",
    "inspect_ai._util.entrypoints": "model_providers: installed packages' providers",
    "inspect_ai._util.error": "prerequisite_error: a provider's missing package",
    "inspect_ai._util.log_layout": "eval_log_name: a row's log file (0.3.269 on)",
    "inspect_ai._util.registry": "registry_lookup, model_providers: no public lookup",
    "inspect_ai.hooks._startup": "init_hooks: the hooks banner captured",
    "inspect_ai.log._samples": "sample_active: the running sample of a call",
    "inspect_ai.model._cache": "cache_entry/fetch/store: the response cache's keys",
    "inspect_ai.model._model": "prepared_inline: the cache key's input before 0.3.279",
    "inspect_ai.scorer._classification": "memoise_text_normalisers: f1, exact 8x less",
    "inspect_ai.scorer._reducer.registry": "create_reducers: a reducer checked early",
    "inspect_ai.solver._multiple_choice": "parse_answers, mark_choices: `choice`",
}
"""The private inspect-ai modules itemeval still imports, all in engine/compat.py (its
entries say in full why no public name serves, and PARTS in which releases). Also
reached, not imported: the HTTP logger's name, and Model's `_resolve_config` and
(0.3.279 on) `_prepare_input`."""


def inspect_imports(path: Path) -> set[str]:
    """The inspect-ai modules a file imports (with `from m import _x` as `m._x`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if _is_inspect(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            if _is_inspect(module):
                found.add(module)
                found.update(
                    f"{module}.{a.name}" for a in node.names if _private(a.name)
                )
    return found


def _is_inspect(module: str) -> bool:
    return module == "inspect_ai" or module.startswith("inspect_ai.")


def is_private_inspect(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def test_only_the_engine_imports_inspect_ai():
    importers = sorted(
        name
        for name, path in modules().items()
        if inspect_imports(path) and package_of(name) != "engine"
    )
    assert importers == []


def test_private_inspect_parts_are_reached_through_compat_only():
    private = {
        f"{name}: {module}"
        for name, path in modules().items()
        for module in inspect_imports(path)
        if is_private_inspect(module) and name != COMPAT
    }
    assert private == set()


def test_the_private_inspect_modules_compat_imports_are_the_listed_ones():
    imported = {
        module
        for module in inspect_imports(PACKAGE / "engine" / "compat.py")
        if is_private_inspect(module)
    }
    assert imported == set(PRIVATE_INSPECT)


def test_each_private_inspect_part_compat_uses_has_its_reason():
    """compat's entries each open with a docstring that says why it cannot use a
    public name."""
    tree = ast.parse((PACKAGE / "engine" / "compat.py").read_text(encoding="utf-8"))
    bare = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and not node.name.startswith("_")
        and any(is_private_inspect(m) for m in _function_inspect_imports(node))
        and len(ast.get_docstring(node) or "") < 40
    ]
    assert bare == []


def _function_inspect_imports(node: ast.FunctionDef) -> set[str]:
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.ImportFrom) and _is_inspect(child.module or ""):
            found.add(child.module or "")
            found.update(
                f"{child.module}.{a.name}" for a in child.names if _private(a.name)
            )
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from inspect_ai.model._cache import cache_fetch\n", True),
        ("from inspect_ai.scorer import _classification\n", True),
        ("from inspect_ai.model import get_model\n", False),
        ("def f():\n    from inspect_ai._util.error import PrerequisiteError\n", True),
    ],
)
def test_private_inspect_imports_are_found(tmp_path, source, expected):
    (tmp_path / "m.py").write_text(source)
    found = inspect_imports(tmp_path / "m.py")
    assert any(is_private_inspect(m) for m in found) is expected


# ---- the graph's own machinery ------------------------------------------------------


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


def test_imports_resolve_relative_and_count_type_checking(tmp_path, monkeypatch):
    package = tmp_path / "itemeval"
    (package / "sub").mkdir(parents=True)
    source = (
        "from typing import TYPE_CHECKING\nfrom . import plan\nfrom ..records "
        "import Item\n"
        "if TYPE_CHECKING:\n    from ..study import Study\n\ndef f():\n    "
        "from .local import upsert\n"
    )
    (package / "sub" / "mod.py").write_text(source)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    found = imports_of(package / "sub" / "mod.py", {"itemeval.sub.plan"})
    assert found >= {
        "itemeval.sub.plan",
        "itemeval.records",
        "itemeval.sub.local",
        "itemeval.study",
    }
    runtime = imports_of(
        package / "sub" / "mod.py", {"itemeval.sub.plan"}, type_checking=False
    )
    assert "itemeval.study" not in runtime


def test_an_upward_or_sideways_import_is_found(monkeypatch, tmp_path):
    package = tmp_path / "itemeval"
    for folder in ("stats", "engine", "report", "view"):
        (package / folder).mkdir(parents=True)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    edges = {
        "itemeval.stats.ppi": {"itemeval.engine.tasks"},
        "itemeval.report.plots": {"itemeval.view.data"},
        "itemeval.engine.tasks": {"itemeval.stats.ppi", "itemeval.engine.hooks"},
    }
    assert wrong_way(edges) == [
        "itemeval.report.plots (report) imports itemeval.view.data (view)",
        "itemeval.stats.ppi (stats) imports itemeval.engine.tasks (engine)",
    ]


# ---- sizes --------------------------------------------------------------------------


def functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return sum(a.arg not in ("self", "cls") for a in named)


def test_no_module_is_over_400_lines():
    over = {
        name: lines
        for name, path in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines()))
        > MAX_MODULE_LINES
    }
    assert over == {}


def test_no_function_is_over_60_lines():
    over = sorted(
        f"{name}:{node.name} {node.end_lineno - node.lineno + 1} lines"
        for name, path in modules().items()
        for node in functions(path)
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    )
    assert over == []


def test_no_function_outside_the_cli_takes_more_than_6_parameters():
    over = sorted(
        f"{name}:{node.name} ({parameters(node)})"
        for name, path in modules().items()
        if package_of(name) != "cli"
        for node in functions(path)
        if parameters(node) > MAX_PARAMETERS
    )
    assert over == []


def test_only_the_store_asks_where_a_study_lives():
    """One backend per study (store.backend.backend_for): no module outside `store/`
    branches on `paths.remote`."""
    asking = sorted(
        name
        for name, path in modules().items()
        if package_of(name) != "store" and name != "itemeval.paths"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and node.attr == "remote"
        and (
            (isinstance(node.value, ast.Name) and node.value.id == "paths")
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "paths")
        )
    )
    assert asking == []
