"""Judge replies whose fenced verdict holds what ends a fence too early (issue 50):
triple backticks inside the reasoning string, code fences quoted in the prose before
the verdict, and the usual shapes around them.

Each case is (kind, reply, score): the score a careful reader takes from the reply, or
the failure code when the reply gives no verdict.
"""

from __future__ import annotations

F = "```"

JUDGE_REPLIES: list[tuple[str, str, float | str]] = [
    (
        "backticks_in_reasoning",
        f'The answer is correct.\n\n{F}json\n{{"score": 8, "reasoning": "Uses a {F}python{F} block correctly."}}\n{F}',
        8.0,
    ),
    (
        "backticks_in_reasoning",
        f'{F}json\n{{"score": 3, "reasoning": "The reply wraps its code in {F} but never closes it."}}\n{F}',
        3.0,
    ),
    (
        "backticks_in_reasoning",
        f'Assessment: partially right.\n\n{F}json\n{{"score": 5, "reasoning": "It shows {F}json{{}}{F} as the output format, which is right, but the values are wrong."}}\n{F}',
        5.0,
    ),
    (
        "backticks_in_reasoning",
        f'{F}json\n{{"score": 10, "reasoning": "Perfect: the fence {F}bash\\nls -la\\n{F} is exactly what was asked."}}\n{F}',
        10.0,
    ),
    (
        "backticks_in_reasoning",
        f'{F}json\n{{\n  "score": 2,\n  "reasoning": "The answer quotes {F}SELECT *{F} instead of naming the columns."\n}}\n{F}',
        2.0,
    ),
    (
        "backticks_in_reasoning",
        f'{F}\n{{"score": 6, "reasoning": "Closes the {F} fence early; otherwise fine."}}\n{F}',
        6.0,
    ),
    (
        "backticks_in_reasoning",
        f'Draft: {{"score": 1}}\n\n{F}json\n{{"score": 7, "reasoning": "Code in {F}js{F} works."}}\n{F}',
        7.0,
    ),
    (
        "backticks_in_reasoning",
        f'{F}json\n{{"score": 4.5, "reasoning": "Three backticks ({F}) start a fence; the reply forgot the language tag."}}\n{F}\n',
        4.5,
    ),
    (
        "quoted_code_before",
        f'The solution gives:\n\n{F}python\ndef add(a, b):\n    return {{"sum": a + b}}\n{F}\n\nwhich is right.\n\n{F}json\n{{"score": 9, "reasoning": "Correct function."}}\n{F}',
        9.0,
    ),
    (
        "quoted_code_before",
        f'The answer prints {F}{{"ok": true}}{F} inline.\n\n{F}json\n{{"score": 6, "reasoning": "Right idea."}}\n{F}',
        6.0,
    ),
    (
        "quoted_code_before",
        f'{F}\nsome untagged code {{ not json }}\n{F}\n\n{F}json\n{{"score": 2, "reasoning": "Wrong."}}\n{F}',
        2.0,
    ),
    (
        "plain",
        f'{F}json\n{{"score": 7, "reasoning": "Good."}}\n{F}',
        7.0,
    ),
    (
        "plain",
        'Final verdict: {"score": 4, "reasoning": "Half right."}',
        4.0,
    ),
    (
        "plain",
        f'{F}json\n{{"score": <number>, "reasoning": "..."}}\n{F}\n\nI cannot grade this.',
        "invalid_json",
    ),
    (
        "plain",
        f'{F}json\n{{"rating": 5}}\n{F}',
        "no_score_in_json",
    ),
    (
        "plain",
        "The answer is fine. Score: 8/10.",
        "no_json_object",
    ),
    (
        "plain",
        f'{F}json\n{{"score": 3, "reasoning": "cut off',
        "invalid_json",
    ),
    (
        "plain",
        f'{F}json\n{{"score": 9, "reasoning": "Quotes \\"{F}\\" in an escaped string."}}\n{F}',
        9.0,
    ),
]
