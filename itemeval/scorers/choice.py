"""The `multiple_choice` scorer: the option letter read from the answer is the target letter."""

from __future__ import annotations

import re

from .base import ScoreContext, ScoreResult, answer_region, failed

_LONE_LETTER = re.compile(r"(?:(?:option|choice|letter)\s*)?[(\[]?([A-Za-z])[)\]]?\.?", re.IGNORECASE)
_TARGET_LETTER = re.compile(r"[(\[]?([A-Za-z])[)\]]?\.?")
_LEADING_LABEL = re.compile(r"\s*(?:[(\[]([A-Za-z])[)\]]|([A-Za-z])[).:])(?=\s|$)")
_OPTION_TOKEN = re.compile(
    r"[(\[](?P<bracketed>[A-Za-z])[)\]]"  # "(c)", "[B]"
    r"|(?<![\w'’.])(?P<capital>[A-Z])(?![\w'’]|\.\w)"  # a standalone capital, not "I'm" or "U.S."
)


def _is_prose_capital(text: str, match: re.Match[str]) -> bool:
    """The pronoun "I", or an article "A" opening a sentence ("A quick check shows...")."""
    letter = match["capital"]
    if letter == "I":
        return True
    if letter != "A":
        return False
    before = text[: match.start()]
    starts_sentence = not before.strip() or (before[-1].isspace() and before.rstrip()[-1] in ".!?:")
    return starts_sentence and re.match(r"\s+[a-z]", text[match.end() :]) is not None


def read_choice(text: str) -> str | None:
    """The chosen option letter (upper case) in an answer, or None.

    Rules, first that applies wins (markdown `*` and backticks are ignored throughout):
    1. the whole answer is one letter, bracketed or not, any case: "B", "(b)", "**B**", "b.", "Option C";
    2. the answer opens with an option label, any case: "B) Paris", "(b) Paris", "B. Paris", "c: 12";
    3. the last option token in the answer: a bracketed letter "(c)" of any case, or a standalone
       capital A–Z — except the pronoun "I" and an article "A" that opens a sentence and is followed
       by a lower-case word. So "I think it's B" reads B. Bare lower-case letters in prose are never
       read ("the answer is a bit unclear" has no letter), and "B is right, not A" reads A.
    """
    plain = re.sub(r"[*`]", "", text).strip()
    if lone := _LONE_LETTER.fullmatch(plain):
        return lone[1].upper()
    if label := _LEADING_LABEL.match(plain):
        return (label[1] or label[2]).upper()
    tokens = [m for m in _OPTION_TOKEN.finditer(plain) if m["bracketed"] or not _is_prose_capital(plain, m)]
    if not tokens:
        return None
    return (tokens[-1]["bracketed"] or tokens[-1]["capital"]).upper()


def multiple_choice(solution: str, context: ScoreContext) -> ScoreResult:
    """1.0 when the chosen letter (see `read_choice`) is the target letter.

    The target must be a single letter, optionally bracketed, any case ("B", "(b)", "b.").
    """
    target = context.target
    lone = _TARGET_LETTER.fullmatch(re.sub(r"[*`]", "", target).strip())
    if lone is None:
        return failed("target_not_letter", None, f"the target {target!r} is not a single option letter")
    choice = read_choice(answer_region(solution))
    if choice is None:
        return failed("no_letter_found", None, "no option letter found in the answer")
    return ScoreResult(score=1.0 if choice == lone[1].upper() else 0.0, answer=choice)
