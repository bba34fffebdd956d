"""The names of itemeval's built-in offline models (`itemeval/*`, README "Built-in
offline models"): a name inside that namespace that is none of them is a config error,
with the nearest known name, rather than a model that runs and answers wrongly."""

from __future__ import annotations

import difflib
import re

from ..errors import ConfigError

PREFIX = "itemeval/"
KNOWN = ("arith-good", "arith-fair", "arith-weak", "judge", "echo", "fail")
"""The offline models by name; besides them `arith-NN` (NN% base accuracy) and
`judge-<name>` (another offline judge, for studies with several)."""
_PATTERN = re.compile(r"arith-(?:good|fair|weak|\d{1,2})|judge(?:-[\w.-]+)?|echo|fail")


def is_known(name: str) -> bool:
    """Whether `name` (without `itemeval/`) is one of the offline models."""
    return _PATTERN.fullmatch(name) is not None


def check_offline_model(model: str, where: str) -> None:
    """A ConfigError naming `where` for an `itemeval/<name>` that is not an offline
    model; other ids (any provider's) pass."""
    if not model.startswith(PREFIX) or is_known(model[len(PREFIX) :]):
        return
    name = model[len(PREFIX) :]
    close = difflib.get_close_matches(name, KNOWN, n=1, cutoff=0.6)
    hint = f"; did you mean {PREFIX}{close[0]}?" if close else ""
    raise ConfigError(
        f"{where}: unknown offline model {model!r}: the itemeval/ models are "
        f"{', '.join(KNOWN)}, arith-NN (NN% accuracy, e.g. arith-80) and "
        f"judge-<name>{hint}"
    )
