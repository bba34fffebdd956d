"""Identity: golden ids pinned as literals, facet order irrelevant, a template edit
moves only its conditions."""

from __future__ import annotations

import hashlib

import pytest

from itemeval.errors import ConfigError
from itemeval.records import Template
from itemeval.study.config import Grader, ModelConfigFacet, Solvers
from itemeval.study.grid import generate_condition, model_short_name, select
from itemeval.study.judges import judge_condition
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study

PROMPT = Template(
    ref="builtin:minimal",
    kind="prompt",
    text="{input}",
    hash="a" * 64,
    source="builtin",
    path="x",
)
RUBRIC = Template(
    ref="correctness",
    kind="rubric",
    text="{input}{solution}",
    hash="b" * 64,
    source="local",
    path="x",
)
SOLVERS = Solvers(models=["openai/gpt-4.1-mini"], temperature=0.7, max_tokens=1024)


def test_golden_generate_id():
    condition = generate_condition(
        "openai/gpt-4.1-mini", PROMPT, ModelConfigFacet(name="default"), SOLVERS
    )
    payload = (
        '{"model":"openai/gpt-4.1-mini","model_config":{"max_tokens":1024,"name":"default","temperature":0.7},'
        '"prompt":{"hash":"' + "a" * 64 + '","ref":"builtin:minimal"}}'
    )
    assert hashlib.sha256(payload.encode()).hexdigest()[:12] == "0f28de217950"
    assert condition.id == "gpt-4-1-mini_builtin-minimal_default--0f28de217950"


def test_golden_generate_id_with_overrides():
    hot = ModelConfigFacet(name="hot", temperature=1.0, reasoning_effort="low")
    condition = generate_condition("openai/gpt-4.1-mini", PROMPT, hot, SOLVERS)
    assert condition.id == "gpt-4-1-mini_builtin-minimal_hot--b1e9cb809502"
    assert condition.params == {
        "temperature": 1.0,
        "max_tokens": 1024,
        "reasoning_effort": "low",
    }


def test_golden_judge_id():
    condition = judge_condition(
        "strict", Grader(model="itemeval/judge", max_tokens=1024), RUBRIC
    )
    assert condition.id == "strict_correctness--acc8dec8336f"
    assert (
        condition.payload["temperature"] == 0.0
        and condition.payload["format_suffix_version"] == "1"
    )


def test_draws_keep_the_judge_id_and_only_another_temperature_moves_it():
    plain = Grader(model="itemeval/judge", max_tokens=1024)
    golden = "strict_correctness--acc8dec8336f"
    drawn = judge_condition("strict", plain.model_copy(update={"draws": 3}), RUBRIC)
    assert (drawn.id, drawn.draws) == (golden, 3)
    zero = Grader(model="itemeval/judge", max_tokens=1024, temperature=0)
    assert judge_condition("strict", zero, RUBRIC).id == golden
    warm = Grader(model="itemeval/judge", max_tokens=1024, temperature=0.7)
    hot = judge_condition("strict", warm, RUBRIC)
    assert hot.id != golden and hot.payload["temperature"] == 0.7
    assert hot.judge_params["temperature"] == 0.7  # and it is what is sent


def test_draws_are_for_pointwise_judges():
    with pytest.raises(ValueError, match="draws need kind: pointwise"):
        Grader(model="itemeval/judge", kind="pairwise", draws=2)
    with pytest.raises(ValueError):
        Grader(model="itemeval/judge", draws=0)


def test_explicit_null_in_model_config_clears_a_param():
    cleared = ModelConfigFacet(name="plain", temperature=None)
    assert generate_condition("m/x", PROMPT, cleared, SOLVERS).params == {
        "max_tokens": 1024
    }


@pytest.mark.parametrize(
    "model, short",
    [
        ("openai/gpt-4.1-mini", "gpt-4.1-mini"),
        ("openai-api/local/qwen", "qwen"),
        ("itemeval/arith-good", "arith-good"),
    ],
)
def test_model_short_name(model, short):
    assert model_short_name(model) == short


def _ids(path):
    study = load_study(path)
    return {c.slug: c.id for c in study.generate}, {c.slug: c.id for c in study.grade}


def test_facet_order_does_not_change_ids(tmp_path):
    a = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        facets__prompt=["p", "builtin:minimal"],
        facets__grader=["itemeval/judge"],
        facets__scorer=["numeric", "exact_match"],
    )
    b = base_config(
        solvers__models=["itemeval/arith-weak", "itemeval/arith-good"],
        facets__prompt=["builtin:minimal", "p"],
        facets__grader=["itemeval/judge"],
        facets__scorer=["exact_match", "numeric"],
    )
    gen_a, grade_a = _ids(write_study(tmp_path / "a", a))
    gen_b, grade_b = _ids(write_study(tmp_path / "b", b))
    assert gen_a == gen_b and len(gen_a) == 4
    assert grade_a == grade_b and len(grade_a) == 3


def test_things_outside_identity_do_not_change_ids(tmp_path):
    a = base_config()
    b = base_config(
        facets__replications=5,
        budget={"max_usd": 3.0},
        cache=False,
        study="other",
        solvers__max_retries=9,
        solvers__timeout=5,
    )
    b["benchmark"]["datasets"][0]["limit"] = 2
    assert _ids(write_study(tmp_path / "a", a)) == _ids(write_study(tmp_path / "b", b))


def test_editing_one_template_changes_only_its_conditions(tmp_path):
    config = base_config(
        facets__prompt=["p", "builtin:minimal"],
        facets__grader=["itemeval/judge"],
        facets__rubric=["r"],
    )
    path = write_study(tmp_path, config)
    gen_before, grade_before = _ids(path)
    (tmp_path / "prompts" / "p.md").write_text("Edited: {input}")
    gen_after, grade_after = _ids(path)
    changed = {slug for slug in gen_before if gen_before[slug] != gen_after[slug]}
    assert changed == {"arith-good_p_default"}
    assert grade_before == grade_after
    (tmp_path / "rubrics" / "r.md").write_text("New rubric {input} {solution}")
    assert _ids(path)[1]["itemeval-judge_r"] != grade_after["itemeval-judge_r"]
    assert _ids(path)[1]["scorer_numeric"] == grade_after["scorer_numeric"]


def test_same_scorer_twice_with_different_params_gets_distinct_slugs(tmp_path):
    config = base_config(
        facets__scorer=["numeric", {"name": "numeric", "params": {"rel_tol": 0.01}}]
    )
    slugs = list(_ids(write_study(tmp_path, config))[1])
    assert (
        slugs[0] == "scorer_numeric"
        and slugs[1].startswith("scorer_numeric-")
        and len(slugs[1]) == len(slugs[0]) + 5
    )


@pytest.mark.parametrize(
    "first",
    [
        "numeric",
        {"name": "numeric", "params": {"rel_tol": 0.01}},
        {"name": "match", "params": {"location": "exact"}},
    ],
)
def test_adding_or_removing_a_sibling_entry_never_changes_an_entrys_id(tmp_path, first):
    alone = _ids(write_study(tmp_path / "alone", base_config(facets__scorer=[first])))[
        1
    ]
    siblings = [
        first,
        {"name": "numeric", "params": {"abs_tol": 0.5}},
        {"name": "match", "params": {"location": "any"}},
    ]
    together = _ids(
        write_study(tmp_path / "together", base_config(facets__scorer=siblings))
    )[1]
    ((slug, condition_id),) = alone.items()
    assert together[slug] == condition_id


def test_scorer_defaults_spelled_out_give_the_same_id(tmp_path):
    a = _ids(write_study(tmp_path / "a", base_config(facets__scorer="numeric")))[1]
    b = _ids(
        write_study(
            tmp_path / "b",
            base_config(
                facets__scorer=[{"name": "numeric", "params": {"rel_tol": 1e-6}}]
            ),
        )
    )[1]
    assert a == b


def test_bad_scorer_params_name_the_entry(tmp_path):
    with pytest.raises(ConfigError, match=r"facets.scorer\[0\].*rel_toll"):
        load_study(
            write_study(
                tmp_path,
                base_config(
                    facets__scorer=[{"name": "numeric", "params": {"rel_toll": 1}}]
                ),
            )
        )


def test_repeated_model_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="appears twice"):
        load_study(
            write_study(
                tmp_path,
                base_config(
                    solvers__models=["itemeval/arith-good", "itemeval/arith-good"]
                ),
            )
        )


def test_select_by_id_prefix_and_slug(tmp_path):
    study = load_study(
        write_study(tmp_path, base_config(facets__prompt=["p", "builtin:minimal"]))
    )
    first, second = study.generate
    assert select(study.generate, [first.id]) == [first]
    assert select(study.generate, [second.slug]) == [second]
    assert select(study.generate, [first.id[: len(first.slug) + 4]]) == [first]
    with pytest.raises(ConfigError, match="no condition matches 'zzz'"):
        select(study.generate, ["zzz"])
