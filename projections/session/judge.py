"""The verdict on one compaction attempt: the gate's checks of the result against its sources,
and the event to record. Pure: no I/O (the token counter is passed in)."""

from __future__ import annotations

from collections.abc import Callable

from projections.context.accounting import REPLY_PRIMING_TOKENS, USER_MESSAGE_OVERHEAD
from projections.context.holes import bisect_right
from projections.context.window import fit_groups
from projections.session.compaction import CompactionPlan
from projections.session.events import SummaryCommitted, SummaryRejected
from projections.summaries.block_v2 import render_summary_block_v2
from projections.summaries.chain import fact_diff
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.schema_v2 import CompactionSummaryV2
from projections.summaries.summarizer import SummaryResult
from projections.summaries.validation import CheckResult, ValidationReport

__all__ = ["judge"]

Count = Callable[[str], int]


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
    report = _report(plan, result, count)
    if result is None or report is None or not report.ok:
        return SummaryRejected(
            summary_version=plan.version,
            failed_checks=["summarizer"] if report is None else report.failed(),
            reason=problem or _reasons(report),
            latency_ms=latency_ms,
            sanitized=plan.sanitized.as_dict(),
            groups=plan.cut.groups,
        )
    summary = result.summary
    assert isinstance(summary, CompactionSummaryV2)  # _report refused anything else
    tokens = count(render_summary_block_v2(summary))
    after = _tokens_with_summary(plan, summary, tokens + USER_MESSAGE_OVERHEAD)
    trigger = plan.budget.trigger
    return SummaryCommitted(
        summary_version=plan.version,
        parent_version=plan.previous.version if plan.previous else None,
        summary=summary,
        covered_hash=summary.coverage.digest,
        tokens=tokens,
        tokens_before=plan.tokens_before,
        tokens_after=after,
        validation=report.model_dump(),
        diff=fact_diff(plan.previous.summary if plan.previous else None, summary),
        summarizer=summarizer,
        model=model,
        usage=result.usage,
        latency_ms=latency_ms,
        sanitized=plan.sanitized.as_dict(),
        trigger=trigger,
        reached_trigger=after <= trigger,
        why_not=None if after <= trigger else (plan.why_not or _still_over(plan, after)),
        erased_versions=_erased_versions(plan, summary),
        block_digest=False,
    )


def _erased_versions(plan: CompactionPlan, summary: CompactionSummaryV2) -> list[int]:
    """The covered messages that are erased already: the summary saw them as ``[erased]``."""
    state = plan.cut.state
    versions = (state.message_versions[index] for index in state.erased)
    return sorted(v for v in versions if summary.coverage.contains(v))


def _report(
    plan: CompactionPlan, result: SummaryResult | None, count: Count
) -> ValidationReport | None:
    if result is None:
        return None
    if not isinstance(result.summary, CompactionSummaryV2):
        check = CheckResult(
            name="schema",
            ok=False,
            reason="the summarizer returned a compaction_summary.v1; new summaries are v2",
        )
        return ValidationReport(ok=False, checks=[check])
    return validate_summary_v2(
        result.summary,
        plan.sources,
        coverage=plan.coverage,
        parent=plan.parent,
        budget=plan.summary_budget,
        count_tokens=count,
    )


def _reasons(report: ValidationReport | None) -> str:
    if report is None:
        return "the summarizer failed"
    return "; ".join(check.reason for check in report.checks if not check.ok)


def _tokens_with_summary(plan: CompactionPlan, summary: CompactionSummaryV2, tokens: int) -> int:
    """The rendered request's tokens once this summary (its message: ``tokens``) is served."""
    cut = plan.cut
    covered_end = bisect_right(cut.state.message_versions, summary.coverage.last)
    fitted, _ = fit_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        cut.pinned_groups(),
        plan.budget.usable,
        keep_groups=plan.options.keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + tokens,
        summarised=cut.summarised_groups(covered_end),
    )
    return fitted.tokens


def _still_over(plan: CompactionPlan, after: int) -> str:
    return (
        f"the context is {after} tokens after this summary, over the trigger of "
        f"{plan.budget.trigger}: more remains to summarise (the chunk was capped at "
        f"{plan.options.max_chunk} messages); compacting again continues"
    )
