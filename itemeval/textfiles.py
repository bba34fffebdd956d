"""Reading the user's text files (configs, datasets, templates, price tables) as
UTF-8, with a clear error."""

from __future__ import annotations

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
