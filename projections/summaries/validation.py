"""The fail-closed validation gate for summaries. Pure: no I/O (a token counter is injected).

``validate_summary`` runs every named check and reports each with pass or fail and a reason; a
summary is served only when all pass. Checks:

- ``schema``: the record is a valid ``compaction_summary.v1``;
- ``source_ids``: every cited id is a covered message, and every covered id exists;
- ``quantities``: every date, time and number in a fact's value appears in its cited sources;
- ``negation``: a fact or decision keeps the polarity of the source clause it rests on (the
  one sharing most terms with it);
- ``open_questions``: the parent's open questions are kept, or resolved by a newer citation;
- ``confirmed_facts``: a confirmed fact of the parent changes value only with a newer source;
- ``budget``: the rendered block fits the summary's token budget;
- ``no_instructions``: no directive to the model and no attempt to grant tools or permissions;
- ``no_secrets``: no secret anywhere in its text (:mod:`projections.secrets`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from projections.context.messages import Message, text_of
from projections.secrets import find_secrets
from projections.summaries.block import render_summary_block
from projections.summaries.injection import looks_like_instruction
from projections.summaries.model_output import normalize_seed_form
from projections.summaries.normalize import clauses, has_negation, quantities, terms
from projections.summaries.schema import CompactionSummary

__all__ = ["CHECKS", "CheckResult", "ValidationReport", "validate_summary"]

CHECKS = (
    "schema",
    "source_ids",
    "quantities",
    "negation",
    "open_questions",
    "confirmed_facts",
    "budget",
    "no_instructions",
    "no_secrets",
)


class CheckResult(BaseModel):
    """One named check: whether it passed, and why not."""

    model_config = ConfigDict(frozen=True)

    name: str
    ok: bool
    reason: str = ""


class ValidationReport(BaseModel):
    """Every check, in a fixed order; ``ok`` only when all passed."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    checks: list[CheckResult]

    def failed(self) -> list[str]:
        """The names of the checks that failed."""
        return [check.name for check in self.checks if not check.ok]

    def reason(self, name: str) -> str:
        """Why check ``name`` failed ("" when it passed or was not run)."""
        return next((check.reason or "" for check in self.checks if check.name == name), "")


def validate_summary(
    summary: CompactionSummary | dict[str, Any],
    sources: Sequence[Message],
    parent: CompactionSummary | None = None,
    budget: int | None = None,
    *,
    count_tokens: Callable[[str], int] | None = None,
) -> ValidationReport:
    """Check a summary against the messages it covers (and its parent, and a token budget).

    Args:
        summary: the candidate, a model or its JSON-like dict (the seed's literal form too:
            ``schema_version: 1``, open questions as plain strings; normalised first, see
            :func:`~projections.summaries.model_output.normalize_seed_form`).
        sources: the messages it may cite: everything it covers, the parent's coverage included.
        parent: the summary it replaces (rolling summaries), if any.
        budget: tokens the rendered block may take; ``count_tokens`` counts them.
    """
    try:
        candidate = (
            summary
            if isinstance(summary, CompactionSummary)
            else CompactionSummary.model_validate(normalize_seed_form(summary, sources))
        )
    except ValidationError as error:
        reason = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        checks = [CheckResult(name="schema", ok=False, reason=reason)]
        checks += [
            CheckResult(name=n, ok=False, reason="not checked: the schema is invalid")
            for n in CHECKS[1:]
        ]
        return ValidationReport(ok=False, checks=checks)
    by_id = {message.id: message for message in sources}
    parent_ids = set(parent.source_message_ids) if parent else set()
    checks = [
        CheckResult(name="schema", ok=True),
        _result("source_ids", _source_problems(candidate, by_id)),
        _result("quantities", _quantity_problems(candidate, by_id)),
        _result("negation", _negation_problems(candidate, by_id)),
        _result("open_questions", _question_problems(candidate, parent, parent_ids)),
        _result("confirmed_facts", _fact_change_problems(candidate, parent, parent_ids)),
        _result("budget", _budget_problems(candidate, budget, count_tokens)),
        _result("no_instructions", _instruction_problems(candidate)),
        _result("no_secrets", _secret_problems(candidate)),
    ]
    return ValidationReport(ok=all(check.ok for check in checks), checks=checks)


def _result(name: str, problems: list[str]) -> CheckResult:
    return CheckResult(name=name, ok=not problems, reason="; ".join(problems))


def _cited(summary: CompactionSummary) -> Iterable[tuple[str, str, list[str]]]:
    for fact in summary.facts:
        yield f"fact {fact.key!r}", fact.value, fact.source_ids
    for decision in summary.decisions:
        yield f"decision {decision.text!r}", decision.text, decision.source_ids
    for question in summary.open_questions:
        yield f"open question {question.text!r}", question.text, question.source_ids


def _source_problems(summary: CompactionSummary, by_id: dict[str, Message]) -> list[str]:
    covered = set(summary.source_message_ids)
    problems = [
        f"covered id {i!r} is not a message" for i in summary.source_message_ids if i not in by_id
    ]
    for what, _, ids in _cited(summary):
        for source in ids:
            if source not in by_id:
                problems.append(f"{what} cites {source!r}, which does not exist")
            elif source not in covered:
                problems.append(f"{what} cites {source!r}, outside the covered messages")
    calls = {call.id for m in by_id.values() for call in m.tool_calls}
    problems += [
        f"digest of {d.tool_call_id!r} names no covered tool call"
        for d in summary.tool_result_digests
        if d.tool_call_id not in calls
    ]
    return problems


def _source_text(ids: Iterable[str], by_id: dict[str, Message]) -> str:
    parts = []
    for source in ids:
        message = by_id.get(source)
        if message is not None:
            parts.append(text_of(message))
            parts.extend(f"{c.name} {c.arguments}" for c in message.tool_calls)
    return "\n".join(parts)


def _quantity_problems(summary: CompactionSummary, by_id: dict[str, Message]) -> list[str]:
    problems = []
    for fact in summary.facts:
        missing = unsupported_quantities(fact.value, _source_text(fact.source_ids, by_id))
        if missing:
            problems.append(
                f"fact {fact.key!r} states {', '.join(sorted(missing))} that its sources do not"
            )
    return problems


def unsupported_quantities(text: str, source_text: str) -> set[str]:
    """The dates, times, numbers, ordinals and codes of ``text`` (:func:`quantities`) that
    ``source_text`` does not support: neither holds them nor implies them (a year the sources
    name elsewhere, the day of an ordinal)."""
    source = quantities(source_text)
    return {
        token
        for token in quantities(text) - source
        if not (_year_implied(token, source) or _ordinal_implied(token, source))
    }


def _year_implied(token: str, source: set[str]) -> bool:
    """``date:YYYY-MM-DD`` is supported by ``date:MM-DD`` when the sources name that year
    elsewhere ("2026 年 9 月 19 日 … 9 月 20 日")."""
    match = re.fullmatch(r"date:(\d{4})-(\d{2}-\d{2})", token)
    if match is None or f"date:{match.group(2)}" not in source:
        return False
    year = match.group(1)
    return f"num:{year}" in source or any(t.startswith(f"date:{year}-") for t in source)


def _ordinal_implied(token: str, source: set[str]) -> bool:
    """``ord:N`` is supported by the number N or a date on day N ("the 6th" by "6" or
    "June 6")."""
    match = re.fullmatch(r"ord:(\d+)", token)
    if match is None:
        return False
    day = int(match.group(1))
    return f"num:{day}" in source or any(
        t.startswith("date:") and t.endswith(f"-{day:02d}") for t in source
    )


def _negation_problems(summary: CompactionSummary, by_id: dict[str, Message]) -> list[str]:
    problems = []
    items = [
        (f"fact {f.key!r}", f"{f.key} {f.value}", f.value, f.source_ids) for f in summary.facts
    ]
    items += [(f"decision {d.text!r}", d.text, d.text, d.source_ids) for d in summary.decisions]
    for what, topic, statement, ids in items:
        wanted = terms(topic)
        # Compare with the one source clause the statement rests on most (most shared terms).
        best, shared = "", 0
        for clause in clauses(_source_text(ids, by_id)):
            overlap = len(wanted & terms(clause))
            if overlap > shared:
                best, shared = clause, overlap
        if not shared:
            continue
        if has_negation(best) != has_negation(statement):
            stated = "negates" if has_negation(best) else "does not negate"
            problems.append(
                f"{what}: its source {stated} this ({best.strip()!r}), the summary "
                f"does the opposite"
            )
    return problems


def _question_problems(
    summary: CompactionSummary, parent: CompactionSummary | None, parent_ids: set[str]
) -> list[str]:
    if parent is None:
        return []
    kept = {" ".join(q.text.lower().split()) for q in summary.open_questions}
    newer = [
        (text, ids) for _, text, ids in _cited(summary) if any(i not in parent_ids for i in ids)
    ]
    problems = []
    for question in parent.open_questions:
        if " ".join(question.text.lower().split()) in kept:
            continue
        wanted = terms(question.text)
        if not any(wanted & terms(text) for text, _ in newer):
            problems.append(
                f"open question {question.text!r} was dropped without a newer "
                f"decision or fact that answers it"
            )
    return problems


def _fact_change_problems(
    summary: CompactionSummary, parent: CompactionSummary | None, parent_ids: set[str]
) -> list[str]:
    if parent is None:
        return []
    current = {fact.key: fact for fact in summary.facts}
    problems = []
    for old in parent.facts:
        new = current.get(old.key)
        if old.status != "confirmed" or new is None or new.value == old.value:
            continue
        if not any(source not in parent_ids for source in new.source_ids):
            problems.append(
                f"confirmed fact {old.key!r} changed from {old.value!r} to "
                f"{new.value!r} without a newer source"
            )
    return problems


def _budget_problems(
    summary: CompactionSummary, budget: int | None, count_tokens: Callable[[str], int] | None
) -> list[str]:
    if budget is None:
        return []
    if count_tokens is None:
        raise ValueError("validate_summary needs count_tokens to check a budget")
    used = count_tokens(render_summary_block(summary))
    return (
        [f"the summary takes {used} tokens, over its budget of {budget}"] if used > budget else []
    )


def _texts(summary: CompactionSummary) -> list[str]:
    texts = [text for _, text, _ in _cited(summary)]
    texts += [fact.key for fact in summary.facts]
    texts += [digest.digest for digest in summary.tool_result_digests]
    return texts


def _secret_problems(summary: CompactionSummary) -> list[str]:
    return [
        f"a {finding.kind} secret ({finding.end - finding.start} characters) in its text"
        for text in _texts(summary)
        for finding in find_secrets(text)
    ]


def _instruction_problems(summary: CompactionSummary) -> list[str]:
    texts = _texts(summary)
    return [
        f"instruction-like text: {match.group(0)!r}"
        for text in texts
        for match in [looks_like_instruction(text)]
        if match
    ]
