"""The study's last race, read back from its manifest for `results` (`race` in
`results --json`, a few lines under the console's tables)."""

from __future__ import annotations

import json
from typing import Any

from ..study.load import Study


def latest_race(study: Study) -> dict[str, Any] | None:
    """The race of the last finished `generate --race` run, as it recorded it."""
    found = None
    for path in sorted(study.paths.manifests.glob("*-race-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("stage") == "race" and isinstance(data.get("race"), dict):
            found = data["race"]
    return found


def with_race(study: Study, data: dict[str, Any]) -> dict[str, Any]:
    """`results --json` with `race` when the study has run one."""
    race = latest_race(study)
    return data if race is None else {**data, "race": race}
