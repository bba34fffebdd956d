"""Where the final answer is in a reply, and the wrappers, asides and hedges around it.

Shared by the careful scorers. The answer is, first that applies: the text after the
last answer label (`ANSWER:`, `**Final answer:**`, `Answer：`, GSM8K's `####`, a line
opening `Answer -`), with display math on the lines below a bare label; the last
`<answer>…</answer>`; the last `\\boxed{}`; the sentence after the last "the answer
is" (or "I'd go with", "I'll choose", …), or before "… is the answer"; else the
whole reply. Inside a labelled answer an "answer is" sentence narrows it further
(Minerva's "Final Answer: The final answer is 17. I hope it is correct.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lazy import lazy_pattern
from .asides import CHECK, without_checks
from .json_answer import json_answer

ANSWER_RULES = "3"
"""The version of where the answer is read: part of the rule version of every scorer
that reads the answer region (the text-overlap scorers' `read: answer`)."""

_ANSWER_WORD = (
    r"(?:answer|antwort|r[ée]ponse|respuesta|risposta|resposta|ответ|απάντηση)"
)
_LABELS = (
    # ANSWER:, **Answer:**, Final answer:, Answer：, Antwort:, Réponse :
    lazy_pattern(_ANSWER_WORD + r"[*_]*\s*[:：]", re.IGNORECASE),
    # Answer - Paris
    lazy_pattern(
        r"^[ \t]*[*_]*(?:final\s+)?answer[*_]*[ \t]+[-–—][ \t]",
        re.IGNORECASE | re.MULTILINE,
    ),
    # 答案：42, 答え：12, 最终答案：5
    lazy_pattern(r"(?:最终答案|最終答案|答案|解答|答え|正解|答)\s*[:：]"),
    # a line that is only the label, a heading or bold: "## Answer", "**Final Answer**"
    lazy_pattern(
        r"^[ \t]*(?:#{1,6}[ \t]*|>[ \t]*)?(?:\*\*|__)?[ \t]*(?:final[ \t]+)?"
        + _ANSWER_WORD
        + r"[ \t]*(?:\*\*|__)?[ \t]*$",
        re.IGNORECASE | re.MULTILINE,
    ),
)
# most replies name no label: skip the label patterns for them
_LABEL_HINT = lazy_pattern(
    r"answer|antwort|ponse|respuesta|risposta|resposta|答|正解|ответ|απάντηση",
    re.IGNORECASE,
)
# GSM8K's "#### 72"; "#### Paris" only as the reply's last line, since "#### Step 2" is
# a markdown heading
_GSM8K = lazy_pattern(
    r"^[ \t]*#{4}[ \t]*(?=[-−$\d])|^[ \t]*#{4}[ \t]+(?=[^\n#]+\s*\Z)", re.MULTILINE
)
# a reasoning model's draft
_THINKING = lazy_pattern(
    r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE
)
# The reply's last line is one wrapped answer: "**True**", "*Saturn*", "`NaCl`",
# "$\text{Jupiter}$", "\(\text{…}\)"
_WRAPPED_LINE = lazy_pattern(
    r"(?:\*\*|\*|_|`|\$|\\\(|\\\[)[^\n]{1,60}?(?:\*\*|\*|_|`|\$|\\\)|\\\])[ .!]*"
)
# "Past tense: **ran**", "Formula: `NaCl`"
_KEYED_LINE = lazy_pattern(r"[*_]*[A-Z][\w ()/-]{0,40}?[*_]*:[*_]*\s+(\S.{0,60})")
# "The capital is **Nairobi**."
_INLINE_BOLD = lazy_pattern(r"(?<!^)(?<!\n)\*\*([^*\n]{1,60})\*\*")
# what may join two bold spans of one phrase (or of a hedge: "**Paris** or **Lyon**")
_JOINER = lazy_pattern(r"[ \t]*(?:and|or|&|,|/|of|de|da|von|van)?[ \t]*", re.IGNORECASE)
_TAG = lazy_pattern(r"<answer>(.*?)(?:</answer>|\Z)", re.IGNORECASE | re.DOTALL)
_BOXED = lazy_pattern(r"\\(?:boxed|fbox)\s*\{")
_PHRASE = lazy_pattern(
    r"(?:(?:\b(?:final|correct|right|best)\s+)?\b(?:answer|choice)"
    r"|\b(?:correct|right|best|final)\s+(?:option|one))"
    r"\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be)"
    r"(?:\s*[:：])?"
    r"|\bI(?:'ll|’ll|\s+will|'d|’d|\s+would)?"
    r"\s+(?:choose|pick|select|go\s+with|say)\b(?:\s*[:：])?"
    r"|\b(?:die\s+(?:richtige\s+|korrekte\s+)?antwort\s+(?:ist|lautet)"
    r"|la\s+(?:bonne\s+)?r[ée]ponse\s+est(?:\s+de)?"
    r"|la\s+respuesta\s+(?:correcta\s+)?es|la\s+risposta\s+(?:corretta\s+)?[èe]"
    r"|a\s+resposta\s+(?:correta\s+)?[ée])\b(?:\s*[:：])?"
    r"|(?:最终答案|最終答案|正确答案|答案)\s*(?:是|为|為|应为)|(?:答え|正解)\s*は",
    re.IGNORECASE,
)
_IS_THE_ANSWER = lazy_pattern(
    r"(?:^|(?<=[.!?:\n]))\s*(?P<answer>[^.!?\n]{1,80}?)"
    r"\s+is\s+(?:the|my)\s+(?:final\s+|correct\s+|right\s+)?answer\b",
    re.IGNORECASE,
)
_SENTENCE_END = lazy_pattern(r"(?<![.\s])[.!?](?=\s|$)|\n|[。！？]")
_SUPPOSING = lazy_pattern(
    r"\b(?:if|whether|suppose|assume|assuming|unless)\b[^.!?\n]*$", re.IGNORECASE
)
_DISPLAY_OPEN = {"\\[": "\\]", "$$": "$$"}


@dataclass(frozen=True)
class Answer:
    text: str
    marked: bool
    """True when the reply marked its answer (label, tag, box, phrase, bold last
    line); False for the whole reply."""
    phrased: bool = False
    """Found only by an "the answer is" sentence: a scorer that reads nothing there
    may read the whole reply."""
    how: str = "whole"
    """What marked it: "json", "label", "tag", "box", "phrase", "line" (a wrapped last
    line), "keyed" (`Key: value`), "bold", or "whole"."""
    after: str | None = None
    """For a label, the reply after the label's line: what it says once it has
    answered."""


def without_thinking(reply: str) -> str:
    """The reply without a reasoning model's `<think>…</think>` draft."""
    return _THINKING.sub("", reply)


def find_answer(reply: str) -> Answer:
    reply = without_thinking(reply)
    label_end = _last_label_end(reply)
    given = json_answer(reply)
    if given is not None and (label_end is None or given[0] > label_end):
        return Answer(given[1], True, how="json")
    if label_end is not None:
        text = _unbox(_narrow_to_phrase(_after_label(reply, label_end)))
        line_end = reply.find("\n", label_end)
        after = "" if line_end < 0 else reply[line_end:]
        return Answer(text, True, how="label", after=after)
    tags = list(_TAG.finditer(reply))
    if tags:
        return Answer(_unbox(tags[-1][1].strip()), True, how="tag")
    boxed = last_boxed(reply)
    if boxed is not None:
        return Answer(boxed.strip(), True, how="box")
    phrased = _phrase_sentence(reply)
    if phrased is not None:
        return Answer(phrased, True, phrased=True, how="phrase")
    return _emphasised(without_checks(reply))


def _emphasised(body: str) -> Answer:
    """A reply without label, tag, box or phrase: its last line when that is one
    wrapped answer or `Key: value`, else the last bold phrase of its last paragraph,
    else the whole reply."""
    last_line = body.rstrip().rpartition("\n")[2].strip()
    if (wrapped := _WRAPPED_LINE.fullmatch(last_line)) is not None:
        return Answer(wrapped[0].strip(" .!"), True, how="line")
    if (keyed := _KEYED_LINE.fullmatch(last_line)) is not None and not CHECK.match(
        last_line
    ):
        return Answer(keyed[1].strip(), True, phrased=True, how="keyed")
    paragraph = body.rstrip().rpartition("\n\n")[2]
    # "** **" between two bold spans is none ("**George** **Washington**")
    bold = [
        b
        for b in _INLINE_BOLD.finditer(paragraph)
        if not b[1].rstrip().endswith(":") and b[1].strip() == b[1]
    ]
    if len(bold) > 1 and _JOINER.fullmatch(
        paragraph[bold[-2].end() : bold[-1].start()]
    ):
        # one phrase bolded in two spans: "**Romeo** and **Juliet**"
        joined = paragraph[bold[-2].start() : bold[-1].end()].replace("**", "")
        return Answer(joined.strip(), True, phrased=True, how="bold")
    if bold:
        return Answer(bold[-1][1].strip(), True, phrased=True, how="bold")
    return Answer(body.strip(), False)


def answer_region(reply: str) -> str:
    """The text of the final answer (see the module's rules)."""
    return find_answer(reply).text


def _last_label_end(reply: str) -> int | None:
    ends = []
    if _LABEL_HINT.search(reply) is not None:
        ends += [
            match.end() for pattern in _LABELS for match in pattern.finditer(reply)
        ]
    if "####" in reply:
        ends += [match.end() for match in _GSM8K.finditer(reply)]
    return max(ends) if ends else None


def _after_label(reply: str, end: int) -> str:
    line_end = reply.find("\n", end)
    rest = reply[end:] if line_end < 0 else reply[end:line_end]
    # the label's own emphasis: "**Answer:** Paris", "**Answer: C**"; a bullet or a
    # quote around it: "- **Answer:** Mercury"
    rest = rest.strip("*_ \t")
    if rest:
        opened = _open_display(rest)
        return rest if opened is None else _display_block(reply[end:], opened)
    below = reply[end:] if line_end < 0 else reply[line_end + 1 :]
    lines = [line.strip() for line in below.splitlines() if line.strip()]
    if not lines:
        return ""
    opened = _open_display(lines[0])
    return lines[0] if opened is None else _display_block(below, opened)


def _open_display(line: str) -> str | None:
    """The closing delimiter when `line` opens display math it does not close."""
    for opening, closing in _DISPLAY_OPEN.items():
        if line.startswith(opening) and closing not in line[len(opening) :]:
            return closing
    return None


def _display_block(text: str, closing: str) -> str:
    start = text.find("$$") if closing == "$$" else text.find("\\[")
    stop = text.find(closing, start + 2)
    return text[start:] if stop < 0 else text[start : stop + len(closing)]


def _narrow_to_phrase(region: str) -> str:
    phrased = _phrase_sentence(region)
    return region if phrased is None else phrased


def _phrase_sentence(text: str) -> str | None:
    """The sentence after the last answer phrase, or the subject of a trailing "X is
    the answer"."""
    phrases = [
        p
        for p in _PHRASE.finditer(text)
        if not _SUPPOSING.search(_sentence_before(text, p.start()))
    ]
    reverse = list(_IS_THE_ANSWER.finditer(text))
    if reverse and (not phrases or reverse[-1].start() > phrases[-1].start()):
        return reverse[-1]["answer"].strip()
    if not phrases:
        return None
    rest = text[phrases[-1].end() :]
    end = _SENTENCE_END.search(rest.lstrip())
    sentence = rest.lstrip() if end is None else rest.lstrip()[: end.start()]
    return sentence.strip() or None


def _sentence_before(text: str, at: int) -> str:
    """The sentence up to `at` (at most 160 characters): "If the question had asked
    for her age, the" before "answer would be"."""
    window = text[max(0, at - 160) : at]
    ends = [m.end() for m in re.finditer(r"[.!?。\n](?=\s|$)|\n", window)]
    return window[ends[-1] :] if ends else window


def last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{...}`, nested braces included; None if there
    is none."""
    starts = list(_BOXED.finditer(text))
    if not starts:
        return None
    depth, begin = 1, starts[-1].end()
    for index in range(begin, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[begin:index]
    return text[begin:]  # a truncated reply still committed to what it had boxed


def _unbox(text: str) -> str:
    boxed = last_boxed(text)
    return text if boxed is None else boxed.strip()
