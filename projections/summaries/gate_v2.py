"""The fail-closed gate for ``compaction_summary.v2``. Pure: no I/O (a token counter is
injected).

It refuses what is wrong and only that: every item is checked against the message it cites,
verbatim, so a right summary is never refused for the way it is written.

- ``schema``: a valid v2 record;
- ``coverage``: exactly the ranges, count and digest the compaction planned;
- ``sources``: every cited version is a covered message;
- ``values``: each value occurs in its cited message as a whole token, or at its JSON key path
  in the parsed tool result (or call arguments), or is the date its anchor phrase resolves to
  at that message's date;
- ``quantities``: every number, date, time and code in a fact, decision or question occurs in
  the text of the messages it cites (compared with the whole message, never a cut clause);
- ``negation``: facts and decisions keep the polarity of the source sentence they rest on;
- ``open_questions``: the parent's open questions are kept, answered later (the shared
  ``is_answered`` rule), or listed as expired;
- ``carried_facts``: the parent's confirmed facts are kept unless a newer fact of the same key
  supersedes them, or they are listed in ``dropped_facts`` and do not fit the budget next to
  the carried facts kept (with nothing else: capacity, never preference);
- ``budget``: the block fits its token budget;
- ``no_instructions``: no directive to the model anywhere in the summary;
- ``no_secrets``: no secret anywhere in the summary (:mod:`projections.secrets`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from projections.context.messages import Message, text_of
from projections.summaries.block_v2 import render_summary_block_v2
from projections.summaries.gate_text import instruction_problems, secret_problems, statements
from projections.summaries.normalize import (
    clauses,
    has_negation,
    is_answered,
    sentences,
    terms,
)
from projections.summaries.schema_v2 import CompactionSummaryV2, Coverage, FactV2, Value
from projections.summaries.temporal import anchor_relative_dates, message_date
from projections.summaries.validation import (
    CheckResult,
    ValidationReport,
    unsupported_quantities,
)

__all__ = ["CHECKS_V2", "validate_summary_v2"]

CHECKS_V2 = (
    "schema",
    "coverage",
    "sources",
    "values",
    "quantities",
    "negation",
    "open_questions",
    "carried_facts",
    "budget",
    "no_instructions",
    "no_secrets",
)
Sources = Mapping[int, Message]
_PATH_PART = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


def validate_summary_v2(
    summary: CompactionSummaryV2 | dict[str, Any],
    sources: Sources,
    *,
    coverage: Coverage | None = None,
    parent: CompactionSummaryV2 | None = None,
    budget: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
) -> ValidationReport:
    """Check a v2 summary against the messages it may cite (session version -> message).

    Args:
        coverage: the coverage the compaction planned (ranges, count, digest), if known.
        parent: the summary it replaces.
        budget: tokens the rendered block may take; ``count_tokens`` counts them.
    """
    try:
        candidate = (
            summary
            if isinstance(summary, CompactionSummaryV2)
            else CompactionSummaryV2.model_validate(summary)
        )
    except ValidationError as error:
        reason = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        checks = [CheckResult(name="schema", ok=False, reason=reason)]
        checks += [
            CheckResult(name=n, ok=False, reason="not checked: the schema is invalid")
            for n in CHECKS_V2[1:]
        ]
        return ValidationReport(ok=False, checks=checks)
    checks = [
        CheckResult(name="schema", ok=True),
        _result("coverage", _coverage_problems(candidate, coverage)),
        _result("sources", _source_problems(candidate, sources)),
        _result("values", _value_problems(candidate, sources)),
        _result("quantities", _quantity_problems(candidate, sources)),
        _result("negation", _negation_problems(candidate, sources)),
        _result("open_questions", _question_problems(candidate, parent, sources)),
        _result("carried_facts", _carried_problems(candidate, parent, budget, count_tokens)),
        _result("budget", _budget_problems(candidate, budget, count_tokens)),
        _result("no_instructions", instruction_problems(candidate)),
        _result("no_secrets", secret_problems(candidate)),
    ]
    return ValidationReport(ok=all(check.ok for check in checks), checks=checks)


def _result(name: str, problems: list[str]) -> CheckResult:
    return CheckResult(name=name, ok=not problems, reason="; ".join(problems[:10]))


def _coverage_problems(summary: CompactionSummaryV2, expected: Coverage | None) -> list[str]:
    if expected is None or summary.coverage == expected:
        return []
    found = summary.coverage
    return [
        f"coverage says {found.ranges} ({found.count} messages, digest {found.digest[:12]}…), "
        f"the compaction covered {expected.ranges} ({expected.count} messages, digest "
        f"{expected.digest[:12]}…)"
    ]


def _source_problems(summary: CompactionSummaryV2, sources: Sources) -> list[str]:
    problems = []
    for version in sorted(summary.cited()):
        if not summary.coverage.contains(version):
            problems.append(f"@{version} is outside the coverage {summary.coverage.ranges}")
        elif version not in sources:
            problems.append(f"@{version} is not a covered message")
    return problems


def _message_text(message: Message) -> str:
    calls = " ".join(f"{call.name} {call.arguments}" for call in message.tool_calls)
    return f"{text_of(message)} {calls}".strip()


def _value_problems(summary: CompactionSummaryV2, sources: Sources) -> list[str]:
    problems = []
    parsed: dict[int, dict[str, Any]] = {}  # each message's JSON and text, worked out once
    for value in summary.values:
        message = sources.get(value.src)
        if message is None:
            continue  # reported by "sources"
        problem = _value_problem(value, message, parsed.setdefault(value.src, {}))
        if problem:
            problems.append(f"value {value.key}={value.value!r} @{value.src}: {problem}")
    return problems


def _value_problem(value: Value, message: Message, cache: dict[str, Any]) -> str | None:
    if value.anchor is not None:
        when = message_date(message)
        resolved = dict(anchor_relative_dates(text_of(message), when)) if when else {}
        if resolved.get(value.anchor) != value.value:
            return f"{value.anchor!r} in that message does not resolve to {value.value}"
        return None
    if value.path is not None:
        found = _at_path(message, value.path, cache)
        if found is _MISSING:
            return f"the message has no {value.path}"
        if str(found).strip() != value.value:
            return f"{value.path} holds {found!r}"
        return None
    if "text" not in cache:
        cache["text"] = _message_text(message)
    if not _whole_token_in(value.value, cache["text"]):
        return "it does not occur in that message"
    return None


def _whole_token_in(needle: str, text: str) -> bool:
    """Whether ``needle`` occurs in ``text`` as a whole token: no ASCII letter, digit or
    underscore may continue it on either side (CJK text runs on without spaces)."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if not _WORD_CHAR.match(text[start - 1 : start]) and not _WORD_CHAR.match(
            text[end : end + 1]
        ):
            return True
        start = text.find(needle, start + 1)
    return False


_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
_MISSING = object()


def _at_path(message: Message, path: str, cache: dict[str, Any]) -> Any:
    """The value at ``path`` in the message's JSON (a tool result, or ``call[i].…`` for a
    call's arguments); each document is parsed once per check (``cache``)."""
    source = "result"
    if path.startswith("call["):
        source, _, path = path[5:].partition("]")
        path = path.lstrip(".")
    if source not in cache:
        cache[source] = _document(message, source)
    document = cache[source]
    if document is _MISSING:
        return _MISSING
    for index, key in _PATH_PART.findall(path):
        try:
            document = document[int(index)] if index else document[key]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return document


def _document(message: Message, source: str) -> Any:
    """The parsed tool result (``source`` "result") or the arguments of call ``source``."""
    try:
        if source == "result":
            return json.loads(text_of(message))
        return json.loads(message.tool_calls[int(source)].arguments)
    except (ValueError, IndexError):
        return _MISSING


def _cited_text(versions: list[int], sources: Sources) -> str:
    return "\n".join(_message_text(sources[v]) for v in versions if v in sources)


def _quantity_problems(summary: CompactionSummaryV2, sources: Sources) -> list[str]:
    problems = []
    for what, text, versions in statements(summary):
        missing = unsupported_quantities(text, _cited_text(versions, sources))
        if missing:
            problems.append(f"{what} states {', '.join(sorted(missing))}, which its sources do not")
    return problems


def _negation_problems(summary: CompactionSummaryV2, sources: Sources) -> list[str]:
    problems = []
    items = [(f"fact {f.key!r}", [f.value], f.src) for f in summary.facts]
    items += [(f"decision {d.text!r}", [d.text, d.reason or ""], d.src) for d in summary.decisions]
    for what, parts, versions in items:
        cited = _cited_text(versions, sources)
        for part in parts:
            if part and not _quoted(part, cited):
                problems += [f"{what}: {problem}" for problem in _polarity(part, cited)]
    return problems


def _polarity(statement: str, cited: str) -> list[str]:
    """Each clause of the statement against the source clause it rests on (most shared
    terms): a flipped negation in any clause is reported."""
    found = []
    whole = sentences(cited)
    parts = [c for sentence in whole for c in clauses(sentence)]
    pieces = clauses(statement)
    checks = [(statement, whole, 1)]  # the whole statement against the sentence it rests on
    if len(pieces) > 1:  # and each clause against the clause it rests on, when it says enough
        checks += [(piece, parts, 2) for piece in pieces if len(terms(piece)) >= 3]
    for piece, candidates, needed in checks:
        wanted = terms(piece)
        best, shared = "", 0
        for candidate in candidates:
            overlap = len(wanted & terms(candidate))
            if overlap > shared:
                best, shared = candidate, overlap
        if shared >= needed and has_negation(best) != has_negation(piece):
            stated = "negates" if has_negation(best) else "does not negate"
            found.append(f"its source {stated} {piece!r} ({best!r}), the summary does the opposite")
    return found[:1]


_NEGATOR_BEFORE = re.compile(r"(?:[不没无别勿非]|\bnot\s|n't\s|\bno\s|\bnever\s)$")


def _quoted(statement: str, cited: str) -> bool:
    """Whether the statement is quoted verbatim from its sources, and not by leaving out the
    negator right before it ("自动购票" out of "不自动购票" is no quote)."""
    wanted, text = _squeeze(statement), _squeeze(cited)
    start = text.find(wanted)
    while start >= 0 and wanted:
        if not _NEGATOR_BEFORE.search(text[max(0, start - 8) : start]):
            return True
        start = text.find(wanted, start + 1)
    return False


def _squeeze(text: str) -> str:
    """Text for a verbatim comparison: white space, case and emphasis markup ignored."""
    return " ".join(text.replace("**", "").replace("__", "").split()).lower()


def _question_problems(
    summary: CompactionSummaryV2, parent: CompactionSummaryV2 | None, sources: Sources
) -> list[str]:
    if parent is None:
        return []
    kept = {q.text for q in (*summary.open_questions, *summary.expired_questions)}
    problems = []
    for question in parent.open_questions:
        if question.text in kept:
            continue
        later = [
            (message.role, text_of(message))
            for version, message in sorted(sources.items())
            if version > max(question.src)
        ]
        if not is_answered(question.text, question.asked_by or "", later):
            problems.append(f"open question {question.text!r} was dropped without an answer")
    return problems


def _carried_problems(
    summary: CompactionSummaryV2,
    parent: CompactionSummaryV2 | None,
    budget: int | None,
    count_tokens: Callable[[str], int] | None,
) -> list[str]:
    confirmed = {f.key: f for f in (parent.facts if parent else []) if f.status == "confirmed"}
    current = {fact.key: fact for fact in summary.facts}
    dropped = {fact.key for fact in summary.dropped_facts}
    problems = [
        f"dropped_facts names {key!r}, not a confirmed fact of the previous version"
        for key in sorted(dropped - confirmed.keys())
    ]
    kept = [fact for fact in summary.facts if fact.key in confirmed]
    for old in confirmed.values():
        new = current.get(old.key)
        if new is None and old.key not in dropped:
            problems.append(f"confirmed fact {old.key!r} ({old.value!r}) was dropped")
        elif new is None and _fits_beside(kept, old, summary, budget, count_tokens):
            problems.append(
                f"confirmed fact {old.key!r} was dropped for capacity, but it fits next to the "
                f"carried facts within the budget of {budget}"
            )
        elif new is not None and new.value != old.value and max(new.src) <= max(old.src):
            problems.append(f"confirmed fact {old.key!r} changed without a newer source")
    return problems


def _fits_beside(
    kept: list[FactV2],
    fact: FactV2,
    summary: CompactionSummaryV2,
    budget: int | None,
    count_tokens: Callable[[str], int] | None,
) -> bool:
    """Whether ``fact`` fits in the budget next to the carried facts kept, with nothing else:
    a capacity drop is accepted only when the carried facts alone fill the budget."""
    if budget is None or count_tokens is None:
        return True  # no budget: no capacity to run out of
    alone = summary.model_copy(update={**_NOTHING, "facts": [*kept, fact]})
    return count_tokens(render_summary_block_v2(alone)) <= budget


_NOTHING: dict[str, list[Any]] = {
    "values": [],
    "facts": [],
    "decisions": [],
    "open_questions": [],
    "expired_questions": [],
    "dropped_facts": [],
    "tools": [],
}


def _budget_problems(
    summary: CompactionSummaryV2, budget: int | None, count_tokens: Callable[[str], int] | None
) -> list[str]:
    if budget is None:
        return []
    if count_tokens is None:
        raise ValueError("validate_summary_v2 needs count_tokens to check a budget")
    used = count_tokens(render_summary_block_v2(summary))
    return (
        [f"the summary takes {used} tokens, over its budget of {budget}"] if used > budget else []
    )
