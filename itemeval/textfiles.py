"""Reading the user's text files (configs, datasets, templates, price tables) as
UTF-8, and writing the files a user names (`--csv`, `--out`), with a clear error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import ConfigError


def read_utf8(path: Path, what: str) -> str:
    """The file's text; a ConfigError naming the file, the line and byte of the first
    bad byte otherwise."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{what} {path}: line {line} (byte offset {exc.start}) is not "
            f"UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8 and run the command again"
        ) from None


def write_named(path: Path, write: Callable[[Path], None], option: str) -> None:
    """`write(path)` to a file the user named with `option`, its folder made first; a
    directory or a place that cannot be written is a ConfigError naming both, never a
    traceback."""
    if path.is_dir():
        raise ConfigError(f"{option} {path}: that is a directory; name a file in it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    except OSError as exc:
        raise ConfigError(
            f"{option} {path}: cannot write it ({exc.strerror or exc}); name a file "
            "in a folder you can write"
        ) from None
