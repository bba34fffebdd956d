"""Human labels: grade rows of a grade condition `human-<rater>` (kind `human`), written
durably.

A label is a grade like any other: keyed (grade condition, generate condition, item,
epoch), so a re-label replaces; it records the labelled text's `solution_hash`, so a
label of an answer that has since changed is stale like any grade."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..errors import ConfigError
from ..hashing import canonical_json, condition_id
from ..records import GradeCondition, Template
from ..study.load import Study

HUMAN = "human"
RATER = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
_RANGE = re.compile(
    r"(?:score|scale|rate|from)\D{0,20}?(\d{1,2})\s*(?:-|–|to)\s*(\d{1,2})", re.I
)
_CRITERIA = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@dataclass(frozen=True)
class Scale:
    """The scores a rater may give: integers low..high, one per criterion when the
    rubric names them."""

    low: int = 0
    high: int = 1
    criteria: tuple[str, ...] = ()

    @property
    def values(self) -> list[int]:
        return list(range(self.low, self.high + 1))


def check_rater(rater: str) -> str:
    if not RATER.match(rater):
        raise ConfigError(
            f"--rater: {rater!r} is not a rater name; use lower-case letters, digits, "
            "- and _ (e.g. --rater alice)"
        )
    return rater


def human_condition(rater: str, rubric: Template | None) -> GradeCondition:
    """The grade condition of one rater's labels against one rubric text."""
    payload = {
        "kind": HUMAN,
        "rater": check_rater(rater),
        "rubric": rubric.ref if rubric else None,
        "rubric_hash": rubric.hash if rubric else None,
    }
    return GradeCondition(
        id=condition_id(f"human-{rater}", payload),
        slug=f"human-{rater}",
        kind=HUMAN,  # type: ignore[arg-type]
        payload=payload,
        grader_name=rater,
        rubric=rubric,
    )


def human_conditions(study: Study) -> list[GradeCondition]:
    """The human grade conditions that have labels in the study's grades store."""
    from ..store import read_store

    columns = ["grade_condition_id", "grader_name", "rubric_name", "rubric_hash"]
    rows = read_store(
        study.paths, "grades", columns, where={"grade_kind": [HUMAN]}
    ).to_pylist()
    found: dict[str, GradeCondition] = {}
    for row in rows:
        if row["grade_condition_id"] in found:
            continue
        rubric = _rubric(study, row["rubric_name"], row["rubric_hash"])
        condition = human_condition(row["grader_name"], rubric)
        found[condition.id] = condition
    return sorted(found.values(), key=lambda c: c.slug)


def _rubric(study: Study, ref: str | None, digest: str | None) -> Template | None:
    """The study's rubric of that reference and text; a stand-in when it was edited
    since."""
    if ref is None:
        return None
    known = study.rubrics.get(ref)
    if known is not None and known.hash == digest:
        return known
    return Template(ref, "rubric", "", digest or "", "local", "")


def pick_rubric(study: Study, ref: str | None) -> Template:
    """The rubric a rater labels against: `--rubric`, else the study's first."""
    if ref is None:
        return next(iter(study.rubrics.values()))
    if ref not in study.rubrics:
        known = ", ".join(study.rubrics)
        raise ConfigError(f"--rubric: {ref!r} is not in facets.rubric ({known})")
    return study.rubrics[ref]


def rubric_scale(rubric: Template, override: str | None = None) -> Scale:
    """The score control a rubric asks for: `--scale LOW-HIGH`, else the range its text
    names ("score 1 to 10"), else 0/1; named criteria from its front matter
    (`criteria: [a, b]`)."""
    criteria = _criteria(rubric.text)
    if override is not None:
        match = re.fullmatch(r"(\d{1,2})-(\d{1,2})", override)
        if not match or int(match[1]) >= int(match[2]):
            raise ConfigError(f"--scale: {override!r} is not LOW-HIGH (e.g. 1-10)")
        return Scale(int(match[1]), int(match[2]), criteria)
    for low, high in _RANGE.findall(rubric.text):
        if int(low) in (0, 1) and int(low) < int(high) <= 10:
            return Scale(int(low), int(high), criteria)
    return Scale(0, 1, criteria)


def _criteria(text: str) -> tuple[str, ...]:
    match = _CRITERIA.match(text.replace("\r\n", "\n"))
    if not match:
        return ()
    import yaml

    try:
        block = yaml.safe_load(match[1]) or {}
    except yaml.YAMLError:
        return ()
    names = block.get("criteria") if isinstance(block, dict) else None
    return tuple(str(n) for n in names) if isinstance(names, list) else ()


def label_row(
    condition: GradeCondition,
    solution: dict[str, Any],
    score: float,
    *,
    criteria: dict[str, float] | None = None,
    draws: list[dict[str, Any]] | None = None,
    run_id: str,
) -> dict[str, Any]:
    """The grade row of one label of one stored solution (`condition_id, item_id, epoch,
    solution_hash`); `draws`: the active queue's draws of it (results/active_queue.py),
    each with the probability it was drawn with."""
    rubric = condition.rubric
    meta: dict[str, Any] = {"criteria": criteria} if criteria else {}
    if draws:
        meta.update(design="active", draws=draws)
    return {
        "grade_condition_id": condition.id,
        "grade_condition_slug": condition.slug,
        "gen_condition_id": solution["condition_id"],
        "item_id": solution["item_id"],
        "epoch": int(solution["epoch"]),
        "grade_kind": HUMAN,
        "grader_name": condition.grader_name,
        "rubric_name": rubric.ref if rubric else None,
        "rubric_hash": rubric.hash if rubric else None,
        "solution_hash": solution["solution_hash"],
        "score": float(score),
        "score_raw": _number(score),
        "parse_ok": True,
        "score_metadata": canonical_json(meta) if meta else None,
        "usd": 0.0,
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc),
    }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def journaled_labels(study: Study, grade_condition_id: str) -> list[dict[str, Any]]:
    """Labels of a condition still waiting in journal files (written while another
    command held the lock), oldest first: a re-label comes after the label it
    replaces, as the merge will apply them (file names end in a random suffix, so
    they say nothing of the order)."""
    folder = study.paths.journal
    rows = []
    files = list(folder.glob("*.jsonl")) if folder.is_dir() else []
    for path in sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name)):
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a torn last line
                row = record.get("row") if isinstance(record, dict) else None
                if (
                    record.get("store") == "grades"
                    and isinstance(row, dict)
                    and row.get("grade_condition_id") == grade_condition_id
                ):
                    rows.append(row)
    return sorted(rows, key=lambda row: str(row.get("created_at") or ""))
