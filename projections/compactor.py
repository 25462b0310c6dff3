"""One compaction attempt: the pure plan, the summarizer (timed; a failure is a rejection,
never a crash), and the gate's verdict, ready to append. The session appends it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from eventstore import RecordedEvent
from projections.context.budget import Budget
from projections.session.compaction import (
    CompactionOptions,
    CompactionPlan,
    judge,
    plan_compaction,
)
from projections.session.events import SummaryCommitted, SummaryRejected
from projections.session.state import SessionState
from projections.summaries.offline import OfflineSummarizer
from projections.summaries.summarizer import (
    Summarizer,
    SummarizerFunction,
    SummaryResult,
    as_summarizer,
)

__all__ = ["CompactionAttempt", "CompactionOutcome", "attempt_compaction"]


class CompactionOutcome(BaseModel):
    """What ``compact`` did: ``committed``, ``rejected`` or ``not_needed``, and the event."""

    model_config = ConfigDict(frozen=True)

    result: str
    summary_version: int | None = None
    failed_checks: list[str] = []
    event: RecordedEvent | None = None
    proposed: list[str] = []  # memory proposals made from the summary's long-term facts


@dataclass(frozen=True)
class CompactionAttempt:
    """A planned attempt and the event it records."""

    plan: CompactionPlan
    verdict: SummaryCommitted | SummaryRejected

    def outcome(self, event: RecordedEvent, proposed: list[str]) -> CompactionOutcome:
        """The outcome once ``event`` (the verdict) is recorded."""
        if isinstance(self.verdict, SummaryRejected):
            return CompactionOutcome(
                result="rejected",
                summary_version=self.plan.version,
                failed_checks=self.verdict.failed_checks,
                event=event,
            )
        return CompactionOutcome(
            result="committed", summary_version=self.plan.version, event=event, proposed=proposed
        )


async def attempt_compaction(
    state: SessionState,
    budget: Budget,
    options: CompactionOptions,
    summarizer: Summarizer | SummarizerFunction | None,
    count: Callable[[str], int],
) -> CompactionAttempt | None:
    """Plan, summarise and judge; None when there is nothing to compact."""
    plan = plan_compaction(state.cut(), budget, options, count=count, now=datetime.now(UTC))
    if plan is None:
        return None
    chosen = as_summarizer(summarizer) if summarizer is not None else OfflineSummarizer()
    began = time.perf_counter()
    result: SummaryResult | None
    try:
        result, problem = await chosen.summarize(plan.request), None
    except Exception as error:  # a failing summarizer is a rejected summary, never a crash
        result, problem = None, f"{type(error).__name__}: {error}"
    verdict = judge(
        plan,
        result,
        problem=problem,
        latency_ms=(time.perf_counter() - began) * 1000,
        summarizer=chosen.name,
        model=chosen.model,
        count=count,
    )
    return CompactionAttempt(plan, verdict)
