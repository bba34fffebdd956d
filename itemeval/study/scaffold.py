"""`itemeval init`: copy the packaged starter study (config, prompt, rubric, dataset)
into a directory."""

from __future__ import annotations

import re
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from ..errors import ConfigError
from .config import STUDY_NAME_PATTERN


def _files(root: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found = []
    for entry in root.iterdir():
        name = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.extend(_files(entry, f"{name}/"))
        elif not entry.name.startswith("."):
            found.append((name, entry))
    return sorted(found, key=lambda pair: pair[0])


def _study_name(directory: Path) -> str:
    """The directory's name as a valid study slug, or `my-study` when it has nothing
    usable."""
    name = re.sub(r"[^a-z0-9_-]+", "-", directory.resolve().name.lower()).strip("-_")[
        :64
    ]
    return name if re.match(STUDY_NAME_PATTERN, name or "") else "my-study"


def _schema_line() -> bytes:
    """The comment YAML editors (VS Code's YAML extension, PyCharm, anything on
    yaml-language-server) read to complete and check the config's keys: the
    installed itemeval's own schema, so it moves with upgrades and needs no network."""
    from .schema import packaged_schema

    return f"# yaml-language-server: $schema={packaged_schema().as_uri()}\n".encode()


def scaffold(directory: Path, *, force: bool = False) -> list[Path]:
    """Write the starter study; refuse to overwrite any existing file unless `force`."""
    files = _files(resources.files("itemeval") / "_builtin" / "init")
    targets = [(directory / name, source) for name, source in files]
    existing = [str(path) for path, _ in targets if path.exists()]
    if existing and not force:
        raise ConfigError(
            f"init: {', '.join(existing)} already exist(s); pass --force to overwrite"
        )
    for path, source in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        if path.name == "config.yaml":
            data = _schema_line() + data.replace(
                b"study: my-study", f"study: {_study_name(directory)}".encode()
            )
        path.write_bytes(data)
    return [path for path, _ in targets]
