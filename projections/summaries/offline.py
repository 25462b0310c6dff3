"""The deterministic offline summarizer of ``compaction_summary.v1`` (kept for reading and
re-validating old logs; new summaries are v2, see ``offline_v2``): no model, the same request
gives the same bytes.

It carries the previous summary forward and keeps, verbatim, the clauses of the new chunk that
must survive compaction: those with dates, times, numbers or amounts, negated constraints
("不自动购票", "do not want insurance"), decisions and exclusions with their reasons
("排除 G123：到达时间晚于计划"), questions nobody has answered yet, and one digest per tool result
(tool, arguments, key values). Verbatim clauses keep their numbers and their polarity, which is
what the validation gate checks. Pure apart from being ``async`` (the summarizer interface).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from projections.context.messages import Message, text_of
from projections.summaries.block import render_summary_block
from projections.summaries.normalize import clauses, has_negation, quantities, terms
from projections.summaries.schema import (
    CompactionSummary,
    Decision,
    Fact,
    OpenQuestion,
    ToolDigest,
)
from projections.summaries.summarizer import SummaryRequest

__all__ = ["offline_summarizer"]

_DECISION = re.compile(
    r"(?i)\b(?:exclud(?:e|ed|ing)|decid(?:e|ed)|chose|choose|will take|go with|rule[sd]? out|"
    r"pick(?:ed)?)\b|排除|选择|决定|改为|改成|选定"
)
_QUESTION = re.compile(r"[?？]\s*$|吗\s*[。]?$")
_DIGEST_CHARS = 240


def _facts_and_decisions(chunk: Sequence[Message]) -> tuple[list[Fact], list[Decision]]:
    facts: list[Fact] = []
    decisions: list[Decision] = []
    seen: set[str] = set()  # the same clause repeated is kept once
    for message in chunk:
        if message.role not in ("user", "assistant", "system", "developer"):
            continue
        for index, clause in enumerate(clauses(text_of(message)), start=1):
            if _QUESTION.search(clause):
                continue
            if _DECISION.search(clause):
                decisions.append(Decision(text=clause, source_ids=[message.id]))
            elif (quantities(clause) or has_negation(clause)) and clause not in seen:
                seen.add(clause)
                facts.append(
                    Fact(
                        key=f"{message.id}#{index}",
                        value=clause,
                        status="confirmed" if message.role == "user" else "tentative",
                        confidence=0.9 if message.role == "user" else 0.7,
                        source_ids=[message.id],
                    )
                )
    return facts, decisions


def _open_questions(
    previous: Sequence[OpenQuestion], chunk: Sequence[Message]
) -> list[OpenQuestion]:
    """Questions not yet answered: a question counts as answered once a later message of the
    other party shares a term with it."""
    asked: list[tuple[int, str, OpenQuestion]] = [(-1, "", q) for q in previous]
    for position, message in enumerate(chunk):
        for clause in clauses(text_of(message)):
            if _QUESTION.search(clause):
                asked.append(
                    (position, message.role, OpenQuestion(text=clause, source_ids=[message.id]))
                )
    still_open = []
    for position, role, question in asked:
        wanted = terms(question.text)
        answered = any(
            later.role in ("user", "assistant")
            and later.role != role
            and wanted & terms(text_of(later))
            for later in chunk[position + 1 :]
        )
        if not answered:
            still_open.append(question)
    return still_open


def _digests(chunk: Sequence[Message]) -> list[ToolDigest]:
    calls = {call.id: call for message in chunk for call in message.tool_calls}
    digests = []
    for message in chunk:
        if message.role != "tool" or not message.tool_call_id:
            continue
        call = calls.get(message.tool_call_id)
        head = f"{call.name}({call.arguments})" if call else "tool"
        result = " ".join(text_of(message).split())
        if len(result) > _DIGEST_CHARS:
            result = result[: _DIGEST_CHARS - 1] + "…"
        digests.append(ToolDigest(tool_call_id=message.tool_call_id, digest=f"{head}: {result}"))
    return digests


async def offline_summarizer(request: SummaryRequest) -> CompactionSummary:
    """Summarise ``request.chunk`` on top of ``request.previous``, deterministically.

    When the result would exceed ``budget_tokens``, the least important items are left out
    first (see ``_fit``); constraints, dates, times and amounts go last. The validation gate
    still has the last word.
    """
    previous = request.previous if isinstance(request.previous, CompactionSummary) else None
    facts, decisions = _facts_and_decisions(request.chunk)
    covered = list(previous.source_message_ids) if previous else []
    covered += [m.id for m in request.chunk if m.id not in covered]
    summary = CompactionSummary(
        source_message_ids=covered,
        facts=[*(previous.facts if previous else []), *facts],
        decisions=[*(previous.decisions if previous else []), *decisions],
        open_questions=_open_questions(previous.open_questions if previous else [], request.chunk),
        tool_result_digests=[
            *(previous.tool_result_digests if previous else []),
            *_digests(request.chunk),
        ],
        created_at=request.created_at,
    )
    return _fit(summary, request.budget_tokens, request.count_tokens)


_UNIT = re.compile(
    r"(?i)\d\s*(?:元|块|cny|rmb|usd|eur|gbp|dollars?|euros?|%|km|kg|bags?)|[¥$€£]\s*\d"
)


def _importance(fact: Fact) -> int:
    """2: a constraint or a date/time/amount; 1: another confirmed fact; 0: tentative."""
    found = quantities(fact.value)
    if (
        has_negation(fact.value)
        or _UNIT.search(fact.value)
        or any(token.startswith(("date:", "time:")) for token in found)
    ):
        return 2
    return 1 if fact.status == "confirmed" else 0


def _fit(
    summary: CompactionSummary, budget: int, count_tokens: Callable[[str], int]
) -> CompactionSummary:
    """Leave out the least important items, newest first, until the block fits: plain
    tentative facts, then tool digests, then plain confirmed facts, then the rest of the
    facts, then the oldest open questions and decisions."""
    while count_tokens(render_summary_block(summary)) > budget:
        facts = list(summary.facts)
        ranked = sorted(range(len(facts)), key=lambda i: (_importance(facts[i]), -i))
        if ranked and _importance(facts[ranked[0]]) < 2:
            del facts[ranked[0]]
            summary = summary.model_copy(update={"facts": facts})
        elif summary.tool_result_digests:
            summary = summary.model_copy(
                update={"tool_result_digests": list(summary.tool_result_digests[:-1])}
            )
        elif ranked:
            del facts[ranked[0]]
            summary = summary.model_copy(update={"facts": facts})
        elif summary.open_questions:
            summary = summary.model_copy(
                update={"open_questions": list(summary.open_questions[1:])}
            )
        elif summary.decisions:
            summary = summary.model_copy(update={"decisions": list(summary.decisions[1:])})
        else:
            break
    return summary
