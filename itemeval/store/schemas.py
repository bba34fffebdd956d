"""The arrow schema of every study store: one constant each, so column types never
drift between writes."""

from __future__ import annotations

import pyarrow as pa

from ..records import (
    GRADE_KEY,
    ITEM_KEY,
    PAIRWISE_KEY,
    SAMPLING_PARAMS,
    SOLUTION_KEY,
)

_TS = pa.timestamp("us", tz="UTC")

_USAGE = [
    ("input_tokens", pa.int64()),
    ("output_tokens", pa.int64()),
    ("total_tokens", pa.int64()),
    ("cache_read_tokens", pa.int64()),
    ("cache_write_tokens", pa.int64()),
    ("reasoning_tokens", pa.int64()),
    ("usd", pa.float64()),  # null = unpriced model, never a fake 0
    # JSON: the provider's counts where they could not be true (below 0, not whole,
    # past what the call could use), each with why; the counts above are then the
    # call's worst case, as charged. Null: taken as reported.
    ("usage_reported", pa.string()),
    ("cache_hit", pa.bool_()),  # served from inspect's local response cache (usd 0.0)
    ("latency_s", pa.float64()),
]

_ARROW_TYPES = {
    "float": pa.float64(),
    "int": pa.int64(),
    "str": pa.string(),
    "bool": pa.bool_(),
}

_TOP_LOGPROB = pa.struct([("token", pa.string()), ("logprob", pa.float64())])
LOGPROBS = pa.list_(
    pa.struct(
        [
            ("token", pa.string()),
            ("logprob", pa.float64()),
            ("top", pa.list_(_TOP_LOGPROB)),
        ]
    )
)
"""The first generated tokens, each with its logprob and its top alternatives (null:
none requested or returned)."""
_PARAMS = [(param.column, _ARROW_TYPES[param.type]) for param in SAMPLING_PARAMS]

SOLUTIONS = pa.schema(
    [
        ("condition_id", pa.string()),
        ("condition_slug", pa.string()),
        ("item_id", pa.string()),
        ("dataset_id", pa.string()),
        ("dataset_revision", pa.string()),
        ("epoch", pa.int64()),
        ("model", pa.string()),
        ("prompt_name", pa.string()),
        ("prompt_hash", pa.string()),
        # the hash of what the cell sent (its rendered chat): a changed item's cells
        # run again; null in rows written before it was recorded, and in imported ones
        ("input_hash", pa.string()),
        ("model_config_name", pa.string()),
        # the facets.solver level: plain (one call), task, or an agents: name; null in
        # rows written before solvers were a facet (they are plain)
        ("solver", pa.string()),
        *_PARAMS,
        *[(f"effective_{name}", typ) for name, typ in _PARAMS],
        # canonical JSON of the config inspect sent (ModelEvent.config)
        (
            "effective_config",
            pa.string(),
        ),
        ("solution", pa.string()),  # null when the call errored
        ("solution_hash", pa.string()),
        # no error but nothing but whitespace came back (see solvers.on_empty)
        (
            "blank",
            pa.bool_(),
        ),
        ("stop_reason", pa.string()),
        ("logprobs", LOGPROBS),
        ("error", pa.string()),
        # an agent cell's trajectory (null for one plain call): the model's turns, its
        # tool calls (react's submit not counted) and which tools, the inspect limit
        # it hit, and its compact transcript (the whole one is in the .eval log)
        ("turns", pa.int64()),
        ("tool_calls", pa.int64()),
        ("tools_used", pa.list_(pa.string())),
        ("limit_hit", pa.string()),
        ("transcript", pa.string()),
        *_USAGE,
        ("run_id", pa.string()),
        ("log_file", pa.string()),
        ("sample_uuid", pa.string()),
        ("created_at", _TS),
    ]
)

GRADES = pa.schema(
    [
        ("grade_condition_id", pa.string()),
        ("grade_condition_slug", pa.string()),
        ("gen_condition_id", pa.string()),
        ("item_id", pa.string()),
        ("epoch", pa.int64()),
        # which of a judge's independent samples of this answer (graders.NAME.draws);
        # rows written before draws existed have no such column and read as draw 1
        ("draw", pa.int64()),
        ("grade_kind", pa.string()),  # verifiable | judge
        ("scorer", pa.string()),
        ("grader_name", pa.string()),
        ("grader_model", pa.string()),
        ("rubric_name", pa.string()),
        ("rubric_hash", pa.string()),
        ("solution_hash", pa.string()),
        ("score", pa.float64()),
        ("score_raw", pa.string()),
        ("parse_ok", pa.bool_()),
        ("parse_error", pa.string()),
        ("reasoning", pa.string()),
        ("answer", pa.string()),  # what the scorer read from the solution
        ("explanation", pa.string()),
        # canonical JSON object, e.g. option_probs and risk_score
        (
            "score_metadata",
            pa.string(),
        ),
        ("judge_completion", pa.string()),
        ("error", pa.string()),
        *_USAGE,
        ("run_id", pa.string()),
        ("log_file", pa.string()),
        ("created_at", _TS),
    ]
)

ITEMS = pa.schema(
    [
        ("item_id", pa.string()),
        ("dataset_id", pa.string()),
        ("dataset_revision", pa.string()),
        ("row_index", pa.int64()),
        ("input", pa.string()),
        # one target, or a JSON list of several acceptable ones
        (
            "target",
            pa.string(),
        ),
        ("targets", pa.list_(pa.string())),
        # the item's options (mapping.choices); null when it has none
        (
            "choices",
            pa.list_(pa.string()),
        ),
        ("grading_scheme", pa.string()),
        # canonical JSON object of the mapped metadata columns
        (
            "metadata",
            pa.string(),
        ),
    ]
)

PAIRWISE = pa.schema(
    [
        ("grade_condition_id", pa.string()),
        ("grade_condition_slug", pa.string()),
        ("condition_a", pa.string()),  # condition_a < condition_b by id
        ("condition_b", pa.string()),
        ("item_id", pa.string()),
        ("epoch", pa.int64()),
        ("order", pa.int64()),  # 1: A shown first; 2: B shown first
        ("grader_name", pa.string()),
        ("grader_model", pa.string()),
        ("rubric_name", pa.string()),
        ("rubric_hash", pa.string()),
        ("solution_hash_a", pa.string()),
        ("solution_hash_b", pa.string()),
        ("length_a", pa.int64()),  # characters of each answer, for the length bias
        ("length_b", pa.int64()),
        ("winner", pa.string()),  # condition_a, condition_b or "tie"; null on failure
        ("winner_raw", pa.string()),  # the letter as the judge wrote it
        ("parse_ok", pa.bool_()),
        ("parse_error", pa.string()),
        ("reasoning", pa.string()),
        ("judge_completion", pa.string()),
        ("error", pa.string()),
        *_USAGE,
        ("run_id", pa.string()),
        ("log_file", pa.string()),
        ("created_at", _TS),
    ]
)

STORES: dict[str, tuple[pa.Schema, tuple[str, ...]]] = {
    "solutions": (SOLUTIONS, SOLUTION_KEY),
    "grades": (GRADES, GRADE_KEY),
    "items": (ITEMS, ITEM_KEY),
    "pairwise": (PAIRWISE, PAIRWISE_KEY),
}
"""store name -> (schema, key columns)."""

PARTITIONS: dict[str, tuple[str, ...]] = {
    "pairwise": ("grade_condition_id", "condition_a", "condition_b"),
    # named, not derived: the draw joined the key later, and a grade's part files
    # are still picked by its two condition ids, so existing stores keep their layout
    "grades": ("grade_condition_id", "gen_condition_id"),
}
"""Stores whose part files are not picked by all key columns but the trailing
(item_id, epoch)."""

KEY_DEFAULTS: dict[str, dict[str, int]] = {"grades": {"draw": 1}}
"""Key columns a store gained after its first rows, with what a row lacking one
holds: parts written before read as this value, and rows given without it are
stored with it, so a store from before the column is neither rewritten nor graded
again."""

COLUMN_DOCS: dict[str, str] = {
    # ids and keys
    "condition_id": "The generate condition's id: `<slug>--<12 hex>` of what "
    "defines it.",
    "condition_slug": "The generate condition's readable name (model_prompt_config).",
    "grade_condition_slug": "The grade condition's readable name (grader_rubric, or "
    "scorer_NAME).",
    "gen_condition_id": "The generate condition whose answer this grade is of.",
    "condition_b": "The other generate condition of the pair (the larger id).",
    "item_id": "The item's id (benchmark.mapping.id), unique across the study.",
    "epoch": "The replication, 1..facets.replications.",
    "dataset_id": "The dataset the item came from (its path or Hub id).",
    "dataset_revision": "The dataset's pinned revision (dataset_locks.json).",
    "row_index": "The item's 0-based row in its dataset.",
    # what was asked and answered
    "model": "The solver's inspect model id.",
    "prompt_name": "The prompt template's name (`imported:<task>` for imported rows).",
    "prompt_hash": "The prompt template's content hash.",
    "model_config_name": "The facets.model_config entry's name.",
    "solution_hash": "The hash of the answer's text: a grade of another text is stale.",
    "solution_hash_a": "The hash of condition_a's answer as judged.",
    "solution_hash_b": "The hash of condition_b's answer as judged.",
    "length_b": "Characters of condition_b's answer.",
    "stop_reason": "Why the model stopped (stop, max_tokens, ...), as inspect says.",
    "logprobs": "The first generated tokens with their logprobs and top alternatives "
    "(null: none requested or returned).",
    "error": "The call's error message; null when it succeeded. A row with an error is "
    "retried on the next run.",
    "tool_calls": "An agent cell's tool calls (null for one plain call).",
    "tools_used": "The tools an agent cell called, by name.",
    "limit_hit": "The inspect limit that ended an agent cell (message, token, time, "
    "working), or null.",
    "transcript": "An agent cell's compact transcript (the whole one is in the .eval "
    "log); rubrics read it as {transcript}.",
    # grades
    "scorer": "The verifiable scorer's name (null for a judge).",
    "grader_name": "The judge's name in `graders:` (or its model id, or human-NAME).",
    "grader_model": "The judge's inspect model id.",
    "rubric_name": "The rubric template's name.",
    "rubric_hash": "The rubric template's content hash.",
    "score": "The grade, on the grader's scale (null when the reply gave none).",
    "score_raw": "The score as the grader wrote it.",
    "parse_ok": "Whether the judge's reply held a verdict that parsed.",
    "parse_error": "Why a judge's reply did not parse (no_json_object, ...).",
    "reasoning": "The judge's stated reasoning.",
    "explanation": "The scorer's account of its verdict (read 13, target 13).",
    "judge_completion": "The judge's whole reply.",
    # the items store
    "input": "The problem text (benchmark.mapping.input).",
    "targets": "Every acceptable target, as a list.",
    "grading_scheme": "Rubric or points text (benchmark.mapping.grading_scheme).",
    # usage and provenance
    "input_tokens": "Input tokens of the call(s), as the provider reported.",
    "output_tokens": "Output tokens of the call(s).",
    "total_tokens": "Input plus output tokens.",
    "cache_read_tokens": "Input tokens read from the provider's prompt cache.",
    "cache_write_tokens": "Input tokens written to the provider's prompt cache.",
    "reasoning_tokens": "Reasoning tokens of reasoning models.",
    "latency_s": "Seconds the call took.",
    "run_id": "The run that wrote the row (its manifest is manifests/<run_id>.json).",
    "log_file": "The inspect .eval log holding the call's transcript.",
    "sample_uuid": "The inspect sample's uuid in that log.",
    "created_at": "When the row was written (UTC).",
}
"""What a column holds, for the columns no comment above describes (the stores
reference, docs/reference/stores.md, reads both)."""
