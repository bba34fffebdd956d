"""How far the study config travels into a command (issue 25: "the walks").

A static count over itemeval's sources, no import needed: from a CLI command's function,
follow every call that resolves to an itemeval function (module functions, functions
imported by name or through a module alias, `self.method`, a class's `__init__`), and
count, in the reachable functions, the calls that hand the whole study (`study`) on to
another function: each is a place that climbs back to the root config instead of being
handed the values it needs. Also printed: how many reachable functions take the whole
study (a parameter named `study` or annotated `Study`). Calls through objects whose type
is not written in the call (`plan.run()`) are not followed, so the counts are a floor.

Issue 25's baseline (c99c79f, counted by this script): generate 19 calls / 14
functions, grade 26 / 21, estimate 38 / 27; the issue's own count was 23, 34, 38+.
Once a run and each stage took the study resolved once at the command (RunSetting,
GenerateInputs, GradeInputs): generate 6 / 5, grade 9 / 8, estimate 15 / 11, from 12,
14 and 22 calls just before; generate with the --until-decided loop (no `--without`):
40 -> 27 calls.

    python benchmarks/walks.py [-v] [--without MODULE:FUNCTION ...] [generate ...]

`--without` leaves a function (and what only it reaches) out of the walk: for example
`itemeval.adaptive.until_decided:run_until_decided`, the `generate --until-decided` loop
that drives whole generate, grade and estimate stages, to count a plain generate.

Issue 47 (the wings) moved every module into the package of its layer: the counts held
(generate 29 / 20, plain generate 6 / 5, grade 9 / 8, estimate 15 / 11) while the
reachable functions fell (614 -> 517, 413 -> 340, 520 -> 425, 533 -> 435), as the
inspect families are now reached through the scorer registry (filled by
`engine/plugin.py`), which this static walk does not follow.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "itemeval"
COMMANDS = ("generate", "grade", "estimate")


@dataclass
class Function:
    name: str
    """module:qualname"""
    module: str
    cls: str | None
    node: ast.FunctionDef | ast.AsyncFunctionDef
    takes_study: bool


@dataclass
class Module:
    name: str
    tree: ast.Module
    names: dict[str, str] = field(default_factory=dict)
    """local name -> 'module:attr' (a function or class imported by name)"""
    modules: dict[str, str] = field(default_factory=dict)
    """local name -> module (an imported module)"""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_from(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def load() -> tuple[dict[str, Module], dict[str, Function]]:
    modules: dict[str, Module] = {}
    functions: dict[str, Function] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        module = Module(name, ast.parse(path.read_text(), str(path)))
        modules[name] = module
        for node in ast.walk(module.tree):
            _note_import(module, node, path.name == "__init__.py")
        for fn in _functions(module):
            functions[fn.name] = fn
    return modules, functions


def _note_import(module: Module, node: ast.AST, is_package: bool) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.startswith("itemeval"):
                local = alias.asname or alias.name
                module.modules[local] = alias.name
    elif isinstance(node, ast.ImportFrom):
        source = _resolve_from(module.name, node, is_package)
        if not source.startswith("itemeval"):
            return
        for alias in node.names:
            local = alias.asname or alias.name
            module.names[local] = f"{source}:{alias.name}"
            module.modules.setdefault(local, f"{source}.{alias.name}")


def _functions(module: Module) -> Iterator[Function]:
    def visit(body: list[ast.stmt], cls: str | None, prefix: str) -> Iterator[Function]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                yield from visit(node.body, node.name, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield Function(
                    f"{module.name}:{prefix}{node.name}",
                    module.name,
                    cls,
                    node,
                    _takes_study(node),
                )
                yield from visit(node.body, cls, f"{prefix}{node.name}.")

    yield from visit(module.tree.body, None, "")


def _takes_study(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        annotation = ast.unparse(arg.annotation) if arg.annotation else ""
        if arg.arg == "study" or annotation.strip("'\"") in {"Study", "Study | None"}:
            return True
    return False


def callees(
    fn: Function, modules: dict[str, Module], functions: dict[str, Function]
) -> set[str]:
    module = modules[fn.module]
    found: set[str] = set()
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Call):
            target = _target(node.func, fn, module, modules, functions)
            if target:
                found.add(target)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            # a function handed on by name (a callback, a task factory) is reached too
            target = _target(node, fn, module, modules, functions)
            if target and target != fn.name:
                found.add(target)
    return found


def _target(
    func: ast.expr,
    fn: Function,
    module: Module,
    modules: dict[str, Module],
    functions: dict[str, Function],
) -> str | None:
    if isinstance(func, ast.Name):
        for candidate in (
            f"{fn.name}.{func.id}",  # a nested function
            f"{module.name}:{func.id}",
            module.names.get(func.id, ""),
        ):
            found = _function_or_init(candidate, modules, functions)
            if found:
                return found
        return None
    if not isinstance(func, ast.Attribute):
        return None
    if isinstance(func.value, ast.Name) and func.value.id == "self" and fn.cls:
        candidate = f"{fn.module}:{fn.cls}.{func.attr}"
        return candidate if candidate in functions else None
    if isinstance(func.value, ast.Name) and func.value.id in module.modules:
        owner = module.modules[func.value.id]
        return _function_or_init(f"{owner}:{func.attr}", modules, functions)
    return None


def _function_or_init(
    candidate: str, modules: dict[str, Module], functions: dict[str, Function]
) -> str | None:
    if not candidate:
        return None
    if candidate in functions:
        return candidate
    init = f"{candidate}.__init__"
    if init in functions:
        return init
    # a name re-exported by a package's __init__
    source, _, attr = candidate.partition(":")
    package = modules.get(source)
    if package is not None and attr in package.names:
        again = package.names[attr]
        return again if again in functions else None
    return None


def command(name: str, functions: dict[str, Function]) -> str:
    for fn in functions.values():
        if not fn.module.startswith("itemeval.cli") or fn.cls is not None:
            continue
        for decorator in fn.node.decorator_list:
            text = ast.unparse(decorator)
            registered = fn.node.name == name and text.endswith("command()")
            if registered or f'command("{name}")' in text:
                return fn.name
    raise SystemExit(f"no CLI command {name!r} in itemeval.cli")


def walk(
    name: str, without: frozenset[str] = frozenset()
) -> tuple[list[str], int, list[list[str]]]:
    """(the reachable functions that take the whole study, how many are reachable,
    the calls handing the whole study on, as 'caller -> line')."""
    modules, functions = load()
    start = command(name, functions)
    seen = {start}
    queue = [start]
    while queue:
        for callee in callees(functions[queue.pop()], modules, functions):
            if callee not in seen and callee not in without:
                seen.add(callee)
                queue.append(callee)
    takers = sorted(n for n in seen if functions[n].takes_study)
    return takers, len(seen), [_handing_on(functions[n]) for n in sorted(seen)]


def _handing_on(fn: Function) -> list[str]:
    own = {id(n) for n in _nested(fn.node)}
    return [
        f"{fn.name}:{node.lineno}"
        for node in ast.walk(fn.node)
        if isinstance(node, ast.Call)
        and id(node) not in own
        and any(
            isinstance(arg, ast.Name) and arg.id == "study"
            for arg in [*node.args, *(k.value for k in node.keywords)]
        )
    ]


def _nested(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of functions nested in `node` (counted as functions of their own)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from ast.walk(child)
        else:
            yield from _nested(child)


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    left_out = {
        v for flag, v in zip(argv, argv[1:], strict=False) if flag == "--without"
    }
    names = [a for a in argv if not a.startswith("-") and a not in left_out] or list(
        COMMANDS
    )
    for name in names:
        takers, reached, handing = walk(name, frozenset(left_out))
        calls = [call for calls in handing for call in calls]
        print(
            f"{name}: {len(calls)} calls hand the whole study on; "
            f"{len(takers)} of {reached} reachable functions take it"
        )
        if verbose:
            for call in calls:
                print(f"    {call}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
