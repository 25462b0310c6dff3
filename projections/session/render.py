"""The next request of a session under a token budget, with its manifest. Pure: no I/O.

The plan (``context.window.plan_groups``) keeps the prefix, pinned groups and the most recent
groups; the served summary goes right after the prefix, as an untrusted data block in a
user-role message (never system). The manifest says what was sent and why: ids in order, their
sections, tokens per section, the tokenizers, the budget, the summary version, a hash of the
request, protocol issues, unreadable events up to then and the tool results served masked
(as their digest: ``ResultsMasked``).
"""

from __future__ import annotations

from typing import Any

from blake3 import blake3
from pydantic import BaseModel, ConfigDict, Field

from eventstore.encoding import canonical_json
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.formats import Format, from_messages
from projections.context.messages import Message
from projections.context.window import GroupPlan, plan_groups
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
    uncovered_groups: int = 0  # groups left out that no served summary covers


class RenderedContext(BaseModel):
    """The next request's messages (internal and in the wire format) and its manifest."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    wire: Any
    manifest: Manifest


def plan_render(
    cut: Cut, budget: Budget, *, keep_groups: int, summary_tokens: int | None = None
) -> GroupPlan:
    """The groups a render keeps, with the served summary's tokens set aside (or
    ``summary_tokens``, to plan as if a summary of that size were served)."""
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
        fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens,
        summarised=cut.summarised_groups(),
    )


def render(
    state: SessionState | Cut,
    budget: Budget,
    *,
    keep_groups: int = 6,
    fmt: Format = "openai",
) -> RenderedContext:
    """Render the session's next request under ``budget`` (O(window), not O(history)).

    Pass a state for the latest context, or ``state.cut(version)`` for an earlier one.
    """
    cut = state if isinstance(state, Cut) else state.cut()
    active = cut.summary()
    plan = plan_render(cut, budget, keep_groups=keep_groups)
    messages: list[Message] = []
    sections: list[str] = []
    pending = active  # placed right after the prefix
    for group, section in plan.chosen:
        if pending is not None and section != "prefix":
            messages.append(summary_message(pending))
            sections.append("summary")
            pending = None
        for message in cut.served_messages(group):
            messages.append(message)
            sections.append(section)
    if pending is not None:
        messages.append(summary_message(pending))
        sections.append("summary")
    wire = from_messages(fmt, messages)
    manifest = _manifest(cut, budget, plan, messages, sections, active, fmt, wire)
    return RenderedContext(messages=messages, wire=wire, manifest=manifest)


def _manifest(
    cut: Cut,
    budget: Budget,
    plan: GroupPlan,
    messages: list[Message],
    sections: list[str],
    active: CommittedSummary | None,
    fmt: Format,
    wire: Any,
) -> Manifest:
    counts = [
        active.tokens if section == "summary" and active else cut.message_tokens(message.id)
        for message, section in zip(messages, sections, strict=True)
    ]
    per_section = dict.fromkeys(("prefix", "summary", "pinned", "window"), 0)
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
