"""The itemeval command line: each command parses, loads the study, calls one library
function and renders. The commands live by job (`stages`, `planning`, `reading`,
`tools`); this module lists them in `--help`'s order and maps errors to exit codes."""

from __future__ import annotations

import sys

import typer

from .. import signals
from ..errors import EXIT_CONFIG, ItemevalError, error_document, shortened
from . import planning, reading, stages, tools  # noqa: F401 - importing them registers them
from .app import app
from .reading import ITEM_ANALYSIS

__all__ = ["app", "bare_items", "main", "run"]

COMMANDS = (
    "init",
    "status",
    "batches",
    "estimate",
    "preregister",
    "generate",
    "grade",
    "launch",
    "commit",
    "export",
    "results",
    "report",
    "show",
    "view",
    "labels",
    "import",
    "plan",
    "schema",
)
"""The order `itemeval --help` lists the commands in: the order a user meets them,
not the modules' import order. A command not listed goes last."""


def _help_order(info: typer.models.CommandInfo) -> int:
    name = info.name or info.callback.__name__.replace("_", "-")
    return COMMANDS.index(name) if name in COMMANDS else len(COMMANDS)


app.registered_commands.sort(key=_help_order)


def bare_items(arguments: list[str]) -> list[str]:
    """`results --items` alone asks for the item analysis; `--items ID` selects items,
    as on every selecting command. The parser needs a value, so a bare one gets
    ITEM_ANALYSIS."""
    if not arguments or arguments[0] != "results":
        return list(arguments)
    out: list[str] = []
    for index, argument in enumerate(arguments):
        out.append(argument)
        following = arguments[index + 1] if index + 1 < len(arguments) else "-"
        if argument == "--items" and following.startswith("-"):
            out.append(ITEM_ANALYSIS)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the CLI, turning itemeval's errors into their exit codes in this one
    place."""
    from ..stages.manifest import set_command_line

    arguments = sys.argv[1:] if argv is None else argv
    set_command_line(["itemeval", *arguments])
    signals.install()
    try:
        result = app(args=bare_items(arguments), standalone_mode=False)
    except ItemevalError as exc:
        return _failed(
            str(exc), exc.exit_code, exc.kind, json_out="--json" in arguments
        )
    except (typer.Abort, KeyboardInterrupt):
        from ..console import render as console

        console.stderr().print("interrupted")
        return signals.interrupted_exit_code()
    except typer.Exit as exc:
        return exc.exit_code
    except (
        typer.TyperException
    ) as exc:  # usage errors from the parser: bad option, missing argument
        exc.show()
        if "--json" in arguments:
            from ..console import render as console

            console.print_json(
                error_document(
                    exc.format_message(), exit_code=EXIT_CONFIG, kind="usage"
                )
            )
        return EXIT_CONFIG
    return result if isinstance(result, int) else 0


def run() -> int:
    """The `itemeval` program: `main` on the process's arguments, then the heap left to
    the process's exit (tests call `main` in one long process instead)."""
    from .. import heap

    code = main()
    heap.leave_to_exit()
    return code


def _failed(message: str, exit_code: int, kind: str, *, json_out: bool) -> int:
    """The human message on stderr; under --json, also one JSON error document on
    stdout for scripts."""
    from ..console import render as console

    message = shortened(message)
    console.error(message)
    if json_out:
        console.print_json(error_document(message, exit_code=exit_code, kind=kind))
    return exit_code
