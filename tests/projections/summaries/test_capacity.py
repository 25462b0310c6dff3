"""When the carried confirmed facts alone no longer fit a summary's budget, the oldest are
dropped explicitly (``dropped_facts``) and the gate accepts that only when it is true."""

from __future__ import annotations

import pytest

from projections.context.messages import Message
from projections.summaries.block_v2 import render_summary_block_v2
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.schema_v2 import CompactionSummaryV2, Coverage, DroppedFact
from tests.projections.summaries.offline_summary import coverage_to, summary_of

CITIES = ["Chengdu", "Hangzhou", "Wuhan", "Xiamen", "Beijing", "Kunming", "Shanghai"]


def words(text: str) -> int:
    return len(text.split())


def constraints(start: int, count: int) -> list[Message]:
    return [
        Message(
            id=f"u{n}",
            role="user",
            content=f"I must be back in {CITIES[n % 7]} before 18:00 on 2024-06-{10 + n:02d}.",
        )
        for n in range(start, start + count)
    ]


def summarise(
    messages: list[Message], first: int, parent: CompactionSummaryV2 | None, budget: int
) -> tuple[CompactionSummaryV2, dict[int, Message], Coverage]:
    summary = summary_of(messages, budget, previous=parent, first=first, count_tokens=words)
    versions = range(first, first + len(messages))
    return summary, dict(zip(versions, messages, strict=True)), coverage_to(versions[-1])


@pytest.fixture
def rolled() -> tuple[CompactionSummaryV2, CompactionSummaryV2, dict[int, Message], Coverage]:
    first, first_sources, _ = summarise(constraints(0, 6), 1, None, 400)
    assert len([f for f in first.facts if f.status == "confirmed"]) == 6
    second, sources, coverage = summarise(constraints(6, 1), 7, first, 90)
    return first, second, {**first_sources, **sources}, coverage


def test_the_oldest_carried_facts_are_dropped_and_recorded(rolled: tuple) -> None:  # type: ignore[type-arg]
    first, second, sources, coverage = rolled
    assert second.dropped_facts
    dropped = {d.key for d in second.dropped_facts}
    kept = [f for f in second.facts if f.key in {g.key for g in first.facts}]
    assert max(min(f.src) for f in first.facts if f.key in dropped) < min(
        min(f.src) for f in kept
    )  # the oldest go first
    assert words(render_summary_block_v2(second)) <= 90
    report = validate_summary_v2(
        second, sources, coverage=coverage, parent=first, budget=90, count_tokens=words
    )
    assert report.ok, report.failed()


def test_a_drop_that_would_fit_is_refused(rolled: tuple) -> None:  # type: ignore[type-arg]
    first, second, sources, coverage = rolled
    report = validate_summary_v2(
        second, sources, coverage=coverage, parent=first, budget=10_000, count_tokens=words
    )
    assert report.failed() == ["carried_facts"]
    assert "dropped for capacity, but it fits" in report.reason("carried_facts")


def test_a_silent_drop_and_a_foreign_key_are_refused(rolled: tuple) -> None:  # type: ignore[type-arg]
    first, second, sources, coverage = rolled
    silent = second.model_copy(update={"dropped_facts": []})
    foreign = second.model_copy(
        update={"dropped_facts": [*second.dropped_facts, DroppedFact(key="made.up", src=[1])]}
    )
    for summary, reason in ((silent, "was dropped"), (foreign, "not a confirmed fact")):
        report = validate_summary_v2(
            summary, sources, coverage=coverage, parent=first, budget=90, count_tokens=words
        )
        assert "carried_facts" in report.failed()
        assert reason in report.reason("carried_facts")
