"""The `multiple_choice` scorer: the option letter read from the answer is the target
letter."""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass

from .answer import Answer, find_answer, without_thinking
from .base import ScoreContext, ScoreResult, failed
from .choice_marks import (
    TwoOptions,
    also_right,
    explicit_letter,
    option_named,
    without_options,
)
from .hedges import after_retraction, joined_by_hedge, sounds_unsure
from .text_forms import normalise_text

_TARGET_LETTER = re.compile(r"[(\[]?([A-Za-z])[)\]]?\.?")
_LONE_LETTER = re.compile(
    r"(?:(?:option|choice|letter)\s*)?[(\[]?([A-Za-z])[)\]]?[.:]?", re.IGNORECASE
)
_LEADING_LOWER = re.compile(r"\s*(?:[(\[]([a-z])[)\]]|([a-z])[).:])(?=\s|$)")
_OPTION_TOKEN = re.compile(
    r"[(\[](?P<bracketed>[A-Za-z])[)\]]"  # "(c)", "[B]"
    # a standalone capital, not "I'm", "U.S." or "O(n)"
    r"|(?<![\w'’.])(?P<capital>[A-Z])(?![\w'’(]|\.\w)"
)
_MARKUP = re.compile(r"[*`$]|\\text\{|\\textbf\{|\\mathrm\{|[{}]")
_NEGATION = re.compile(
    r"(?:\bnot|\bnor|\bneither|\brather\s+than|\binstead\s+of|\bisn[’']t|\bexcept)"
    r"\s*(?:option\s+)?[(\[]?$"
    # "Not the nucleus (A)": an option's text negated, then its letter
    r"|\bnot\s+(?:the\s+|an?\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s*[(\[]?$",
    re.IGNORECASE,
)
_NOT_A_NOUN = re.compile(
    r"\s+(?:is|was|seems|looks|would|should|must|could|can|matches|fits|works|holds|"
    r"gives|correct|right|wrong|and|or|nor|but|because|since)\b"
)
_UNIT_BEFORE = re.compile(r"\d[ \t]*$")
# "A is incorrect", "D: wrong", "(B) can be ruled out": a letter judged, not chosen
_JUDGED_WRONG = re.compile(
    r"(?:\)\s*|\)?\s*[:\-–—]\s*|\)?\s+(?:is|was|seems|looks)\s+(?:also\s+|clearly\s+)?)"
    r"(?:incorrect|wrong|false|not\s+(?:correct|right|true|the\s+answer)"
    r"|eliminated|ruled\s+out|excluded)\b"
    r"|\)?\s+(?:can|could|must|should)\s+be\s+"
    r"(?:ruled\s+out|eliminated|excluded|discarded|rejected)\b",
    re.IGNORECASE,
)
_CROSSED = re.compile(r"[❌✗✘]\ufe0f?\s*\**\(?$")
# "A) −cos(x) ❌": an option's line that ends crossed out
_CROSSED_AFTER = re.compile(r"^[).:]\s[^\n]{0,80}[❌✗✘]\ufe0f?\s*$")


@dataclass(frozen=True)
class _Letter:
    letter: str
    start: int
    end: int
    labelled: bool
    """Written as an option label ("(B)", "B)"), which prose capitals never are."""


def _is_prose_capital(text: str, match: re.Match[str], *, marked: bool) -> bool:
    """The pronoun "I"; an article "A" opening a phrase ("A quick check"); a unit after
    a number ("10 V").

    A marked answer that opens with "A" names option A ("I would pick A over C").
    """
    letter, before = match["capital"], text[: match.start()]
    if letter == "I" or _UNIT_BEFORE.search(before):
        return True
    if (
        letter != "A"
        or (marked and not before.strip())
        or not re.match(r"\s+[a-z]", text[match.end() :])
    ):
        return False
    # "A is correct", "A and C" name options
    return _NOT_A_NOUN.match(text[match.end() :]) is None


def _letters(text: str, options: str | None, *, marked: bool) -> list[_Letter]:
    """Every option letter named in `text`, in order: not negated ("not D"), among
    the item's options."""
    found = []
    for match in _OPTION_TOKEN.finditer(text):
        if not match["bracketed"] and _is_prose_capital(text, match, marked=marked):
            continue
        letter = (match["bracketed"] or match["capital"]).upper()
        if options is not None and letter not in options:
            continue
        if _NEGATION.search(text[max(0, match.start() - 20) : match.start()]):
            continue
        line_end = text.find("\n", match.end())
        rest_of_line = text[match.end() : None if line_end < 0 else line_end]
        if (
            _JUDGED_WRONG.match(text, match.end())
            or _CROSSED.search(text[max(0, match.start() - 4) : match.start()])
            or _CROSSED_AFTER.search(rest_of_line)
        ):
            continue
        labelled = (
            bool(match["bracketed"]) or text[match.end() : match.end() + 1] == ")"
        )
        found.append(_Letter(letter, match.start(), match.end(), labelled))
    return found


class Ambiguous(Exception):
    """The answer names two different options as the answer."""


def read_choice(
    text: str, *, marked: bool = True, options: str | None = None
) -> str | None:
    """The chosen option letter (upper case) in an answer, or None; raises Ambiguous on
    a hedge.

    Rules (markdown, `$` and `\\text{}` ignored; only `options` count when given; "not
    D", "nor B" never count):
    1. the whole answer is one letter, bracketed or not, any case: "B", "(b)", "**B**",
       "b.", "Option C";
    2. it opens with a lower-case option label: "b) Paris", "(c) 12";
    3. a marked answer (after a label, or "the answer is …") names its option first:
       "B because A is too small" reads B; two different option labels ("B) … and
       D) …") are ambiguous;
    4. in a whole reply the last option named wins: a bracketed letter or a standalone
       capital, except the pronoun "I", an article "A" opening a phrase, and a unit
       after a number ("10 V");
    5. the chosen letter joined to another by "or", "and", "/", or a comma ("B or D",
       "A, C") is ambiguous.
    """
    plain = _MARKUP.sub("", text).strip()
    if (alone := _letter_alone(plain, options)) is not None:
        return alone
    letters = _letters(plain, options, marked=marked)
    if not letters:
        return None
    if marked:
        return _first_named(plain, letters)
    return _last_named(plain, letters)


def _letter_alone(plain: str, options: str | None) -> str | None:
    """Rules 1 and 2: the answer is one letter, or opens with a lower-case label."""
    if (lone := _LONE_LETTER.fullmatch(plain)) and (
        options is None or lone[1].upper() in options
    ):
        return lone[1].upper()
    if (label := _LEADING_LOWER.match(plain)) and (
        options is None or (label[1] or label[2]).upper() in options
    ):
        return (label[1] or label[2]).upper()
    return None


def _first_named(plain: str, letters: list[_Letter]) -> str:
    """Rule 3: a marked answer's first option, unless hedged or two are labelled."""
    labels = {letter.letter for letter in letters if letter.labelled}
    if len(labels) > 1:
        raise Ambiguous(plain)
    chosen = letters[0]
    other = next((letter for letter in letters if letter.letter != chosen.letter), None)
    if other is not None and joined_by_hedge(plain[chosen.end : other.start]):
        raise Ambiguous(plain)
    return chosen.letter


def _last_named(plain: str, letters: list[_Letter]) -> str:
    """Rules 4 and 5: a whole reply's last option, unless hedged with another."""
    chosen = letters[-1]
    other = next(
        (letter for letter in reversed(letters) if letter.letter != chosen.letter), None
    )
    if other is not None and (
        joined_by_hedge(plain[other.end : chosen.start])
        or sounds_unsure(plain[other.end :])
    ):
        raise Ambiguous(plain)
    return chosen.letter


def _option_by_text(answer: str, choices: tuple[str, ...]) -> str | None:
    """The letter of the one option whose text the answer is ("Paris" for "B)
    Paris")."""
    said = normalise_text(answer)
    matching = [
        index
        for index, choice in enumerate(choices)
        if said and normalise_text(choice) == said
    ]
    return string.ascii_uppercase[matching[0]] if len(matching) == 1 else None


def _read(answer: Answer, reply: str, choices: tuple[str, ...]) -> str | None:
    """The letter an answer names: an option's whole text, a letter, else the one
    option whose text it mentions."""
    options = string.ascii_uppercase[: len(choices)] if choices else None
    # A marked answer that is one option's text is that option: "**Answer: Vitamin D**"
    # is C, not the letter D.
    if answer.marked and choices and (by_text := _option_by_text(answer.text, choices)):
        return by_text
    text = without_options(answer.text, choices) if choices else answer.text
    choice = read_choice(text, marked=answer.marked, options=options)
    if choice is None and answer.phrased:  # "The answer is not A… It's C."
        whole = without_options(reply, choices) if choices else reply
        choice = read_choice(whole, marked=False, options=options)
    if choice is None and choices:
        choice = _option_by_text(answer.text, choices)
        named = answer.text if answer.marked else reply.rpartition("\n\n")[2]
        choice = choice or option_named(named, choices)
    return choice


# Greek capitals as option labels are the Latin letters of the same place: "Β) 3"
# is B, "Γ" is C
_GREEK_LETTERS = str.maketrans(dict(zip("ΑΒΓΔΕ", "ABCDE")))
_WEAK = ("line", "keyed", "bold", "whole")
"""Markers weaker than a label, a tag, a box or an "answer is" sentence."""


def _retracted(tail: str, choices: tuple[str, ...]) -> str | None:
    """The option a reply moves to after a retraction ("Wait, actually … it's C")."""
    after = after_retraction(tail)
    if after is None:
        return None
    options = string.ascii_uppercase[: len(choices)] if choices else None
    again = find_answer(after)
    if again.how not in _WEAK:
        return read_choice(again.text, marked=True, options=options)
    if len(after.strip()) <= 40:
        return read_choice(after, marked=False, options=options)
    return None


def choose(solution: str, choices: tuple[str, ...] = ()) -> str | None:
    """The option letter a reply chooses, or None; raises Ambiguous on a hedge.

    An explicit choice ("**B**" alone on a line, "✅ B) …", "which is option C")
    beats a weak marker before it and the whole reply's last letter; a retraction
    after the answer ("Wait, actually … it's C") moves it; another option called
    right too ("C is also defensible") is a hedge.
    """
    reply = unicodedata.normalize("NFKC", without_thinking(solution))
    reply = reply.translate(_GREEK_LETTERS)
    answer = find_answer(reply)
    at = reply.rfind(answer.text) if answer.how != "whole" else -1
    explicit = explicit_letter(reply)
    if explicit and choices and explicit[1] >= chr(65 + len(choices)):
        explicit = None
    if explicit and _beats(answer, at, explicit[0]):
        start, choice = explicit
    else:
        choice = _read(answer, reply, choices)
        start = len(reply) if at < 0 else at
    if choice is None:
        return None
    tail = reply[start:]
    if also_right(tail, choice):
        raise Ambiguous(tail.strip())
    return _retracted(tail, choices) or choice


def _beats(answer: Answer, at: int, explicit_end: int) -> bool:
    """Whether an explicit choice ending at `explicit_end` beats the answer found at
    `at`: a wrapped last line or bold phrase only when it comes first."""
    if answer.how in ("line", "bold"):
        return at < explicit_end
    return answer.how in ("keyed", "whole")


def multiple_choice(solution: str, context: ScoreContext) -> ScoreResult:
    """1.0 when the chosen letter (see `read_choice` and `choose`) is the target
    letter; the option's own text counts too.

    The target must be a single letter, optionally bracketed, any case ("B", "(b)",
    "b.").
    """
    target = context.target
    lone = _TARGET_LETTER.fullmatch(re.sub(r"[*`]", "", target).strip())
    if lone is None:
        return failed(
            "target_not_letter",
            None,
            f"the target {target!r} is not a single option letter",
        )
    try:
        choice = choose(solution, context.choices)
    except (Ambiguous, TwoOptions) as hedge:
        return failed(
            "ambiguous_answer", str(hedge), "the answer names more than one option"
        )
    if choice is None:
        return failed("no_letter_found", None, "no option letter found in the answer")
    return ScoreResult(score=1.0 if choice == lone[1].upper() else 0.0, answer=choice)
