"""Where every artifact of a study lives on disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StudyPaths:
    """All paths of one study directory, `<output_dir>/<study>/` (README "The study directory")."""

    root: Path

    @property
    def items(self) -> Path:
        return self.root / "items.parquet"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions.parquet"

    @property
    def grades(self) -> Path:
        return self.root / "grades.parquet"

    @property
    def manifests(self) -> Path:
        return self.root / "manifests"

    @property
    def dataset_locks(self) -> Path:
        return self.root / "dataset_locks.json"

    @property
    def logs_generate(self) -> Path:
        return self.root / "logs" / "generate"

    @property
    def logs_grade(self) -> Path:
        return self.root / "logs" / "grade"

    @property
    def export(self) -> Path:
        return self.root / "export"

    @property
    def journal(self) -> Path:
        return self.root / "journal"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def store(self, name: str) -> Path:
        return {"items": self.items, "solutions": self.solutions, "grades": self.grades}[name]
