"""The deterministic offline summarizer for ``compaction_summary.v2``: no model, the same request
gives the same bytes. Pure apart from being ``async`` (the summarizer interface).

It merges the previous summary with what the chunk established:

- facts: user constraints verbatim (confirmed), assistant statements (tentative); a fact of the
  previous version stays unless a newer one with the same key supersedes it, or unless the
  carried facts alone no longer fit the budget: then the oldest are dropped, recorded in
  ``dropped_facts``;
- decisions with their reasons, verbatim; open questions, minus the ones answered (the shared
  ``is_answered`` rule), the oldest expiring beyond four (recorded);
- the value ledger: every identifier, code, amount, quantity, date, time, count and name, with
  its source and, from a tool result, its JSON key path; relative dates anchored to the turn's
  date;
- one line per tool call.

Everything is ranked once (constraints and decisions first, then values by who said them and
whether later turns used them again, then tool lines), each item's tokens counted once, and the
best that fit the budget are kept. Instruction-like sentences are never kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from projections.context.messages import Message, text_of
from projections.summaries.block_v2 import render_summary_block_v2, value_text
from projections.summaries.choice_patterns import CHOICE_KEY
from projections.summaries.extract import extract, open_questions
from projections.summaries.schema_v2 import (
    CompactionSummaryV2,
    DecisionV2,
    DroppedFact,
    FactV2,
    ToolDigestV2,
    Value,
)
from projections.summaries.summarizer import SummaryRequest, SummaryResult
from projections.summaries.temporal import anchor_relative_dates, message_date
from projections.summaries.values import ValueCandidate, value_candidates

__all__ = ["OfflineSummarizer", "summarize_v2"]

_CALL_CHARS = 120
_CARRIED_VALUE = 6.0  # a value of the previous version, unless new evidence scores it higher


@dataclass(frozen=True)
class _Item:
    tier: int  # 0 first
    score: float
    line: str
    item: Any


class OfflineSummarizer:
    """The offline v2 summarizer as a :class:`~projections.summaries.summarizer.Summarizer`."""

    name = "offline_summarizer"
    model = None

    async def summarize(self, request: SummaryRequest) -> SummaryResult:
        """See :func:`summarize_v2`."""
        return SummaryResult(summarize_v2(request))


def summarize_v2(request: SummaryRequest) -> CompactionSummaryV2:
    """Summarise ``request.chunk`` on top of ``request.previous`` (see the module docstring)."""
    previous = request.previous if isinstance(request.previous, CompactionSummaryV2) else None
    if request.coverage is None or len(request.versions) != len(request.chunk):
        raise ValueError("a v2 summary request needs the chunk's versions and the coverage")
    chunk, versions = list(request.chunk), list(request.versions)
    found = extract(chunk, versions)
    later = [(v, m.role, text_of(m)) for m, v in zip(chunk, versions, strict=True)]
    asked = [*(previous.open_questions if previous else []), *found.questions]
    questions, expired = open_questions(asked, later)
    draft = CompactionSummaryV2(
        coverage=request.coverage,
        facts=_merge_facts(previous.facts if previous else [], found.facts),
        decisions=_unique([*(previous.decisions if previous else []), *found.decisions]),
        open_questions=questions,
        expired_questions=expired,
        values=[],
        tools=[],
        created_at=request.created_at,
    )
    values = _values(previous, chunk, versions)
    tools = [*(previous.tools if previous else []), *_tool_lines(chunk, versions)]
    carried = {f.key for f in (previous.facts if previous else []) if f.status == "confirmed"}
    draft = _drop_for_capacity(draft, carried, request.budget_tokens, request.count_tokens)
    return _fit(draft, values, tools, request.budget_tokens, request.count_tokens, carried)


def _drop_for_capacity(
    draft: CompactionSummaryV2, carried: set[str], budget: int, count: Callable[[str], int]
) -> CompactionSummaryV2:
    """When the carried confirmed facts alone do not fit the budget, keep the newest that fit
    and record the others in ``dropped_facts`` (the gate re-checks that they do not fit)."""
    must = [fact for fact in draft.facts if fact.key in carried]

    def fits(facts: list[FactV2]) -> bool:
        alone = draft.model_copy(update={**_EMPTY, "facts": facts})
        return count(render_summary_block_v2(alone)) <= budget

    if fits(must):
        return draft
    kept: list[FactV2] = []
    for fact in sorted(must, key=lambda f: -max(f.src)):
        if fits([*kept, fact]):
            kept.append(fact)
    # By identity: equality of pydantic models compares every field, and these lists are long.
    kept_ids = {id(fact) for fact in kept}
    dropped = [fact for fact in must if id(fact) not in kept_ids]
    dropped_ids = {id(fact) for fact in dropped}
    return draft.model_copy(
        update={
            "facts": [fact for fact in draft.facts if id(fact) not in dropped_ids],
            "dropped_facts": [DroppedFact(key=f.key, src=f.src) for f in dropped],
        }
    )


def _merge_facts(carried: Sequence[FactV2], new: Sequence[FactV2]) -> list[FactV2]:
    """New facts supersede carried ones of the same key; the rest are kept, in order."""
    newest = {fact.key: fact for fact in new}
    kept = [fact for fact in carried if fact.key not in newest]
    return _unique([*kept, *new])


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: set[str] = set()
    unique = []
    for item in items:
        text = str(getattr(item, "value", None) or getattr(item, "text", ""))
        if text not in seen:
            seen.add(text)
            unique.append(item)
    return unique


def _values(
    previous: CompactionSummaryV2 | None, chunk: list[Message], versions: list[int]
) -> list[tuple[float, Value]]:
    found: dict[str, tuple[float, Value]] = {}
    carried = previous.values if previous else []
    for value in carried:
        found[value.value] = (_CARRIED_VALUE, value)
    for candidate in value_candidates(chunk, versions):
        if candidate.value not in found or found[candidate.value][0] < candidate.score:
            found[candidate.value] = (candidate.score, _as_value(candidate))
    for message, version in zip(chunk, versions, strict=True):
        when = message_date(message) if message.role in ("user", "assistant") else None
        if when is None:
            continue
        for phrase, resolved in anchor_relative_dates(text_of(message), when):
            value = Value(key=f"date.{phrase.lower()}", value=resolved, src=version, anchor=phrase)
            found.setdefault(f"{resolved}@{version}", (9.0, value))
    return list(found.values())


def _as_value(candidate: ValueCandidate) -> Value:
    return Value(key=candidate.key, value=candidate.value, src=candidate.src, path=candidate.path)


def _tool_lines(chunk: list[Message], versions: list[int]) -> list[ToolDigestV2]:
    calls = {call.id: call for message in chunk for call in message.tool_calls}
    lines = []
    for message, version in zip(chunk, versions, strict=True):
        call = calls.get(message.tool_call_id or "") if message.role == "tool" else None
        if call is None:
            continue
        arguments = _compact_json(call.arguments)
        text = f"{call.name}({arguments})"
        lines.append(ToolDigestV2(src=version, call=text[:_CALL_CHARS]))
    return lines


def _compact_json(arguments: str) -> str:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return " ".join(arguments.split())
    if isinstance(parsed, dict):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in parsed.items())
    return json.dumps(parsed, ensure_ascii=False)


def _fit(
    draft: CompactionSummaryV2,
    values: list[tuple[float, Value]],
    tools: list[ToolDigestV2],
    budget: int,
    count: Callable[[str], int],
    carried: set[str],
) -> CompactionSummaryV2:
    """Rank every item once and count each once; keep the best that fit. The block groups
    values, so it costs less than the sum of its items: the estimate is corrected once by
    the first render's measured ratio, then the choice is checked against the budget."""
    items = _ranked(draft, values, tools, carried)
    costs = [count(item.line) + 1 for item in items]
    empty = {k: v for k, v in _EMPTY.items() if k not in ("expired_questions", "dropped_facts")}
    room = budget - count(render_summary_block_v2(draft.model_copy(update=empty)))
    chosen = _greedy(items, costs, room, 1.0)
    used = count(render_summary_block_v2(_assemble(draft, chosen))) - (budget - room)
    picked = {id(item) for item in chosen}
    estimated = sum(cost for item, cost in zip(items, costs, strict=True) if id(item) in picked)
    if chosen and 0 < used < estimated:
        chosen = _greedy(items, costs, room, used / estimated)
    summary = _assemble(draft, chosen)
    while count(render_summary_block_v2(summary)) > budget and chosen:
        chosen = chosen[: len(chosen) * 19 // 20]  # the correction overshot: trim the tail
        summary = _assemble(draft, chosen)
    return summary


def _greedy(items: list[_Item], costs: list[int], room: int, scale: float) -> list[_Item]:
    chosen = []
    left = float(room)
    for item, cost in zip(items, costs, strict=True):
        if cost * scale <= left:
            chosen.append(item)
            left -= cost * scale
    return chosen


_EMPTY: dict[str, list[Any]] = {
    "facts": [],
    "decisions": [],
    "open_questions": [],
    "expired_questions": [],
    "dropped_facts": [],
    "values": [],
    "tools": [],
}


def _fact_line(fact: FactV2) -> str:
    return f"fact {fact.key}: {fact.value} @{fact.src[0]}"


def _fact_score(fact: FactV2, said: dict[int, list[str]]) -> float:
    """A user's statement that holds one of its message's values (a name, number, date, code:
    what a later turn can act on) ranks under the user's values themselves, which say the
    same in a few tokens where the statement takes 20-50, and over an open question; one that
    holds none ranks under every such value and question (an opinion, a reflection). Measured
    on the three corpora (docs/quality.md, "A statement yields to its values"). An assistant's
    statement holding a value stays at 5; one holding none ("please let me know which option
    you would like") ranks under every value, a tool's too, and over the tool lines
    (docs/quality.md, "An assistant's statement without a value")."""
    holds = any(value in fact.value for src in fact.src for value in said.get(src, ()))
    if fact.status != "confirmed":
        return _ASSISTANT_WITH_VALUE if holds else _ASSISTANT_BARE
    return _STATEMENT_WITH_VALUE if holds else _BARE_STATEMENT


#: A user's statement holding a value: under the user's values (11-13), over an open question
#: (9). Measured at 12.5 (over the values: BFCL 62.8% / 48.3% of gold at 4x / 8x), 10.9, 9.5
#: and 8.5 (69.0% / 51.0-51.7%, the rest within 0.6 points).
_STATEMENT_WITH_VALUE = 9.5

#: A user's statement without a value: under an open question (9) and the user's values
#: (11-13), over a decision without its reason (7). Scores 7 to 10 measured alike.
_BARE_STATEMENT = 8.0

#: An assistant's statement (tentative): with one of its message's values, under a decision
#: without its reason (7); without one, under every value (a tool's start at 3).
_ASSISTANT_WITH_VALUE = 5.0
_ASSISTANT_BARE = 2.5


def _values_by_source(values: list[tuple[float, Value]]) -> dict[int, list[str]]:
    """Each source version's values, as its text says them (the user's phrase for a date
    anchored from it)."""
    said: dict[int, list[str]] = {}
    for _, value in values:
        if value.path is None and value.key.partition(".")[0] == CHOICE_KEY:
            # A choice is said by its statement: it makes no statement rank higher. (A tool
            # result's value has a JSON path, and its key may open with "choice" too.)
            continue
        said.setdefault(value.src, []).append(value.anchor or value.value)
    return said


def _ranked(
    draft: CompactionSummaryV2,
    values: list[tuple[float, Value]],
    tools: list[ToolDigestV2],
    carried: set[str],
) -> list[_Item]:
    # Tier 0: the previous version's confirmed facts (they must be carried); then everything
    # by score: a decision with its reason (12) ranks with the user's own values (11-13), then
    # a user's statement holding a value 9.5, an open question 9, a user's statement holding
    # no value 8, an assistant's 5 (2.5 without a value), tool values 3-11, tool lines last.
    # Carried facts go newest first, as the capacity drop keeps them.
    said = _values_by_source(values)
    items = [
        _Item(0, max(f.src) / 1e9, _fact_line(f), f) if f.key in carried
        else _Item(2, _fact_score(f, said), _fact_line(f), f)
        for f in draft.facts
    ]  # fmt: skip
    items += [
        _Item(2, (12.0 if d.reason else 7.0) - i / 1000, _decision_line(d), d)
        for i, d in enumerate(draft.decisions)
    ]
    items += [
        _Item(2, 9.0 - i / 1000, f"open {q.text} @{q.src[0]}", q)
        for i, q in enumerate(draft.open_questions)
    ]
    items += [_Item(2, score, f"{value_text(v)};", v) for score, v in values]
    items += [_Item(4, t.src, f"tool @{t.src} {t.call}", t) for t in tools]
    return sorted(items, key=lambda item: (item.tier, -item.score))


def _decision_line(decision: DecisionV2) -> str:
    reason = f" because {decision.reason}" if decision.reason else ""
    return f"decision {decision.text}{reason} @{decision.src[0]}"


def _assemble(draft: CompactionSummaryV2, chosen: list[_Item]) -> CompactionSummaryV2:
    picked = {id(item.item) for item in chosen}

    def keep(items: Iterable[Any]) -> list[Any]:
        return [item for item in items if id(item) in picked]

    # A question left out for room expires explicitly (the gate accepts nothing silent).
    dropped = [q for q in draft.open_questions if id(q) not in picked]
    return draft.model_copy(
        update={
            "facts": keep(draft.facts),
            "decisions": keep(draft.decisions),
            "open_questions": keep(draft.open_questions),
            "expired_questions": [*draft.expired_questions, *dropped],
            "values": sorted(
                (i.item for i in chosen if isinstance(i.item, Value)),
                key=lambda v: (v.src, v.key),
            ),
            "tools": sorted(
                (i.item for i in chosen if isinstance(i.item, ToolDigestV2)),
                key=lambda t: t.src,
            ),
        }
    )
