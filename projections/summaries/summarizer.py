"""The summarizer seam: what a summarizer gets, what it returns, and the protocol it keeps.

A summarizer has a ``name``, the ``model`` it uses (None for the offline one), and an async
``summarize(request)`` that returns a :class:`SummaryResult`: the summary and the model's usage
(tokens), both recorded in the ``SummaryCommitted`` event. A plain async function from a request
to a summary works too, wrapped by :func:`as_summarizer`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from projections.context.messages import Message
from projections.summaries.schema import CompactionSummary
from projections.summaries.schema_v2 import SCHEMA_V2, CompactionSummaryV2, Coverage

__all__ = [
    "AnySummary",
    "FunctionSummarizer",
    "Summarizer",
    "SummarizerFunction",
    "SummaryRequest",
    "SummaryResult",
    "as_summarizer",
    "parse_summary",
]


#: A summary of either schema: v1 (old logs) or v2 (written now).
AnySummary = CompactionSummary | CompactionSummaryV2


def parse_summary(data: Any) -> AnySummary:
    """A stored summary of either schema, chosen by its ``schema_version``."""
    if isinstance(data, CompactionSummary | CompactionSummaryV2):
        return data
    if isinstance(data, dict) and data.get("schema_version") == SCHEMA_V2:
        return CompactionSummaryV2.model_validate(data)
    return CompactionSummary.model_validate(data)


@dataclass(frozen=True)
class SummaryRequest:
    """What a summarizer gets: the previous summary (rolling), a bounded chunk of sanitised
    messages leaving the window, a token budget, and the time to stamp the summary with.

    For ``compaction_summary.v2`` (``schema``), also the session version of each chunk message
    (items cite versions) and the coverage the summary must state (the previous coverage and
    the chunk, with the digest of their events' hashes).
    """

    previous: AnySummary | None
    chunk: Sequence[Message]
    budget_tokens: int
    created_at: datetime
    count_tokens: Callable[[str], int]
    versions: Sequence[int] = ()
    coverage: Coverage | None = None
    schema: str = SCHEMA_V2


@dataclass(frozen=True)
class SummaryResult:
    """A summarizer's answer: the summary and what producing it cost (the model's usage,
    e.g. ``{"prompt_tokens": …, "completion_tokens": …, "total_tokens": …}``)."""

    summary: AnySummary
    usage: dict[str, Any] | None = None


@runtime_checkable
class Summarizer(Protocol):
    """Turns a :class:`SummaryRequest` into a :class:`SummaryResult`."""

    @property
    def name(self) -> str:
        """The summarizer's name, recorded with each summary."""
        ...

    @property
    def model(self) -> str | None:
        """The model it calls (None: no model)."""
        ...

    async def summarize(self, request: SummaryRequest) -> SummaryResult:
        """Summarise the request (raise to refuse: the attempt is recorded as rejected)."""
        ...


#: A summarizer as a plain async function from a request to a summary.
SummarizerFunction = Callable[[SummaryRequest], Awaitable[AnySummary]]


class FunctionSummarizer:
    """A :class:`Summarizer` around an async function (no model, no usage)."""

    def __init__(self, function: SummarizerFunction, *, name: str | None = None) -> None:
        self.function = function
        self._name = name or str(getattr(function, "__name__", "summarizer"))

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str | None:
        return None

    async def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(await self.function(request))


def as_summarizer(summarizer: Summarizer | SummarizerFunction) -> Summarizer:
    """A :class:`Summarizer` as it is, or a function wrapped in :class:`FunctionSummarizer`."""
    if isinstance(summarizer, Summarizer):
        return summarizer
    return FunctionSummarizer(summarizer)
