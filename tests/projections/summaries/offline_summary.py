"""One offline v2 summary of a chunk, for tests that need a real one to read or damage."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2, Coverage
from projections.summaries.summarizer import SummaryRequest

COUNT = TiktokenCounter().count_text


def summary_of(
    chunk: list[Message],
    budget: int,
    *,
    previous: CompactionSummaryV2 | None = None,
    first: int = 1,
    count_tokens: Callable[[str], int] = COUNT,
) -> CompactionSummaryV2:
    """The offline v2 summary of ``chunk`` (versions ``first``.., dated 2019-03-01) in
    ``budget``, rolled over ``previous`` if given; coverage runs from version 1."""
    versions = list(range(first, first + len(chunk)))
    return summarize_v2(
        SummaryRequest(
            previous=previous,
            chunk=chunk,
            budget_tokens=budget,
            created_at=datetime(2019, 3, 1, tzinfo=UTC),
            count_tokens=count_tokens,
            versions=versions,
            coverage=coverage_to(versions[-1]),
        )
    )


def coverage_to(last: int) -> Coverage:
    """Coverage of versions 1..``last`` (the digest is not checked by these tests)."""
    return Coverage(ranges=[(1, last)], count=last, digest="0" * 64)
