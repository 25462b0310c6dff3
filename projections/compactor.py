"""One compaction attempt: the pure plan, the summarizer (timed; a failure is a rejection,
never a crash), and the gate's verdict, ready to append. The session appends it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from eventstore import RecordedEvent
from projections.context.budget import Budget
from projections.context.tokens import TokenCounter
from projections.session.compaction import (
    CompactionOptions,
    CompactionPlan,
    Skip,
    plan_compaction,
)
from projections.session.events import SessionEvent, SummaryCommitted, SummaryRejected
from projections.session.judge import judge
from projections.session.state import SessionState
from projections.summaries.offline_v2 import OfflineSummarizer
from projections.summaries.summarizer import (
    Summarizer,
    SummarizerFunction,
    SummaryResult,
    as_summarizer,
)

__all__ = ["CompactionAttempt", "CompactionOutcome", "attempt_compaction", "compact_session"]


class CompactingSession(Protocol):
    """What compaction uses of a session."""

    @property
    def counter(self) -> TokenCounter: ...

    async def latest(self) -> SessionState: ...

    async def append_events(
        self, events: Sequence[SessionEvent], *, expected_version: int | None = None
    ) -> list[RecordedEvent]: ...

    async def propose_summary_facts(self, committed: SummaryCommitted) -> list[str]: ...


class CompactionOutcome(BaseModel):
    """What ``compact`` did: ``committed``, ``rejected``, ``not_needed`` or ``backoff``.

    ``reached_trigger`` says whether the rendered context is now at or under the trigger, and
    ``why_not`` why it is not (the prefix, pins and last groups alone are too big, say).
    """

    model_config = ConfigDict(frozen=True)

    result: str
    summary_version: int | None = None
    failed_checks: list[str] = []
    event: RecordedEvent | None = None
    events: list[RecordedEvent] = []  # every summary event of this call (rolling steps)
    proposed: list[str] = []  # memory proposals made from the summary's long-term facts
    reason: str | None = None
    tokens_after: int | None = None
    reached_trigger: bool | None = None
    why_not: str | None = None


@dataclass(frozen=True)
class CompactionAttempt:
    """A planned attempt and the event it records."""

    plan: CompactionPlan
    verdict: SummaryCommitted | SummaryRejected

    def outcome(self, events: list[RecordedEvent], proposed: list[str]) -> CompactionOutcome:
        """The outcome once the verdicts are recorded (``events[-1]`` is this one's)."""
        verdict = self.verdict
        if isinstance(verdict, SummaryRejected):
            return CompactionOutcome(
                result="rejected",
                summary_version=self.plan.version,
                failed_checks=verdict.failed_checks,
                event=events[-1],
                events=events,
                reason=verdict.reason,
            )
        return CompactionOutcome(
            result="committed",
            summary_version=self.plan.version,
            event=events[-1],
            events=events,
            proposed=proposed,
            tokens_after=verdict.tokens_after,
            reached_trigger=verdict.reached_trigger,
            why_not=verdict.why_not,
        )


async def attempt_compaction(
    state: SessionState,
    budget: Budget,
    options: CompactionOptions,
    summarizer: Summarizer | SummarizerFunction | None,
    count: Callable[[str], int],
) -> CompactionAttempt | Skip:
    """Plan, summarise and judge; a :class:`Skip` when there is nothing to do now."""
    plan = plan_compaction(state.cut(), budget, options, count=count, now=datetime.now(UTC))
    if isinstance(plan, Skip):
        return plan
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


async def compact_session(
    session: CompactingSession,
    budget: Budget,
    options: CompactionOptions,
    summarizer: Summarizer | SummarizerFunction | None,
    max_steps: int,
) -> CompactionOutcome:
    """Attempt, append, and go on (rolling) until the context reaches the trigger, a step is
    rejected, nothing is left, or ``max_steps`` steps were made."""
    recorded: list[RecordedEvent] = []
    outcome = CompactionOutcome(result="not_needed")
    for _ in range(max(max_steps, 1)):
        state = await session.latest()
        count = session.counter.count_text
        attempt = await attempt_compaction(state, budget, options, summarizer, count)
        if isinstance(attempt, Skip):
            if recorded:
                return outcome
            return CompactionOutcome(result=attempt.result, reason=attempt.reason)
        (event,) = await session.append_events([attempt.verdict], expected_version=state.version)
        recorded.append(event)
        proposed: list[str] = []
        if isinstance(attempt.verdict, SummaryCommitted):
            proposed = await session.propose_summary_facts(attempt.verdict)
        outcome = attempt.outcome(recorded, proposed)
        if outcome.result != "committed" or outcome.reached_trigger or attempt.plan.why_not:
            break
    return outcome
