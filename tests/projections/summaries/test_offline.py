"""The offline summarizer: deterministic, rolling, within budget, and accepted by the gate."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

from projections.context.formats import to_messages
from projections.context.messages import Message
from projections.summaries.block import render_summary_block
from projections.summaries.offline import offline_summarizer
from projections.summaries.sanitize import sanitize_messages
from projections.summaries.schema import CompactionSummary
from projections.summaries.summarizer import SummaryRequest
from projections.summaries.validation import validate_summary
from tests.projections.summaries.test_validation import TRIP

WHEN = datetime(2026, 9, 18, 8, 30, tzinfo=UTC)


def words(text: str) -> int:
    return len(text.split())


def summarise(
    chunk: list[Message], previous: CompactionSummary | None = None, budget: int = 5000
) -> CompactionSummary:
    request = SummaryRequest(
        previous=previous, chunk=chunk, budget_tokens=budget, created_at=WHEN, count_tokens=words
    )
    return asyncio.run(offline_summarizer(request))


def test_keeps_what_must_survive_and_passes_the_gate() -> None:
    summary = summarise(TRIP)
    values = " | ".join(fact.value for fact in summary.facts)
    assert "200 元" in values
    assert "18 点前" in values
    assert "不自动购票" in values
    assert "do not want insurance" in values
    assert [d.text for d in summary.decisions] == [
        "I excluded G123: it arrives later than planned."
    ]
    assert [q.text for q in summary.open_questions] == ["Shall I hold a seat on G7311?"]
    assert [d.tool_call_id for d in summary.tool_result_digests] == ["c1"]
    assert "search_trains" in summary.tool_result_digests[0].digest
    report = validate_summary(summary, TRIP, budget=5000, count_tokens=words)
    assert report.ok, report.checks


def test_same_input_same_bytes() -> None:
    first = render_summary_block(summarise(TRIP))
    assert all(render_summary_block(summarise(TRIP)) == first for _ in range(3))


def test_rolling_carries_forward_and_closes_answered_questions() -> None:
    first = summarise(TRIP)
    answer = Message(id="m6", role="user", content="Yes, hold a seat on G7311 please.")
    second = summarise([answer], previous=first)
    assert second.source_message_ids == [*first.source_message_ids, "m6"]
    assert [f.key for f in second.facts][: len(first.facts)] == [f.key for f in first.facts]
    assert second.open_questions == []
    report = validate_summary(
        second, [*TRIP, answer], parent=first, budget=5000, count_tokens=words
    )
    assert report.ok, report.checks


def test_budget_is_respected_by_dropping_tentative_items_first() -> None:
    full = summarise(TRIP)
    budget = words(render_summary_block(full)) - 10
    fitted = summarise(TRIP, budget=budget)
    assert words(render_summary_block(fitted)) <= budget
    assert {f.key for f in fitted.facts if f.status == "confirmed"} == {
        f.key for f in full.facts if f.status == "confirmed"
    }


def test_tau_bench_summaries_pass_the_gate(corpora: Path) -> None:
    runs = json.loads((corpora / "tau-bench-airline" / "gpt-4o-airline.json").read_text())
    passed = 0
    for run in runs:
        messages = to_messages("openai", run["traj"])
        messages = [m.model_copy(update={"id": f"m{i}"}) for i, m in enumerate(messages)]
        chunk = messages[1 : len(messages) // 2]  # after the system prefix, the older half
        clean, _ = sanitize_messages(chunk, count_tokens=words)
        summary = summarise(clean, budget=100_000)
        report = validate_summary(summary, clean, budget=100_000, count_tokens=words)
        passed += report.ok
    assert passed == len(runs)
