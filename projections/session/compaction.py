"""Compaction as a pure plan and a pure judgement; the ledger does the I/O in between.

``Session.compact`` reads as: :func:`plan_compaction` (what to summarise, sanitised, with the
previous summary) → the summarizer → :func:`judge` (the validation gate, and the event to
record: ``SummaryCommitted`` or ``SummaryRejected``) → append. Pure: no I/O; the token counter
and the clock are passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.messages import Message
from projections.context.window import plan_groups
from projections.session.events import SummaryCommitted, SummaryRejected
from projections.session.render import render
from projections.session.state import Cut
from projections.summaries.block import render_summary_block
from projections.summaries.chain import CommittedSummary, fact_diff
from projections.summaries.sanitize import SanitizeReport, sanitize_messages
from projections.summaries.summarizer import SummaryRequest, SummaryResult
from projections.summaries.validation import validate_summary

__all__ = ["CompactionOptions", "CompactionPlan", "judge", "plan_compaction"]

Count = Callable[[str], int]


@dataclass(frozen=True)
class CompactionOptions:
    """How a compaction is planned.

    Args:
        keep_groups: the most recent groups that always stay verbatim.
        target: plan the window as if only ``target`` × the usable budget were available, so
            the groups beyond it are summarised now rather than a few at every later call.
        max_chunk: at most this many new messages per summary (rolling: bounded chunks).
        summary_budget: tokens the summary's block may take.
        tool_result_tokens: tool results are cut to this many tokens before summarising.
    """

    keep_groups: int = 6
    target: float | None = None
    max_chunk: int = 200
    summary_budget: int = 2000
    tool_result_tokens: int = 400


@dataclass(frozen=True)
class CompactionPlan:
    """What one compaction attempt summarises, and everything needed to judge the result."""

    cut: Cut
    budget: Budget
    options: CompactionOptions
    version: int  # the attempt's summary version
    previous: CommittedSummary | None
    sources: list[Message]  # sanitised: the previous coverage and the new chunk
    request: SummaryRequest
    sanitized: SanitizeReport
    tokens_before: int


def plan_compaction(
    cut: Cut, budget: Budget, options: CompactionOptions, *, count: Count, now: datetime
) -> CompactionPlan | None:
    """The next compaction of a session, or None when the window leaves out nothing that the
    served summary does not already cover."""
    rendered = render(cut, budget, keep_groups=options.keep_groups)
    kept = set(rendered.manifest.message_ids)
    if options.target is not None:
        tight = budget.shrunk(options.target)
        kept = set(render(cut, tight, keep_groups=options.keep_groups).manifest.message_ids)
    active = cut.summary()
    messages = cut.state.messages[: cut.count]
    start = active.covered_end if active else 0
    chunk = [m for m in messages[start:] if m.id not in kept][: options.max_chunk]
    chunk = [m for m in chunk if m.role not in ("system", "developer")]
    if not chunk:
        return None
    covered = set(active.summary.source_message_ids) if active else set()
    sources, sanitized = sanitize_messages(
        [m for m in messages if m.id in covered] + chunk,
        count_tokens=count,
        tool_result_tokens=options.tool_result_tokens,
    )
    request = SummaryRequest(
        previous=active.summary if active else None,
        chunk=sources[len(sources) - len(chunk) :],
        budget_tokens=options.summary_budget,
        created_at=now,
        count_tokens=count,
    )
    return CompactionPlan(
        cut,
        budget,
        options,
        cut.state.chain.next_version(),
        active,
        sources,
        request,
        sanitized,
        rendered.manifest.tokens["total"],
    )


def judge(
    plan: CompactionPlan,
    result: SummaryResult | None,
    *,
    problem: str | None,
    latency_ms: float,
    summarizer: str,
    model: str | None,
    count: Count,
) -> SummaryCommitted | SummaryRejected:
    """The event a compaction attempt records: the gate's verdict on the result (a failed
    summarizer, ``result`` None with its ``problem``, is a rejection too)."""
    previous = plan.previous.summary if plan.previous else None
    budget = plan.options.summary_budget
    if result is not None:
        report = validate_summary(
            result.summary, plan.sources, parent=previous, budget=budget, count_tokens=count
        )
    if result is None or not report.ok:
        return SummaryRejected(
            summary_version=plan.version,
            failed_checks=["summarizer"] if result is None else report.failed(),
            reason=problem or "; ".join(c.reason for c in report.checks if not c.ok),
            latency_ms=latency_ms,
            sanitized=plan.sanitized.as_dict(),
        )
    summary = result.summary
    tokens = count(render_summary_block(summary))
    state = plan.cut.state
    covered_end = 1 + max(
        (state.index_of[i] for i in summary.source_message_ids if i in state.index_of), default=-1
    )
    return SummaryCommitted(
        summary_version=plan.version,
        parent_version=plan.previous.version if plan.previous else None,
        summary=summary,
        covered_ids=list(summary.source_message_ids),
        covered_hash=state.covered_hash(summary.source_message_ids),
        tokens=tokens,
        tokens_before=plan.tokens_before,
        tokens_after=_tokens_with_summary(plan, tokens, covered_end),
        validation=report.model_dump(),
        diff=fact_diff(previous, summary),
        summarizer=summarizer,
        model=model,
        usage=result.usage,
        latency_ms=latency_ms,
        sanitized=plan.sanitized.as_dict(),
    )


def _tokens_with_summary(plan: CompactionPlan, summary_tokens: int, covered_end: int) -> int:
    """The rendered request's tokens once this summary is served."""
    cut = plan.cut
    return plan_groups(
        cut.groups,
        cut.group_tokens,
        cut.prefix_end,
        cut.pinned_groups(),
        plan.budget.usable,
        keep_groups=plan.options.keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens,
        summarised=cut.summarised_groups(covered_end),
    ).tokens
