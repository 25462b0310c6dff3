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
from projections.contention import StalePlan, append_rebased
from projections.context.budget import Budget
from projections.context.tokens import TokenCounter
from projections.errors import SummarizerUnavailableError
from projections.session.compaction import (
    MIN_BLOCK_TOKENS,
    CompactionOptions,
    CompactionPlan,
    Skip,
    aim_of,
    plan_compaction,
    room_for_summary,
    why_over,
)
from projections.session.events import SessionEvent, SummaryCommitted, SummaryRejected
from projections.session.judge import judge
from projections.session.masking import MaskingOptions, plan_masking
from projections.session.render import plan_render
from projections.session.state import Cut, SessionState
from projections.summaries.offline_v2 import OfflineSummarizer
from projections.summaries.summarizer import (
    Summarizer,
    SummarizerFunction,
    SummaryResult,
    as_summarizer,
)

__all__ = ["CompactionAttempt", "CompactionOutcome", "attempt_compaction", "compact_session"]

#: Stale plans (the stream moved with more than appends) planned again before giving up.
MAX_REPLANS = 8


class CompactingSession(Protocol):
    """What compaction uses of a session."""

    @property
    def counter(self) -> TokenCounter: ...

    async def latest(self) -> SessionState: ...

    async def compaction_cut(self) -> Cut: ...

    async def append_events(
        self, events: Sequence[SessionEvent], *, expected_version: int | None = None
    ) -> list[RecordedEvent]: ...

    async def propose_summary_facts(self, committed: SummaryCommitted) -> list[str]: ...

    async def events_after(self, version: int) -> list[RecordedEvent]: ...


class CompactionOutcome(BaseModel):
    """What ``compact`` did: ``committed`` (a summary that the session now serves, and the
    context is at or under the trigger), ``partial`` (summaries were committed and are served,
    but the context is still over the trigger: ``why_not`` says why), ``unserved`` (a summary
    was committed but the session does not serve it: ``reason`` says which it serves),
    ``rejected`` (the gate refused the summary, or the summarizer produced none), ``masked``
    (masking old tool results was enough), ``not_needed``, ``backoff``, or ``unavailable``
    (the summarizer's service failed: unreachable, timed out, refused; nothing recorded, not
    a gate decision).

    ``reached_trigger`` says whether the rendered context is now at or under the trigger, and
    ``why_not`` why it is not (the prefix, pins and last groups alone are too big, say).
    ``masked`` and ``tokens_saved`` count the tool results this call masked first.
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
    masked: int = 0
    tokens_saved: int = 0
    mask_event: RecordedEvent | None = None

    @property
    def summarised(self) -> bool:
        """Whether this call committed a summary (served or not, at the trigger or not)."""
        return self.result in ("committed", "partial", "unserved")


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
    cut: Cut,
    budget: Budget,
    options: CompactionOptions,
    summarizer: Summarizer | SummarizerFunction | None,
    count: Callable[[str], int],
) -> CompactionAttempt | Skip:
    """Plan, summarise and judge; a :class:`Skip` when there is nothing to do now (``cut``:
    the latest, with the bodies :func:`~projections.session.needs.compaction_needs` names)."""
    plan = plan_compaction(cut, budget, options, count=count, now=datetime.now(UTC))
    if isinstance(plan, Skip):
        return plan
    chosen = as_summarizer(summarizer) if summarizer is not None else OfflineSummarizer()
    began = time.perf_counter()
    result: SummaryResult | None
    try:
        result, problem = await chosen.summarize(plan.request), None
    except (SummarizerUnavailableError, OSError) as error:  # the service, not the summary
        return Skip("unavailable", _unavailable(error))
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


def _unavailable(error: BaseException) -> str:
    return (
        f"the summarizer is unavailable ({type(error).__name__}: {error}); nothing was recorded "
        f"and the window is served: try again when it answers"
    )


async def compact_session(
    session: CompactingSession,
    budget: Budget,
    options: CompactionOptions,
    summarizer: Summarizer | SummarizerFunction | None,
    max_steps: int,
) -> CompactionOutcome:
    """Attempt, append, and go on (rolling) until the context reaches the trigger, a step is
    rejected, nothing is left, or ``max_steps`` steps were made. A step whose stream moved
    while it was summarised is rebased onto the appends (``projections.contention``), or
    planned again when the move changed what it depends on."""
    if (fits := await _fits(session, budget, options)) is not None:
        return fits
    masking = await _mask_old_results(session, budget, options)
    if masking is not None and masking.result == "masked":
        return masking
    recorded: list[RecordedEvent] = []
    outcome = CompactionOutcome(result="not_needed")
    steps = replans = 0
    while steps < max(max_steps, 1):
        cut = await session.compaction_cut()
        state = cut.state
        erased = frozenset(state.erased)
        count = session.counter.count_text
        attempt = await attempt_compaction(cut, budget, options, summarizer, count)
        if isinstance(attempt, Skip):
            if not recorded:
                outcome = _skipped(attempt, state, budget, options)
            break
        try:
            event = await append_rebased(session, attempt.verdict, state.version, erased)
        except StalePlan as stale:  # plan again on the moved stream, a few times at most
            replans += 1
            if replans <= MAX_REPLANS:
                continue
            if stale.conflict is not None:
                raise stale.conflict from stale
            break
        steps += 1
        recorded.append(event)
        proposed: list[str] = []
        if isinstance(attempt.verdict, SummaryCommitted):
            proposed = await session.propose_summary_facts(attempt.verdict)
        outcome = attempt.outcome(recorded, proposed)
        if outcome.result != "committed" or outcome.reached_trigger or attempt.plan.why_not:
            break
    if outcome.result == "committed":
        outcome = await _served(session, budget, options, outcome)
    if masking is None:
        return outcome
    return outcome.model_copy(
        update={
            "masked": masking.masked,
            "tokens_saved": masking.tokens_saved,
            "mask_event": masking.mask_event,
        }
    )


async def _served(
    session: CompactingSession,
    budget: Budget,
    options: CompactionOptions,
    outcome: CompactionOutcome,
) -> CompactionOutcome:
    """The outcome of committed summaries as the session now renders: ``committed`` only when
    the last one is served and the context is at or under the trigger."""
    cut = (await session.latest()).cut()
    tokens = plan_render(cut, budget, keep_groups=options.keep_groups).tokens
    served = cut.summary()
    reached = tokens <= budget.trigger
    update: dict[str, object] = {"tokens_after": tokens, "reached_trigger": reached}
    if served is None or served.version != outcome.summary_version:
        update["result"] = "unserved"
        update["reason"] = (
            f"summary version {outcome.summary_version} was committed, but the session serves "
            f"{'version ' + str(served.version) if served else 'no summary'}: see "
            f"'ctxledger summaries' for the chain"
        )
    elif not reached:
        update["result"] = "partial"
        update["why_not"] = outcome.why_not or why_over(cut, budget, options, tokens)
    return outcome.model_copy(update=update)


def _skipped(
    skip: Skip, state: SessionState, budget: Budget, options: CompactionOptions
) -> CompactionOutcome:
    """A skipped attempt, with where the context stands and why it stays over, if it does."""
    cut = state.cut()
    tokens = plan_render(cut, budget, keep_groups=options.keep_groups).tokens
    return CompactionOutcome(
        result=skip.result,
        reason=skip.reason,
        tokens_after=tokens,
        reached_trigger=tokens <= budget.trigger,
        why_not=why_over(cut, budget, options, tokens),
    )


async def _fits(
    session: CompactingSession, budget: Budget, options: CompactionOptions
) -> CompactionOutcome | None:
    """``not_needed`` when the render already keeps every group under the aim."""
    cut = (await session.latest()).cut()
    plan = plan_render(cut, budget, keep_groups=options.keep_groups)
    aim = aim_of(cut, budget, options)
    if plan.tokens > aim or plan.uncovered_groups:
        return None
    return CompactionOutcome(
        result="not_needed",
        reason=f"the context ({plan.tokens} tokens) keeps every group and is already at or "
        f"under the aim of {aim}",
        tokens_after=plan.tokens,
        reached_trigger=plan.tokens <= budget.trigger,
    )


async def _mask_old_results(
    session: CompactingSession, budget: Budget, options: CompactionOptions
) -> CompactionOutcome | None:
    """The ladder's first step: when the render is over the aim, mask old tool results. The
    outcome says ``masked`` when that alone brought the render to the aim (no summary needed),
    ``not_needed`` when the summary step must follow; None when nothing was masked."""
    # The fit check just passed (over the aim, or the window drops groups): masking comes
    # before the window leaves whole groups out (the ladder's order).
    if not options.mask_results:
        return None
    cut = await session.compaction_cut()
    state = cut.state
    aim = aim_of(cut, budget, options)
    keep = options.keep_groups
    if room_for_summary(cut, budget) < MIN_BLOCK_TOKENS:
        keep = 0  # the last step before an error: the newest turn's own results are too big
    masking = MaskingOptions(keep_groups=keep, min_tokens=options.mask_min_tokens)
    counter = session.counter
    masked = plan_masking(cut, masking, counter.count_text, counter.count_message)
    if masked is None:
        return None
    try:
        event = await append_rebased(session, masked, state.version, frozenset(state.erased))
    except StalePlan:
        return None  # another writer masked, pinned or summarised meanwhile: go on from there
    plan = plan_render((await session.latest()).cut(), budget, keep_groups=options.keep_groups)
    after = plan.tokens
    return CompactionOutcome(
        result="masked" if after <= aim and not plan.uncovered_groups else "not_needed",
        event=event,
        tokens_after=after,
        reached_trigger=after <= budget.trigger,
        masked=len(masked.results),
        tokens_saved=masked.tokens_saved,
        mask_event=event,
    )
