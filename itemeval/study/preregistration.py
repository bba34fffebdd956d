"""The study's preregistration: its declared analysis frozen into
`<study>/preregistration/<time>-declaration.json`, and each amendment a new file
beside it with its reason and time; no file is ever rewritten.

Each file holds the whole analysis as declared from then on (so the latest file is
the plan in force), the item set's hash, whether solutions existed when it was
written (`after_data`), what changed since the file before it, and the sha256 of
all of that, so an edit by hand is caught when it is read."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..hashing import canonical_json
from ..version import __version__
from .analysis import Analysis
from .load import Study

FOLDER = "preregistration"


@dataclass(frozen=True)
class Declaration:
    """One file of the preregistration, as read back (its sha256 checked)."""

    path: Path
    body: dict[str, Any]

    @property
    def kind(self) -> str:
        return self.body["kind"]

    @property
    def analysis(self) -> dict[str, Any]:
        return self.body["analysis"]

    @property
    def after_data(self) -> bool:
        return bool(self.body["after_data"])


def folder(study: Study) -> Path:
    return study.paths.root / FOLDER


def declared_analysis(study: Study) -> dict[str, Any]:
    """What the study's config declares now: its `analysis:` (the defaults when it
    has none), the item set and the conditions, as a declaration records them."""
    analysis = study.config.analysis or Analysis()
    return {
        "analysis": analysis.model_dump(mode="json"),
        "items": {"count": len(study.items), "hash": items_hash(study)},
        "conditions": sorted(c.slug for c in study.generate),
    }


def items_hash(study: Study) -> str:
    """sha256 of the items' ids, inputs and targets, in id order: a changed item
    set, or a changed item, changes it."""
    rows = sorted((i.id, i.input, i.target) for i in study.items)
    return hashlib.sha256(canonical_json(rows).encode()).hexdigest()


def declarations(study: Study) -> list[Declaration]:
    """The study's declaration and amendments, oldest first; a file whose sha256
    does not match what it holds was edited, and is an error."""
    where = folder(study)
    found = []
    for path in sorted(where.glob("*.json")) if where.is_dir() else []:
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: not a preregistration file ({exc})") from None
        if not isinstance(body, dict) or body.get("sha256") != _digest(body):
            raise ConfigError(
                f"{path}: its sha256 does not match what it holds: the file was "
                "edited after it was written. Restore it (a declaration is never "
                "rewritten); a change of plan is `itemeval preregister CONFIG "
                '--amend --reason "..."`'
            )
        found.append(Declaration(path, body))
    return found


def _digest(body: dict[str, Any]) -> str:
    rest = {k: v for k, v in body.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(rest).encode()).hexdigest()


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed between two declared analyses, one line per field, in words."""
    changed = []
    for part in ("analysis", "items", "conditions"):
        old, new = before.get(part), after.get(part)
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    changed.append(
                        f"{_name(part, key)}: {_show(old.get(key))} -> "
                        f"{_show(new.get(key))}"
                    )
        elif old != new:
            changed.append(f"{part}: {_show(old)} -> {_show(new)}")
    return changed


def _name(part: str, key: str) -> str:
    return key if part == "analysis" else f"{part}.{key}"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def preregister(
    study: Study, *, amend: bool = False, reason: str | None = None, after_data=False
) -> Declaration:
    """Write the declaration (or, with `amend`, an amendment with its reason) and
    return it. Refused: a second declaration, an amendment without a reason or
    without a change, and a first declaration once solutions exist unless
    `after_data` (then recorded as made after the data)."""
    earlier = declarations(study)
    now = declared_analysis(study)
    has_data = _has_solutions(study)
    changes: list[str] = []
    if amend:
        if not earlier:
            raise ConfigError(
                "--amend: nothing is declared yet; declare first with "
                "`itemeval preregister CONFIG`"
            )
        if not (reason or "").strip():
            raise ConfigError('--amend needs --reason "why the plan changes"')
        changes = differences(_plan(earlier[-1]), now)
        if not changes:
            raise ConfigError(
                f"--amend: the config's analysis is what {earlier[-1].path.name} "
                "declares; edit `analysis:` first, then amend"
            )
    elif earlier:
        raise ConfigError(
            f"{earlier[0].path}: the analysis is declared already, and a declaration "
            'is never rewritten: amend it with `--amend --reason "..."`'
        )
    elif has_data and not after_data:
        raise ConfigError(
            "preregister: solutions exist already, so this declaration would come "
            "after the data; declare before the first `generate`, or add "
            "--after-data to record it as made after the data"
        )
    header = {
        "kind": "amendment" if amend else "declaration",
        "after_data": has_data,
        "reason": reason.strip() if reason else None,
    }
    return _write(study, header, now, changes, earlier)


def _plan(declaration: Declaration) -> dict[str, Any]:
    return {k: declaration.body[k] for k in ("analysis", "items", "conditions")}


def _write(study, header, plan, changes, earlier) -> Declaration:
    kind = header["kind"]
    stamp = datetime.now(timezone.utc)
    body = {
        "kind": kind,
        "study": study.config.study,
        "created_at": stamp.isoformat(timespec="microseconds"),
        "itemeval": __version__,
        "after_data": header["after_data"],
        "reason": header["reason"],
        "previous": (
            {"file": earlier[-1].path.name, "sha256": earlier[-1].body["sha256"]}
            if earlier
            else None
        ),
        "changes": changes,
        **plan,
    }
    body["sha256"] = _digest(body)
    where = folder(study)
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{stamp.strftime('%Y%m%dT%H%M%S%fZ')}-{kind}.json"
    text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    # "x": written once; a file of that name is never replaced
    with open(path, "x", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    return Declaration(path, body)


def _has_solutions(study: Study) -> bool:
    from ..store import read_store

    return read_store(study.paths, "solutions", ["condition_id"]).num_rows > 0
