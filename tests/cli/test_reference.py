"""The generated reference pages (docs/reference/): up to date with the code, and
naming every command, option, config key, store column and exit code."""

from __future__ import annotations

import re

import pytest

from itemeval import errors
from itemeval.cli import reference
from itemeval.store.schemas import STORES
from tests.helpers import REPO

DOCS = REPO / "docs" / "reference"


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return reference.pages()


@pytest.mark.parametrize("name", reference.PAGES)
def test_the_reference_pages_are_up_to_date(pages, name):
    written = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert written == pages[name], (
        f"docs/reference/{name}.md is out of date: run "
        "`.venv/bin/python -m itemeval.cli.reference`"
    )


def sections(page: str) -> dict[str, str]:
    """`## heading` -> the text under it."""
    parts = re.split(r"^## (.+)$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def missing_options(page: str) -> list[str]:
    found = sections(page)
    missing = []
    for name, command, _ in reference.commands():
        text = found.get(f"itemeval {name}", "")
        for param in command.params:
            opts = getattr(param, "opts", []) + getattr(param, "secondary_opts", [])
            for opt in opts if opts[0].startswith("-") else [param.name]:
                if f"`{opt}`" not in text and f"| {opt} |" not in text:
                    missing.append(f"itemeval {name} {opt}")
    return missing


def missing_keys(page: str) -> list[str]:
    found = sections(page)
    return [
        f"{section}.{key}"
        for section, keys in reference.config_keys().items()
        for key in keys
        if f"| `{key}` |" not in found.get(section, "")
    ]


def test_every_command_and_option_is_in_the_cli_reference(pages):
    names = [name for name, _, _ in reference.commands()]
    assert {"init", "generate", "grade", "results", "schema"} <= set(names)
    assert missing_options(pages["cli"]) == []
    options = sum(len(command.params) for _, command, _ in reference.commands())
    assert options > 100


def test_every_config_key_is_in_the_config_reference(pages):
    assert missing_keys(pages["config"]) == []
    keys = sum(len(keys) for keys in reference.config_keys().values())
    assert keys > 60


def test_a_missing_option_or_key_is_seen(pages):
    cut = pages["cli"].replace("| `--fresh` |", "| `--frsh` |", 1)
    assert missing_options(cut) and missing_options(cut)[0].endswith("--fresh")
    cut = pages["config"].replace("| `draws` |", "| `drws` |")
    assert "Grader.draws" in missing_keys(cut)


def test_every_store_column_and_exit_code_is_referenced(pages):
    found = sections(pages["stores"])
    for name, (schema, _key) in STORES.items():
        for field in schema:
            row = next(
                line
                for line in found[name].splitlines()
                if line.startswith(f"| `{field.name}` |")
            )
            assert not row.endswith("|  |"), f"{name}.{field.name} has no description"
    for value in (errors.EXIT_CONFIG, errors.EXIT_LOCKED, errors.EXIT_INTERRUPTED):
        assert f"\n| {value} |" in pages["exit-codes"]


@pytest.mark.parametrize(
    ("node", "shown"),
    [
        ({"type": "integer", "minimum": 1, "maximum": 100}, "int (≥ 1, ≤ 100)"),
        ({"type": "number", "exclusiveMinimum": 0}, "number (> 0)"),
        ({"enum": ["skip", "rerun"]}, '`"skip"` | `"rerun"`'),
        ({"const": 1}, "`1`"),
        ({"$ref": "#/$defs/Grader"}, "[Grader](#grader)"),
        ({"type": "array", "items": {"type": "string"}}, "list of text"),
        (
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/Grader"}},
            "mapping of name to [Grader](#grader)",
        ),
        ({"anyOf": [{"type": "boolean"}, {"type": "null"}]}, "boolean or null"),
        ({"type": "string", "pattern": "^[^/]+/.+"}, "text (matching `^[^/]+/.+`)"),
    ],
)
def test_a_schema_type_in_a_readers_words(node, shown):
    assert reference._type(node) == shown


def test_the_readme_stays_short():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    text = "\n".join(lines)
    for link in (
        "docs/tutorial.md",
        "docs/reference/cli.md",
        "docs/reference/config.md",
    ):
        assert f"]({link})" in text
    assert "make demo" in text and "make test" in text and "## Exit codes" in text
