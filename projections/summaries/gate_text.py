"""The gate's checks on a v2 summary's own text, whatever it cites: no directive to the model
(``no_instructions``) and no secret (``no_secrets``). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from projections.secrets import find_secrets
from projections.summaries.injection import looks_like_instruction
from projections.summaries.schema_v2 import CompactionSummaryV2
from projections.text_caches import remembered

__all__ = ["instruction_problems", "secret_problems", "statements", "summary_texts"]


def statements(summary: CompactionSummaryV2) -> Iterable[tuple[str, str, list[int]]]:
    """Each fact, decision and question: what it is, its text, the versions it cites."""
    for fact in summary.facts:
        yield f"fact {fact.key!r}", fact.value, fact.src
    for decision in summary.decisions:
        text = f"{decision.text} {decision.reason or ''}"
        yield f"decision {decision.text!r}", text, decision.src
    for question in (*summary.open_questions, *summary.expired_questions):
        yield f"question {question.text!r}", question.text, question.src


def summary_texts(summary: CompactionSummaryV2) -> list[str]:
    """Every text of a summary that reaches the model."""
    texts = [text for _, text, _ in statements(summary)]
    texts += [f"{v.key} {v.value}" for v in summary.values]
    texts += [f"{f.key}" for f in summary.facts]
    texts += [f"{t.call} {t.digest}" for t in summary.tools]
    return texts


def instruction_problems(summary: CompactionSummaryV2) -> list[str]:
    """Instruction-like text anywhere in the summary."""
    return [
        f"instruction-like text: {found!r}"
        for text in summary_texts(summary)
        if (found := _instruction_in(text)) is not None
    ]


def secret_problems(summary: CompactionSummaryV2) -> list[str]:
    """Secrets left in the summary (its input is redacted, so one here came from the
    summarizer itself); the secret is named by its kind and length, never quoted."""
    return [
        f"a {kind} secret ({length} characters) in its text"
        for text in summary_texts(summary)
        for kind, length in _secrets_in(text)
    ]


# A rolling summary carries most of its parent's items, so each compaction judged them all
# again: the verdict on a text is remembered (both are pure functions of the text).
@remembered
@lru_cache(maxsize=8192)
def _instruction_in(text: str) -> str | None:
    match = looks_like_instruction(text)
    return match.group(0) if match else None


@remembered
@lru_cache(maxsize=8192)
def _secrets_in(text: str) -> tuple[tuple[str, int], ...]:
    return tuple((finding.kind, finding.end - finding.start) for finding in find_secrets(text))
