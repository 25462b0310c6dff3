"""Compaction as a pure plan and a pure judgement; the ledger does the I/O in between.

``Session.compact`` reads as: :func:`plan_compaction` (what to summarise, sanitised, with the
previous summary and the coverage the result must state) → the summarizer → :func:`judge` (the
gate, and the event to record: ``SummaryCommitted`` or ``SummaryRejected``) → append.

The budget discipline (DESIGN §5): what must stay (the prefix, the pins, the current turn) is
served whatever happens; compaction aims the rest at ``target`` of the room the trigger leaves
above it (``DEFAULT_TARGET`` by default: below the trigger, so it is not due again at the next
turn, and high enough that the room the caller gave is used, not left empty; the default was
chosen by measuring retention against how often compaction runs, docs/quality.md). A target
of usable alone would fall under the prefix when the system prompt is large, and starve the
summary. The summary's budget is a share of the room the prefix, the pins and the last
``keep_groups`` groups leave under that aim (most of
it when tool results dominate what is summarised, half in conversation, which leaves room for
recall) and never more than that room. What does not fit next to the summary is summarised.
When the prefix, pins and last groups alone exceed the trigger, the plan says why. After a
rejected attempt, the next waits for ``backoff_groups`` new groups. Pure: no I/O; the token
counter and the clock are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from projections.context.accounting import REPLY_PRIMING_TOKENS, USER_MESSAGE_OVERHEAD
from projections.context.budget import Budget
from projections.context.holes import bisect_left, bisect_right
from projections.context.messages import Message
from projections.context.window import fit_groups, plan_groups
from projections.session.coverage import coverage_of, upcast_summary
from projections.session.state import Cut
from projections.summaries.chain import CommittedSummary
from projections.summaries.sanitize import SanitizeReport, sanitize_messages
from projections.summaries.schema_v2 import CompactionSummaryV2, Coverage
from projections.summaries.summarizer import SummaryRequest

__all__ = [
    "DEFAULT_TARGET",
    "MIN_BLOCK_TOKENS",
    "CompactionOptions",
    "CompactionPlan",
    "Skip",
    "aim_of",
    "plan_compaction",
    "room_for_summary",
    "why_over",
]

Count = Callable[[str], int]
MIN_SUMMARY_TOKENS = 96
#: The share of the room above what must stay, under the trigger, that compaction fills.
DEFAULT_TARGET = 0.75
#: The least room a summary block is planned for: its tag and preamble and a few lines.
MIN_BLOCK_TOKENS = 64
TOOL_HEAVY_SHARE = 0.95  # of the room, for the summary, when tool results dominate the chunk
CONVERSATION_SHARE = 0.5  # in conversation: the rest is left for the window and recall


@dataclass(frozen=True)
class CompactionOptions:
    """How a compaction is planned.

    Args:
        keep_groups: the most recent groups that always stay verbatim.
        target: aim the rendered context at what must stay plus ``target`` of the room the
            trigger leaves above it (default ``DEFAULT_TARGET``; see the module docstring).
        max_chunk: at most this many new messages per summary (rolling: bounded chunks).
        summary_budget: an upper bound for the summary's tokens; the plan's own share of the
            room is used when it is smaller (or when this is None).
        summary_share: the summary's share of the room (None: 0.8 when tool results are most
            of what is summarised, else 0.5).
        tool_result_tokens: tool results are cut to this many tokens before summarising.
        backoff_groups: after a rejection, wait for this many new groups before trying again.
        mask_results: mask old tool results first (the ladder's first step; see
            ``session.masking``), and summarise only if the context is still over the aim.
        mask_min_tokens: results smaller than this are never masked.
    """

    keep_groups: int = 6
    target: float | None = None
    max_chunk: int = 500
    summary_budget: int | None = None
    summary_share: float | None = None
    tool_result_tokens: int = 400
    backoff_groups: int = 4
    mask_results: bool = True
    mask_min_tokens: int = 64

    def aim(self, budget: Budget, fixed: int) -> int:
        """The tokens a compaction aims the rendered context at, when ``fixed`` tokens (the
        prefix, the pins, the current turn and the reply priming) must stay."""
        target = self.target if self.target is not None else DEFAULT_TARGET
        return fixed + int(target * max(budget.trigger - fixed, 0))


@dataclass(frozen=True)
class Skip:
    """No attempt this time: ``not_needed``, ``backoff`` or ``unavailable`` (the summarizer's
    service failed: nothing recorded), and why."""

    result: str
    reason: str


@dataclass(frozen=True)
class CompactionPlan:
    """What one compaction attempt summarises, and everything needed to judge the result."""

    cut: Cut
    budget: Budget
    options: CompactionOptions
    version: int  # the attempt's summary version
    previous: CommittedSummary | None
    parent: CompactionSummaryV2 | None  # the previous summary in v2 form
    sources: dict[int, Message]  # sanitised, by session version: the chunk and what is cited
    coverage: Coverage
    request: SummaryRequest
    sanitized: SanitizeReport
    tokens_before: int
    summary_budget: int
    why_not: str | None  # set when the prefix, pins and last groups alone pass the trigger


def _fixed_tokens(cut: Cut, keep: int) -> int:
    """Tokens of the prefix, the pins and the last ``keep`` groups (and the reply priming)."""
    plan = plan_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        cut.pinned_groups(),
        0,
        keep_groups=keep,
        fixed_tokens=REPLY_PRIMING_TOKENS,
        summarised=cut.summarised_groups(),
    )
    return plan.tokens


def aim_of(cut: Cut, budget: Budget, options: CompactionOptions) -> int:
    """The tokens a compaction of this cut aims at (:meth:`CompactionOptions.aim`)."""
    return options.aim(budget, _fixed_tokens(cut, 1))


def room_for_summary(cut: Cut, budget: Budget) -> int:
    """The most a summary block may take: what usable leaves next to the prefix, the pins,
    the current turn, the reply priming and the summary message's own overhead."""
    return budget.usable - _fixed_tokens(cut, 1) - USER_MESSAGE_OVERHEAD


def _keep(cut: Cut, options: CompactionOptions, limit: int) -> int:
    """The most recent groups to keep verbatim: ``keep_groups``, fewer when they do not fit
    under ``limit`` next to the prefix and the pins (never fewer than the current turn)."""
    keep = max(options.keep_groups, 1)
    while keep > 1 and _fixed_tokens(cut, keep) > limit:
        keep -= 1
    return keep


def _tool_heavy(chunk: list[Message], tokens: Mapping[str, int]) -> bool:
    results = sum(tokens[m.id] for m in chunk if m.role == "tool")
    return results * 2 > sum(tokens[m.id] for m in chunk)


def plan_compaction(
    cut: Cut, budget: Budget, options: CompactionOptions, *, count: Count, now: datetime
) -> CompactionPlan | Skip:
    """The next compaction of a session, or why there is none (see the module docstring)."""
    state = cut.state
    if (skip := _backoff(cut, options)) is not None:
        return skip
    fixed = _fixed_tokens(cut, 1)  # the prefix, the pins and the current turn
    aim = options.aim(budget, fixed)
    room = max(aim - fixed, MIN_SUMMARY_TOKENS)
    # The largest chunk any share could give decides whether there is anything to summarise
    # and whether tool results dominate it.
    tokens_before = _render_tokens(cut, budget, options, cut.summary())
    over_aim = tokens_before > aim
    chunk, _ = _chunk_or_roll(cut, options, aim - int(TOOL_HEAVY_SHARE * room), fixed, over_aim)
    if not chunk:
        return Skip("not_needed", "the window keeps every group the summary does not cover")
    heavy = _tool_heavy(chunk, state.tokens)
    share = options.summary_share or (TOOL_HEAVY_SHARE if heavy else CONVERSATION_SHARE)
    # The budget is the block's; its message adds USER_MESSAGE_OVERHEAD in the render.
    summary_budget = max(int(share * room) - USER_MESSAGE_OVERHEAD, MIN_SUMMARY_TOKENS)
    if options.summary_budget is not None:
        summary_budget = max(min(summary_budget, options.summary_budget), MIN_SUMMARY_TOKENS)
    tail_limit = aim - summary_budget - USER_MESSAGE_OVERHEAD
    chunk, tail = _chunk_or_roll(cut, options, tail_limit, fixed, over_aim)
    if not chunk:
        return Skip("not_needed", "the window keeps every group the summary does not cover")
    # What the tail does not use goes to the summary too (a tool group that does not fit
    # would otherwise leave its room empty).
    summary_budget = max(summary_budget, aim - tail - USER_MESSAGE_OVERHEAD)
    if options.summary_budget is not None:
        summary_budget = max(min(summary_budget, options.summary_budget), MIN_SUMMARY_TOKENS)
    # Never more than fits in usable next to the prefix, the pins and the current turn: the
    # render keeps fewer recent groups before it would leave the summary out of the budget.
    cap = room_for_summary(cut, budget)
    if cap < MIN_BLOCK_TOKENS:
        return Skip("not_needed", _no_room(fixed, cap, budget))
    summary_budget = min(summary_budget, cap)
    active = cut.summary()
    parent = _parent(active, cut)
    covered = _covered_indexes(cut, parent) | {state.index_of[m.id] for m in chunk}
    coverage = coverage_of(state, covered)
    sources, sanitized = _sources(cut, chunk, parent, count, options)
    versions = [state.message_versions[state.index_of[m.id]] for m in chunk]
    request = SummaryRequest(
        previous=parent,
        chunk=[sources[v] for v in versions],
        budget_tokens=summary_budget,
        created_at=now,
        count_tokens=count,
        versions=versions,
        coverage=coverage,
    )
    return CompactionPlan(
        cut=cut,
        budget=budget,
        options=options,
        version=state.chain.next_version(),
        previous=active,
        parent=parent,
        sources=sources,
        coverage=coverage,
        request=request,
        sanitized=sanitized,
        tokens_before=tokens_before,
        summary_budget=summary_budget,
        why_not=_why_not(fixed, budget, options),
    )


def _backoff(cut: Cut, options: CompactionOptions) -> Skip | None:
    last = cut.state.chain.last_rejection_groups
    if last is None or cut.groups >= last + options.backoff_groups:
        return None
    return Skip(
        "backoff",
        f"the last attempt was rejected at {last} groups; waiting for "
        f"{last + options.backoff_groups - cut.groups} more before trying again",
    )


def _chunk_or_roll(
    cut: Cut, options: CompactionOptions, tail_limit: int, fixed: int, over_aim: bool
) -> tuple[list[Message], int]:
    """:func:`_chunk`; when it is empty but the context is over the aim (the served summary is
    bigger than this plan's, and the window holds the rest), the chunk of all but the current
    turn, so the summary rolls forward at the smaller size."""
    chunk, tail = _chunk(cut, options, tail_limit)
    if not chunk and over_aim:
        return _chunk(cut, options, fixed)
    return chunk, tail


def _chunk(cut: Cut, options: CompactionOptions, tail_limit: int) -> tuple[list[Message], int]:
    """The messages to summarise: after the served summary's coverage, not in the tail that
    fits ``tail_limit`` (nor the prefix or a pinned group), oldest first, at most max_chunk;
    and the tokens of what stays verbatim (prefix, pins, tail)."""
    limit = max(tail_limit, 0)
    tail = plan_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        cut.pinned_groups(),
        limit,
        keep_groups=_keep(cut, options, limit),
        fixed_tokens=REPLY_PRIMING_TOKENS,
        summarised=cut.summarised_groups(),
    )
    kept = {group for group, _ in tail.chosen}
    active = cut.summary()
    start = active.covered_end if active else 0
    grouper = cut.state.grouper
    chunk: list[Message] = []
    for group in range(grouper.group_at(start) if start else 0, cut.groups):
        if group in kept:
            continue
        chunk += [
            m
            for m in cut.group_messages(group)
            if cut.state.index_of[m.id] >= start and m.role not in ("system", "developer")
        ]
    return chunk[: options.max_chunk], tail.tokens


def _parent(active: CommittedSummary | None, cut: Cut) -> CompactionSummaryV2 | None:
    if active is None:
        return None
    if isinstance(active.summary, CompactionSummaryV2):
        return active.summary
    return upcast_summary(active.summary, cut)


def _covered_indexes(cut: Cut, parent: CompactionSummaryV2 | None) -> set[int]:
    if parent is None:
        return set()
    versions = cut.state.message_versions
    covered: set[int] = set()
    for first, last in parent.coverage.ranges:
        covered.update(range(bisect_left(versions, first), bisect_right(versions, last)))
    return covered


def _sources(
    cut: Cut,
    chunk: list[Message],
    parent: CompactionSummaryV2 | None,
    count: Count,
    options: CompactionOptions,
) -> tuple[dict[int, Message], SanitizeReport]:
    """The chunk and the messages the parent cites, sanitised, by session version."""
    state = cut.state
    cited = sorted(parent.cited()) if parent else []
    by_version = {
        v: cut.message(i)
        for v in cited
        if (i := bisect_left(state.message_versions, v)) < cut.count
        and state.message_versions[i] == v
    }
    for message in chunk:
        by_version[state.message_versions[state.index_of[message.id]]] = message
    versions = sorted(by_version)
    clean, report = sanitize_messages(
        [by_version[v] for v in versions],
        count_tokens=count,
        tool_result_tokens=options.tool_result_tokens,
    )
    return dict(zip(versions, clean, strict=True)), report


def _render_tokens(
    cut: Cut, budget: Budget, options: CompactionOptions, active: CommittedSummary | None
) -> int:
    plan, _ = fit_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        cut.pinned_groups(),
        budget.usable,
        keep_groups=options.keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + (active.message_tokens if active else 0),
        summarised=cut.summarised_groups(),
    )
    return plan.tokens


def why_over(cut: Cut, budget: Budget, options: CompactionOptions, tokens: int) -> str | None:
    """Why a context of ``tokens`` that no compaction step could shrink is over the trigger
    (None when it is not over)."""
    if tokens <= budget.trigger:
        return None
    fixed = _fixed_tokens(cut, 1)
    return _why_not(fixed, budget, options) or (
        f"nothing is left to summarise: the summary and the last {options.keep_groups} "
        f"groups kept verbatim take {tokens} tokens; lower keep_groups or raise the budget"
    )


def _no_room(fixed: int, cap: int, budget: Budget) -> str:
    return (
        f"no room for a summary: the prefix, the pins and the current turn take {fixed} of "
        f"the {budget.usable} usable tokens, leaving {max(cap, 0)} for a summary block (at "
        f"least {MIN_BLOCK_TOKENS}); unpin messages, shorten the system prompt, or raise the "
        f"budget"
    )


def _why_not(fixed: int, budget: Budget, options: CompactionOptions) -> str | None:
    if fixed <= budget.trigger:
        return None
    return (
        f"the prefix, the pins and the current turn alone take {fixed} tokens, over the "
        f"trigger of {budget.trigger} ({budget.usable} usable): no summary can bring the "
        f"context under it; unpin messages, shorten the system prompt, or raise the budget"
    )
