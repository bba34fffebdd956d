"""YAML read strictly: a duplicate key is refused, and so is a document whose aliases
expand it past a size no study config reaches (an alias bomb), before anything walks
the expansion."""

from __future__ import annotations

from typing import Any

import yaml

MAX_EXPANDED_NODES = 200_000
"""Most YAML nodes a config may hold once its aliases are expanded (issue 26: a
nine-level alias bomb of 10⁹ leaves made `status` grow past 2.6 GB). Without aliases
nothing is refused."""


class YamlRefused(yaml.MarkedYAMLError):
    """A well-formed YAML document that itemeval still refuses, at the mark it names."""


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key written twice in one mapping (last would
    win)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                # `<<: *defaults` then overriding a key is the point of a merge
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                continue  # unhashable: the safe loader's own error says so
            if key in seen:
                raise YamlRefused(
                    problem=f"duplicate key {cut(key)}: each key may appear once",
                    problem_mark=key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str) -> Any:
    """The document in `text`; raises yaml.YAMLError (YamlRefused for what itemeval
    refuses)."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph whose aliases expand it past MAX_EXPANDED_NODES, or into a
    cycle.

    An alias is the same node object reused, so sizes are memoised per node: the walk
    costs the document's own size, never its expansion.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise YamlRefused(
                problem="an alias refers to a node that contains it "
                "(a recursive alias)",
                problem_mark=node.start_mark,
            )
        open_nodes.add(key)
        total = 1 + sum(size(child) for child in _children(node))
        open_nodes.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise YamlRefused(
                problem=(
                    f"aliases expand this document past {MAX_EXPANDED_NODES:,} values; "
                    "write the repeated parts out or reduce them"
                ),
                problem_mark=node.start_mark,
            )
        sizes[key] = total
        return total

    size(root)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def cut(value: Any, limit: int = 120) -> str:
    """`repr(value)` shortened to about `limit` characters, saying how much was left
    out."""
    return shorten(repr(value), limit)


def shorten(text: str, limit: int = 300) -> str:
    """`text` shortened to about `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


_PLAIN = (
    ("found character '\\t'", "a tab: YAML indents with spaces only"),
    (
        "expected <block end>",
        "this line is indented differently from the lines around it: keys of one "
        "mapping (and items of one list) line up",
    ),
    (
        "mapping values are not allowed here",
        "a `key: value` where only a value can be: indent it under its key, or "
        'quote a value that contains ": "',
    ),
    ("could not find expected ':'", "a key without its `:`"),
    ("expected ',' or ']'", "a [ list is not closed with ] (or misses a comma)"),
    ("expected ',' or '}'", "a { mapping is not closed with } (or misses a comma)"),
    ("found undefined alias", "an *alias that names no &anchor"),
    ("found unexpected end of stream", "a quote that is never closed"),
    ("found duplicate anchor", "two &anchors of one name"),
)
"""PyYAML's problems in a person's words."""


def explain(exc: yaml.MarkedYAMLError, text: str) -> str:
    """What is wrong, said plainly, then the line it is on with a caret under the
    spot (PyYAML's own words when they are not known here)."""
    problem = str(exc.problem or exc)
    words = next((plain for key, plain in _PLAIN if key in problem), problem)
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return words
    lines = text.splitlines()
    if not 0 <= mark.line < len(lines):
        return words
    shown = lines[mark.line].replace("\t", " ")
    return f"{words}\n  {shown[:120]}\n  {' ' * min(mark.column, 120)}^"
