"""The seed's own example summary, in the literal form the seed gives (an integer
``schema_version: 1``, open questions as plain strings), passes the gate against the seed's
trip once normalised; every corruption of it is refused, and the check that refuses it is
named."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from projections import validate_summary
from projections.context.tokens import TiktokenCounter
from projections.errors import SummarizerError
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.model_output import normalize_seed_form, summary_from_output
from projections.summaries.schema_v2 import Coverage
from projections.summaries.summarizer import SummaryRequest
from tests.projections.summaries.test_validation import TRIP

COUNT = TiktokenCounter().count_text
VERSIONS = list(range(1, len(TRIP) + 1))
SOURCES = dict(zip(VERSIONS, TRIP, strict=True))
COVERAGE = Coverage(ranges=[(1, len(TRIP))], count=len(TRIP), digest="a" * 64)


def seed_summary() -> dict[str, Any]:
    """The seed's example, as the seed writes it."""
    return {
        "schema_version": 1,
        "source_message_ids": ["m1", "m2", "m3", "m4", "m5"],
        "facts": [
            {"key": "depart", "value": "2026-09-19 morning from Shanghai",
             "status": "confirmed", "confidence": 0.95, "source_ids": ["m2"]},
            {"key": "budget.one_way", "value": "单程不超过 200 元", "status": "confirmed",
             "confidence": 0.95, "source_ids": ["m2"]},
            {"key": "return.deadline", "value": "back in Shanghai before 18:00 on 2026-09-20",
             "status": "confirmed", "confidence": 0.9, "source_ids": ["m2"]},
            {"key": "auto_booking", "value": "不自动购票", "status": "confirmed",
             "confidence": 1.0, "source_ids": ["m2"]},
            {"key": "insurance", "value": "does not want insurance", "status": "confirmed",
             "confidence": 1.0, "source_ids": ["m2"]},
        ],
        "decisions": [
            {"text": "排除 G123：到达时间晚于计划 (excluded G123: arrives later)",
             "source_ids": ["m5"]},
        ],
        "open_questions": ["Shall I hold a seat on G7311?"],
        "tool_result_digests": [],
        "created_at": "2026-09-18T08:30:00Z",
    }  # fmt: skip


def request(budget: int = 2000) -> SummaryRequest:
    return SummaryRequest(
        previous=None,
        chunk=TRIP,
        budget_tokens=budget,
        created_at=datetime(2026, 9, 18, 8, 30, tzinfo=UTC),
        count_tokens=COUNT,
        versions=VERSIONS,
        coverage=COVERAGE,
    )


def judge(data: dict[str, Any], budget: int = 2000) -> list[str]:
    """The checks that refuse a summary ("summarizer" when it cannot even be read)."""
    try:
        summary = summary_from_output(data, request(budget))
    except SummarizerError:
        return ["summarizer"]
    report = validate_summary_v2(
        summary, SOURCES, coverage=COVERAGE, budget=budget, count_tokens=COUNT
    )
    return report.failed()


def test_the_seeds_own_summary_passes() -> None:
    summary = summary_from_output(seed_summary(), request())
    assert summary.schema_version == "compaction_summary.v2"
    assert [q.text for q in summary.open_questions] == ["Shall I hold a seat on G7311?"]
    assert summary.open_questions[0].src == [5]  # attributed to the message that asks it
    assert judge(seed_summary()) == []


def fact(data: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in data["facts"] if f["key"] == key)
    return found


@pytest.mark.parametrize(
    ("corruption", "check"),
    [
        ("wrong hour", "quantities"),
        ("wrong date", "quantities"),
        ("flipped negation", "negation"),
        ("changed amount", "quantities"),
        ("foreign source", "summarizer"),
        ("over budget", "budget"),
    ],
)
def test_every_corruption_is_refused(corruption: str, check: str) -> None:
    data, budget = corrupted(corruption)
    assert check in judge(data, budget)


def corrupted(corruption: str) -> tuple[dict[str, Any], int]:
    """The seed's summary with one corruption, and the budget to judge it at."""
    data, budget = seed_summary(), 2000
    if corruption == "wrong hour":
        fact(data, "return.deadline")["value"] = "back in Shanghai before 19:00 on 2026-09-20"
    elif corruption == "wrong date":
        fact(data, "depart")["value"] = "2026-09-18 morning from Shanghai"
    elif corruption == "flipped negation":
        fact(data, "auto_booking")["value"] = "自动购票"
    elif corruption == "changed amount":
        fact(data, "budget.one_way")["value"] = "单程不超过 300 元"
    elif corruption == "foreign source":
        data["decisions"][0]["source_ids"] = ["m99"]
    elif corruption == "question nobody asked":
        data["open_questions"] = ["Shall I book the 21:00 sleeper?"]
    else:
        budget = 20
    return data, budget


def public_checks(data: dict[str, Any], budget: int = 2000) -> list[str]:
    """The checks ``projections.validate_summary``, the public name, refuses the form with."""
    report = validate_summary(data, TRIP, budget=budget, count_tokens=COUNT)
    return report.failed()


def test_the_public_validate_summary_accepts_the_seeds_literal_form() -> None:
    assert public_checks(seed_summary()) == []
    # a plain-string question cites the message that asks it
    data = normalize_seed_form(seed_summary(), TRIP)
    assert data["schema_version"] == "compaction_summary.v1"
    assert data["open_questions"] == [
        {"text": "Shall I hold a seat on G7311?", "source_ids": ["m5"]}
    ]


@pytest.mark.parametrize(
    ("corruption", "check"),
    [
        ("wrong hour", "quantities"),
        ("flipped negation", "negation"),
        ("changed amount", "quantities"),
        ("foreign source", "source_ids"),
        ("question nobody asked", "schema"),
        ("over budget", "budget"),
    ],
)
def test_the_public_validate_summary_still_refuses_corruptions(corruption: str, check: str) -> None:
    data, budget = corrupted(corruption)
    assert check in public_checks(data, budget)
