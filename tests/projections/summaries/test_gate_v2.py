"""The v2 gate refuses what is wrong and only that: no summary the offline summarizer builds
from the sources' own values is refused (property test, and the public corpora), and injected
damage is caught (a changed digit, a flipped negation, an instruction, a fabricated value, a
wrong coverage, a citation outside the coverage)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.context.messages import Message
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import Coverage
from projections.summaries.summarizer import SummaryRequest
from tests.benchmarks.gate_damage import run

WORDS = ["flight", "budget", "train", "hotel", "seat", "Hangzhou", "Omar", "booking", "bags"]
IDS = st.from_regex(r"[A-Z]{2,3}\d{2,4}|[a-z]{3,6}_[a-z]{3,6}_\d{3,5}", fullmatch=True)
DATES = st.dates().map(lambda d: d.isoformat())
AMOUNTS = st.integers(1, 5000).map(lambda n: f"${n}")
TIMES = st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]:02d}:{t[1]:02d}")
ORDINALS = st.integers(1, 31).map(
    lambda n: f"the {n}{'th' if 10 <= n <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
)
PIECES = st.one_of(IDS, DATES, AMOUNTS, TIMES, ORDINALS, st.sampled_from(WORDS))
SENTENCE = st.tuples(
    st.sampled_from(["I need", "I do not want", "Please keep", "We never take", "It is", "不要"]),
    st.lists(PIECES, min_size=1, max_size=5),
    st.sampled_from([".", "?", "!"]),
).map(lambda t: f"{t[0]} {' '.join(t[1])}{t[2]}")
USER = st.lists(SENTENCE, min_size=1, max_size=3).map(" ".join)
RESULT = st.dictionaries(
    st.sampled_from(["reservation_id", "date", "price", "flight_number", "name"]),
    PIECES,
    min_size=1,
    max_size=4,
).map(json.dumps)


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    for turn in range(draw(st.integers(1, 6))):
        messages.append(Message(id=f"u{turn}", role="user", content=draw(USER)))
        if draw(st.booleans()):
            call = {"id": f"c{turn}", "name": "lookup", "arguments": draw(RESULT)}
            messages.append(Message(id=f"a{turn}c", role="assistant", tool_calls=[call]))
            messages.append(
                Message(id=f"t{turn}", role="tool", tool_call_id=f"c{turn}", content=draw(RESULT))
            )
        messages.append(Message(id=f"a{turn}", role="assistant", content=draw(USER)))
    return messages


def words(text: str) -> int:
    return len(text.split())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations())
def test_summaries_built_from_the_sources_own_values_are_never_refused(
    messages: list[Message],
) -> None:
    versions = list(range(1, len(messages) + 1))
    coverage = Coverage(ranges=[(1, len(messages))], count=len(messages), digest="0" * 64)
    request = SummaryRequest(
        previous=None,
        chunk=messages,
        budget_tokens=10_000,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        count_tokens=words,
        versions=versions,
        coverage=coverage,
    )
    summary = summarize_v2(request)
    report = validate_summary_v2(
        summary, dict(zip(versions, messages, strict=True)), coverage=coverage
    )
    assert {"values", "quantities", "negation", "sources"} & set(report.failed()) == set(), (
        report.checks
    )


def test_no_false_refusal_and_damage_caught_on_the_corpora(corpora: Path) -> None:
    results = run(limit=3, trials=3)
    assert results["summaries"] >= 9
    assert results["false_refusals"] == 0
    caught = results["caught"]
    assert caught["changed digit"] >= 0.97
    for kind in ("flipped negation", "instruction", "fabricated value", "wrong coverage"):
        assert caught[kind] == 1.0, kind
    assert caught["outside coverage"] == 1.0
