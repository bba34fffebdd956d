"""Text-overlap scorers: BLEU, chrF (sacrebleu), ROUGE (rouge-score), edit similarity.

Never re-implemented: each scorer calls the library that defines the figure, and its
rule version is that library's version, so upgrading the library starts new grade
conditions. The libraries are the optional extra `itemeval[text]`; naming one of these
scorers without it is a config error.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from .answer import ANSWER_RULES, answer_region
from .base import ScoreContext, ScoreResult, ScorerSpec, failed

INSTALL_HINT = "pip install 'itemeval[text]'"


class _Read(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    read: Literal["answer", "whole"] = "answer"
    """`answer`: the final answer (after the last `ANSWER:` label, else the whole
    reply); `whole`: all of it."""


class BleuParams(_Read):
    """sacrebleu's sentence BLEU settings (its defaults)."""

    tokenize: Literal["13a", "none", "intl", "char", "zh", "ja-mecab", "ko-mecab"] = (
        "13a"
    )
    lowercase: bool = False
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp"


class ChrfParams(_Read):
    """sacrebleu's chrF settings; `word_order: 2` is chrF++."""

    char_order: int = Field(default=6, ge=1)
    word_order: int = Field(default=0, ge=0)
    beta: int = Field(default=2, ge=1)
    lowercase: bool = False


class RougeParams(_Read):
    use_stemmer: bool = False
    """rouge-score's Porter stemmer ("running" matches "run")."""


class EditParams(_Read):
    ignore_case: bool = False


def _text(solution: str, read: str) -> str:
    return answer_region(solution) if read == "answer" else solution


def _references(context: ScoreContext) -> list[str] | None:
    references = [target for target in context.targets if target.strip()]
    return references or None


def _no_reference(answer: str) -> ScoreResult:
    return failed(
        "empty_target", answer, "the item's reference is empty: nothing to compare"
    )


def bleu(
    solution: str,
    context: ScoreContext,
    *,
    read: str = "answer",
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
) -> ScoreResult:
    """sacrebleu's sentence BLEU against every reference at once, on a 0-1 scale."""
    from sacrebleu.metrics import BLEU

    answer, references = _text(solution, read), _references(context)
    if references is None:
        return _no_reference(answer)
    metric = BLEU(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth_method=smooth_method,
        effective_order=True,
    )
    result = metric.sentence_score(answer, references)
    return ScoreResult(score=result.score / 100, answer=answer, explanation=str(result))


def chrf(
    solution: str, context: ScoreContext, *, read: str = "answer", **settings: Any
) -> ScoreResult:
    """sacrebleu's sentence chrF (chrF++ with `word_order: 2`), on a 0-1 scale.
    `settings`: sacrebleu's CHRF arguments as ChrfParams validated them
    (`char_order`, `word_order`, `beta`, `lowercase`)."""
    from sacrebleu.metrics import CHRF

    answer, references = _text(solution, read), _references(context)
    if references is None:
        return _no_reference(answer)
    chosen = ChrfParams(read=read, **settings).model_dump(exclude={"read"})
    result = CHRF(**chosen).sentence_score(answer, references)
    return ScoreResult(score=result.score / 100, answer=answer, explanation=str(result))


def _rouge(kind: str):
    def score(
        solution: str,
        context: ScoreContext,
        *,
        read: str = "answer",
        use_stemmer: bool = False,
    ) -> ScoreResult:
        from rouge_score.rouge_scorer import RougeScorer

        answer, references = _text(solution, read), _references(context)
        if references is None:
            return _no_reference(answer)
        scorer = RougeScorer([kind], use_stemmer=use_stemmer)
        # rouge-score's own multi-reference rule: the reference with the best F-measure.
        best = scorer.score_multi(references, answer)[kind]
        return ScoreResult(
            score=best.fmeasure,
            answer=answer,
            explanation=f"{kind} P={best.precision:.4f} R={best.recall:.4f} "
            f"F={best.fmeasure:.4f}",
        )

    score.__name__ = kind
    score.__doc__ = f"rouge-score's {kind} F-measure, the best over the references."
    return score


def edit_similarity(
    solution: str,
    context: ScoreContext,
    *,
    read: str = "answer",
    ignore_case: bool = False,
) -> ScoreResult:
    """rapidfuzz's normalised Levenshtein similarity (1 - distance / longer length),
    the best over the references."""
    from rapidfuzz.distance import Levenshtein

    answer, references = _text(solution, read), _references(context)
    if references is None:
        return _no_reference(answer)
    fold = str.casefold if ignore_case else None
    best = max(
        Levenshtein.normalized_similarity(answer, ref, processor=fold)
        for ref in references
    )
    return ScoreResult(score=float(best), answer=answer)


# name -> (function, params, the distribution whose version is the rule version, module)
_TEXT: dict[str, tuple[Any, type[BaseModel], str, str]] = {
    "bleu": (bleu, BleuParams, "sacrebleu", "sacrebleu"),
    "chrf": (chrf, ChrfParams, "sacrebleu", "sacrebleu"),
    "rouge1": (_rouge("rouge1"), RougeParams, "rouge-score", "rouge_score"),
    "rouge2": (_rouge("rouge2"), RougeParams, "rouge-score", "rouge_score"),
    "rougeL": (_rouge("rougeL"), RougeParams, "rouge-score", "rouge_score"),
    "edit_similarity": (edit_similarity, EditParams, "rapidfuzz", "rapidfuzz"),
}
TEXT_NAMES = tuple(_TEXT)


def require(distribution: str, module: str, what: str) -> str:
    """The installed version of an optional library, else a config error with a hint."""
    try:
        import_module(module)
        return version(distribution)
    except (ImportError, PackageNotFoundError):
        raise ConfigError(
            f"{what} needs the {distribution} package, which is not installed: "
            f"{INSTALL_HINT}"
        ) from None


@lru_cache(maxsize=None)
def spec(name: str) -> ScorerSpec:
    """A text scorer's spec; its rule version is the version of its library and of
    where the answer is read (`read: answer`)."""
    fn, params, distribution, module = _TEXT[name]
    library = require(distribution, module, f"scorer {name!r}")
    return ScorerSpec(
        fn=fn,
        params_model=params,
        rule_version=f"{distribution} {library}, answer {ANSWER_RULES}",
        family="text",
        all_targets=True,
    )
