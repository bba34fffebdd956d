"""How `itemeval show` reads in a terminal: a section per condition, replications
side by side, texts wrapped whole."""

from __future__ import annotations

from itertools import groupby

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ..plan.pricing import format_usd
from ..results.show import (
    ConditionFailures,
    ConditionView,
    FailuresView,
    GradeView,
    ItemView,
    ShowView,
    SolutionView,
)

COLUMN_WIDTH = 30
"""The narrowest a replication's column gets: more replications than fit side by side
go in a next table."""


def render_show(view: ShowView, console: Console) -> None:
    if isinstance(view, ItemView):
        render_item(view, console)
    else:
        render_failures(view, console)


# ---- one item
# --------------------------------------------------------------------------------------


def render_item(view: ItemView, console: Console) -> None:
    """The item, then per generate condition its rendered prompt and its replications
    side by side with their grades."""
    console.print(
        Rule(
            Text(f"item {view.item['id']} — study {view.study}", style="bold"),
            align="left",
        )
    )
    console.print(_item_grid(view.item))
    if not view.conditions:
        console.print(Text("no generate condition chosen"))
    for condition in view.conditions:
        _render_condition(condition, console)
    if view.pairwise:
        _render_pairwise(view.pairwise, console)


def _render_pairwise(verdicts: list[dict], console: Console) -> None:
    """One line per pairwise verdict (A vs B, epoch, who was shown first, who won), then
    the judge's reasoning."""
    console.print(Rule(Text("pairwise verdicts", style="bold"), align="left"))
    for row in verdicts:
        outcome = (
            f"error: {row['error']}"
            if row["error"]
            else f"parse failure: {row['parse_error']}"
            if row["parse_error"]
            else f"winner {row['winner_slug']}"
        )
        stale = " (stale: an answer changed since)" if row["stale"] else ""
        console.print(
            Text(
                f"{row['grader']}: {row['slug_a']} vs {row['slug_b']} #{row['epoch']}, "
                f"{row['shown_first']} shown first: {outcome}{stale}"
            )
        )
        if row["reasoning"]:
            console.print(Text(f"  {row['reasoning']}", style="dim"))


def _item_grid(item: dict) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("input", Text(item["input"]))
    if len(item["targets"]) > 1:
        grid.add_row(
            "targets", Text("\n".join(f"- {target}" for target in item["targets"]))
        )
    else:
        grid.add_row("target", Text(item["target"]))
    if item["choices"]:
        grid.add_row(
            "choices",
            Text(
                "\n".join(
                    f"{_letter(i)}. {choice}"
                    for i, choice in enumerate(item["choices"])
                )
            ),
        )
    if item["grading_scheme"]:
        grid.add_row("grading", Text(item["grading_scheme"]))
    for slug, names in item.get("flags", {}).items():
        grid.add_row("flags", Text(f"{', '.join(names)} ({slug})", style="yellow"))
    for name, value in item["metadata"].items():
        grid.add_row(name, Text(str(value)))
    grid.add_row(
        "dataset",
        Text(
            f"{item['dataset_id']} row {item['row'] + 1} ({item['dataset_revision']})"
        ),
    )
    return grid


def _letter(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def _render_condition(condition: ConditionView, console: Console) -> None:
    console.print()
    console.print(Rule(Text(condition.slug, style="bold"), align="left"))
    params = ", ".join(f"{name} {value}" for name, value in condition.params.items())
    console.print(
        Text(
            f"{condition.condition_id} · {condition.model} · prompt "
            f"{condition.prompt_ref} · config "
            f"{condition.model_config}"
            + (f" ({params})" if params else "")
            + (f" · solver {condition.solver}" if condition.solver != "plain" else "")
        ),
        overflow="fold",
    )
    console.print(Text("prompt", style="bold"))
    console.print(
        Padding(Text(condition.prompt.rstrip("\n")), (0, 0, 0, 2), expand=False)
    )
    per_table = max(1, console.width // COLUMN_WIDTH)
    for start in range(0, len(condition.solutions), per_table):
        console.print(_solutions_table(condition.solutions[start : start + per_table]))
    for solution in condition.solutions:
        _render_transcript(solution, console)
    if not condition.solutions:
        console.print(Text("no solution stored yet"))
    if condition.missing:
        console.print(
            Text(
                "not generated yet: replication "
                f"{', '.join(map(str, condition.missing))}"
            )
        )


def _solutions_table(solutions: list[SolutionView]) -> Table:
    """One column per replication: the solution, its call, then one row per grade
    condition."""
    table = Table(
        box=box.SIMPLE_HEAD,
        expand=True,
        padding=(0, 1),
        pad_edge=False,
        show_edge=False,
    )
    for solution in solutions:
        table.add_column(
            f"replication {solution.epoch}", ratio=1, overflow="fold", vertical="top"
        )
    table.add_row(*(_solution_text(solution) for solution in solutions))
    table.add_row(
        *(Text(_call_line(solution), style="dim") for solution in solutions),
        end_section=True,
    )
    slugs = list(
        dict.fromkeys(grade.slug for solution in solutions for grade in solution.grades)
    )
    for slug in slugs:
        by_slug = [
            next((g for g in solution.grades if g.slug == slug), None)
            for solution in solutions
        ]
        table.add_row(
            *(_grade_text(grade, slug) for grade in by_slug), end_section=True
        )
    return table


def _render_transcript(solution: SolutionView, console: Console) -> None:
    """An agent's trajectory turn by turn, its tool calls and results included."""
    if not solution.transcript:
        return
    limit = f", stopped by its {solution.limit_hit} limit" if solution.limit_hit else ""
    console.print(
        Text(
            f"transcript, replication {solution.epoch}: {solution.turns} turns, "
            f"{solution.tool_calls} tool calls{limit}",
            style="bold",
        )
    )
    console.print(Text(solution.transcript))
    if solution.log_file:
        console.print(Text(f"whole transcript: inspect view {solution.log_file}"))


def _solution_text(solution: SolutionView) -> Text:
    if solution.error is not None:
        return Text(f"error: {solution.error}", style="red")
    if not (solution.solution or "").strip():
        return Text("(blank)", style="dim")
    text = Text(solution.solution.rstrip("\n"))
    if solution.input_changed:
        note = "(answered an earlier version of this item: its input changed since)\n"
        text = Text.assemble((note, "yellow"), text)
    return text


def _call_line(solution: SolutionView) -> str:
    """The call behind a solution: stop reason, tokens and spend, leaving out what
    the provider did not report."""
    parts = [solution.stop_reason] if solution.stop_reason else []
    if solution.turns is not None:
        parts.append(f"{solution.turns} turns, {solution.tool_calls} tool calls")
    if solution.input_tokens is not None or solution.output_tokens is not None:
        parts.append(
            f"{_count(solution.input_tokens)} in / "
            f"{_count(solution.output_tokens)} out tokens"
        )
    if solution.reasoning_tokens:
        parts.append(f"{solution.reasoning_tokens} reasoning tokens")
    parts.append(
        format_usd(solution.usd) if solution.usd is not None else "spend unknown"
    )
    return " · ".join(parts) + (" (cached)" if solution.cache_hit else "")


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


def _grade_text(grade: GradeView | None, slug: str) -> Text:
    """The grade condition and score on the first line, then why: the judge's
    reasoning or the scorer's explanation."""
    text = Text().append(f"{slug}: ", style="bold")
    if grade is None:
        return text.append("not graded", style="dim")
    who = (
        grade.grader
        if grade.kind != "judge"
        else f"{grade.grader}, {grade.grader_model}"
    )
    if grade.kind == "cascade":
        who = f"cascade, decided by {grade.decided_by or 'no stage'}"
    if grade.kind == "human":
        who = "human label"  # a rater has no grader name or model
    if grade.error is not None:
        return text.append("error", style="red").append(f" ({who})\n{grade.error}")
    if grade.parse_ok is False:
        text.append("parse failure", style="red").append(
            f" ({who}): {grade.parse_error}"
        )
        if grade.judge_completion:
            text.append("\nthe judge replied:", style="dim").append(
                f"\n{grade.judge_completion}"
            )
        return text
    text.append(_score(grade.score)).append(f" ({who})")
    if grade.stale:
        text.append("\nof an older text of this solution", style="yellow")
    why = grade.reasoning or grade.explanation
    return text.append(f"\n{why}" if why else "")


def _score(score: float | None) -> str:
    return "-" if score is None else f"{score:g}"


# ---- failed cells
# --------------------------------------------------------------------------------------


def render_failures(view: FailuresView, console: Console) -> None:
    """A section per condition with failed cells: one row per cell, grade cells
    grouped by the solutions' condition."""
    failed = [c for c in view.conditions if c.failures]
    for condition in failed:
        _render_condition_failures(condition, console)
    clean = [c.slug for c in view.conditions if not c.failures]
    if clean:
        console.print(Text(f"no failed cells: {', '.join(clean)}"))
    total = sum(len(c.failures) for c in failed)
    where = f" of item {view.item_id}" if view.item_id else ""
    console.print(
        Text(
            f"{total} failed cells{where} in {len(failed)} of "
            f"{len(view.conditions)} conditions"
        )
    )


def _render_condition_failures(condition: ConditionFailures, console: Console) -> None:
    title = (
        f"{condition.slug} ({condition.stage}): {len(condition.failures)} failed cells"
    )
    console.print(Rule(Text(title, style="bold"), align="left"))
    table = Table(
        box=box.SIMPLE_HEAD,
        expand=True,
        padding=(0, 1),
        pad_edge=False,
        show_edge=False,
    )
    table.add_column("item", overflow="fold")
    table.add_column("rep", justify="right", no_wrap=True)
    table.add_column("message", ratio=1, overflow="fold")
    for gen_slug, failures in groupby(
        condition.failures, key=lambda failure: failure.gen_condition_slug
    ):
        if gen_slug is not None:  # a grade cell is one solution of a generate condition
            table.add_row("", "", Text(f"solutions of {gen_slug}", style="bold"))
        for failure in failures:
            kind = "parse failure: " if failure.kind == "parse_failure" else ""
            table.add_row(
                Text(failure.item_id), str(failure.epoch), Text(kind + failure.message)
            )
    console.print(table)
