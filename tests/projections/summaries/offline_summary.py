"""One offline v2 summary of a chunk, for tests that need a real one to read or damage."""

from __future__ import annotations

from datetime import UTC, datetime

from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2, Coverage
from projections.summaries.summarizer import SummaryRequest

COUNT = TiktokenCounter().count_text


def summary_of(chunk: list[Message], budget: int) -> CompactionSummaryV2:
    """The offline v2 summary of ``chunk`` (versions 1..n, dated 2019-03-01) in ``budget``."""
    versions = list(range(1, len(chunk) + 1))
    return summarize_v2(
        SummaryRequest(
            previous=None,
            chunk=chunk,
            budget_tokens=budget,
            created_at=datetime(2019, 3, 1, tzinfo=UTC),
            count_tokens=COUNT,
            versions=versions,
            coverage=Coverage(ranges=[(1, len(chunk))], count=len(chunk), digest="0" * 64),
        )
    )
