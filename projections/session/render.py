"""The next request of a session under a token budget, with its manifest. Pure: no I/O.

The plan (``context.window.plan_groups``) keeps the prefix, pinned groups and the most recent
groups; the served summary goes right after the prefix, as an untrusted data block in a
user-role message (never system). The manifest says what was sent and why: ids in order, their
sections, tokens per section, the tokenizers, the budget, the summary version, a hash of the
request, protocol issues, unreadable events up to then and the tool results served masked
(as their digest: ``ResultsMasked``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blake3 import blake3
from pydantic import BaseModel, ConfigDict, Field

from eventstore.encoding import canonical_json
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.formats import Format, from_messages
from projections.context.messages import Message
from projections.context.window import GroupPlan, plan_groups
from projections.session.recall_block import Recall, RecallPlan, plan_recall
from projections.session.state import Cut, SessionState
from projections.summaries.block import render_summary_block
from projections.summaries.block_v2 import render_summary_block_v2
from projections.summaries.chain import CommittedSummary
from projections.summaries.schema_v2 import CompactionSummaryV2

__all__ = ["Manifest", "RenderedContext", "plan_render", "render", "summary_message"]


class Manifest(BaseModel):
    """What was rendered and why: ids in order, their sections, tokens, and a request hash."""

    model_config = ConfigDict(frozen=True)

    message_ids: list[str]
    sections: list[str]
    message_tokens: list[int]
    tokens: dict[str, int]
    tokenizer: list[str]
    budget: dict[str, Any]
    summary_version: int | None
    request_hash: str
    over_budget: bool
    dropped_groups: int
    protocol_issues: list[dict[str, str]]
    as_of_version: int
    as_of_position: int
    unreadable: list[dict[str, Any]] = Field(default_factory=list)
    masked: list[str] = Field(default_factory=list)  # tool results served as their digest
    recalled: list[dict[str, Any]] = Field(default_factory=list)  # paged back in, with scores
    recall_query: str | None = None  # what recall searched for (None: no recall asked)
    uncovered_groups: int = 0  # groups left out that no served summary covers
    token_counts: str = "exact"  # or "estimate": the counter is not the model's own tokenizer


class RenderedContext(BaseModel):
    """The next request's messages (internal and in the wire format) and its manifest."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    wire: Any
    manifest: Manifest


def plan_render(
    cut: Cut,
    budget: Budget,
    *,
    keep_groups: int,
    summary_tokens: int | None = None,
    extra_tokens: int = 0,
) -> GroupPlan:
    """The groups a render keeps, with the served summary's tokens set aside (or
    ``summary_tokens``, to plan as if a summary of that size were served) and ``extra_tokens``
    (a recalled block)."""
    active = cut.summary()
    if summary_tokens is None:
        summary_tokens = active.tokens if active else 0
    return plan_groups(
        cut.groups,
        cut.group_tokens,
        cut.prefix_end,
        cut.pinned_groups(),
        budget.usable,
        keep_groups=keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens + extra_tokens,
        summarised=cut.summarised_groups(),
    )


def render(
    state: SessionState | Cut,
    budget: Budget,
    *,
    keep_groups: int = 6,
    fmt: Format = "openai",
    recall: Recall | None = None,
    count: Callable[[str], int] | None = None,
) -> RenderedContext:
    """Render the session's next request under ``budget`` (O(window), not O(history)).

    Pass a state for the latest context, or ``state.cut(version)`` for an earlier one. With
    ``recall`` (and the token ``count`` to measure its block), the best old groups for its
    query are paged back in, within ``recall.share`` of usable, after the summary.
    """
    cut = state if isinstance(state, Cut) else state.cut()
    active = cut.summary()
    plan = plan_render(cut, budget, keep_groups=keep_groups)
    recalled = RecallPlan(None, 0)
    if recall is not None:
        if count is None:
            raise ValueError("render with recall needs count, the token counter of its block")
        plan, recalled = _with_recall(cut, budget, keep_groups, recall, count)
    heads = [(summary_message(active), "summary")] if active else []
    if recalled.message is not None:
        heads.append((recalled.message, "recalled"))
    messages, sections = _assemble(cut, plan, heads)
    wire = from_messages(fmt, messages)
    manifest = _manifest(cut, budget, plan, messages, sections, active, fmt, wire, recalled)
    if recall is not None:
        manifest = manifest.model_copy(
            update={"recalled": recalled.entries, "recall_query": recall.query}
        )
    return RenderedContext(messages=messages, wire=wire, manifest=manifest)


def _with_recall(
    cut: Cut, budget: Budget, keep_groups: int, recall: Recall, count: Callable[[str], int]
) -> tuple[GroupPlan, RecallPlan]:
    """The window planned with the recall share set aside, the block chosen in it, then the
    window planned again with the block's real size (a group the wider window now holds is
    left out of the block)."""
    # The block takes its share, and never more than the prefix, pins, summary and the last
    # groups leave: recall never pushes a render over usable.
    usable = budget.usable
    floor = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=usable).tokens - usable
    reserve = max(0, min(int(recall.share * usable), usable - floor))
    plan = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=reserve)
    recalled = plan_recall(cut, recall, {g for g, _ in plan.chosen}, reserve, count)
    if recalled.message is None:
        return plan_render(cut, budget, keep_groups=keep_groups), recalled
    wider = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=recalled.tokens)
    taken = {g for g, _ in wider.chosen}
    if taken & {entry["group"] for entry in recalled.entries}:
        recalled = plan_recall(cut, recall, taken, recalled.tokens, count)
        wider = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=recalled.tokens)
    return wider, recalled


def _assemble(
    cut: Cut, plan: GroupPlan, heads: list[tuple[Message, str]]
) -> tuple[list[Message], list[str]]:
    """The messages in order: the prefix, then ``heads`` (summary, recalled), then the rest."""
    messages: list[Message] = []
    sections: list[str] = []
    pending = list(heads)
    for group, section in plan.chosen:
        if pending and section != "prefix":
            messages += [message for message, _ in pending]
            sections += [name for _, name in pending]
            pending = []
        for message in cut.served_messages(group):
            messages.append(message)
            sections.append(section)
    messages += [message for message, _ in pending]
    sections += [name for _, name in pending]
    return messages, sections


def _manifest(
    cut: Cut,
    budget: Budget,
    plan: GroupPlan,
    messages: list[Message],
    sections: list[str],
    active: CommittedSummary | None,
    fmt: Format,
    wire: Any,
    recalled: RecallPlan,
) -> Manifest:
    counts = [
        active.tokens
        if section == "summary" and active
        else recalled.tokens
        if section == "recalled"
        else cut.message_tokens(message.id)
        for message, section in zip(messages, sections, strict=True)
    ]
    names = ("prefix", "summary", "recalled", "pinned", "window")
    per_section = dict.fromkeys((n for n in names if n != "recalled" or recalled.message), 0)
    for section, tokens in zip(sections, counts, strict=True):
        per_section[section] += tokens
    per_section["total"] = plan.tokens
    encoding_of = cut.state.encoding_of
    return Manifest(
        message_ids=[message.id for message in messages],
        sections=sections,
        message_tokens=counts,
        tokens=per_section,
        tokenizer=sorted({encoding_of[m.id] for m in messages if m.id in encoding_of}),
        budget={**budget.model_dump(), "usable": budget.usable, "trigger": budget.trigger},
        summary_version=active.version if active else None,
        request_hash=blake3(canonical_json({"format": fmt, "messages": wire})).hexdigest(),
        over_budget=plan.over_budget,
        dropped_groups=plan.dropped_groups,
        uncovered_groups=plan.uncovered_groups,
        protocol_issues=[issue.as_dict() for issue in cut.issues],
        as_of_version=cut.version,
        as_of_position=cut.position,
        unreadable=[u.as_dict() for u in cut.unreadable()],
        masked=[m.id for m in messages if cut.mask_of(m.id) is not None],
    )


def summary_message(active: CommittedSummary) -> Message:
    """The served summary as an untrusted block in a user-role message (never system)."""
    summary = active.summary
    block = (
        render_summary_block_v2(summary)
        if isinstance(summary, CompactionSummaryV2)
        else render_summary_block(summary)
    )
    return Message(
        id=f"summary:v{active.version}",
        role="user",
        content=block,
        metadata={"source": "ctxledger", "summary_version": active.version},
    )
