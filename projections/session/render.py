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
from typing import Any, Literal

from blake3 import blake3
from pydantic import BaseModel, ConfigDict, Field

from eventstore.encoding import encode_trusted
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.formats import Format, from_messages
from projections.context.messages import Message
from projections.context.window import GroupPlan
from projections.errors import ContextOverBudgetError
from projections.session.planning import fit_plan, plan_render
from projections.session.recall_block import Recall, RecallPlan
from projections.session.recall_render import RecallRender, plan_with_recall
from projections.session.repair import CountMessage, is_placeholder, reserve
from projections.session.repair import repair as repair_protocol
from projections.session.state import Cut, SessionState
from projections.summaries.block import render_summary_block
from projections.summaries.block_v2 import render_summary_block_v2
from projections.summaries.chain import CommittedSummary
from projections.summaries.schema_v2 import CompactionSummaryV2

__all__ = [
    "Manifest",
    "OverBudget",
    "RenderedContext",
    "fit_plan",
    "plan_render",
    "render",
    "summary_message",
    "why_over_budget",
]

#: What a render does when nothing it may leave out brings it under usable: raise
#: :class:`ContextOverBudgetError` (the default), or serve it, flagged, for inspection.
OverBudget = Literal["raise", "serve"]


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
    repairs: list[dict[str, str]] = Field(default_factory=list)  # protocol repairs (on request)
    recalled: list[dict[str, Any]] = Field(default_factory=list)  # paged back in, with scores
    recall_query: str | None = None  # what recall searched for (None: no recall asked)
    summary_yielded: int | None = None  # the summary version that gave its room to recall
    uncovered_groups: int = 0  # groups left out that no served summary covers
    token_counts: str = "exact"  # or "estimate": the counter is not the model's own tokenizer
    usable: int = 0  # the budget's usable tokens
    margin: int = 0  # usable minus the tokens served (negative only when asked to serve over)
    keep_groups: int = 0  # recent groups kept whole (fewer than asked when they did not fit)
    over_why: str | None = None  # what takes the room, when served over usable


class RenderedContext(BaseModel):
    """The next request's messages (internal and in the wire format) and its manifest."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    wire: Any
    manifest: Manifest


def render(
    state: SessionState | Cut,
    budget: Budget,
    *,
    keep_groups: int = 6,
    fmt: Format = "openai",
    recall: Recall | None = None,
    count: Callable[[str], int] | None = None,
    over_budget: OverBudget = "raise",
    repair: CountMessage | None = None,
) -> RenderedContext:
    """Render the session's next request under ``budget`` (O(window), not O(history)).

    Pass a state for the latest context, or ``state.cut(version)`` for an earlier one. With
    ``recall`` (and the token ``count`` to measure its block), the best old groups for its
    query are paged back in, within ``recall.share`` of usable, after the summary.

    The request never exceeds ``budget.usable``: when the prefix, pins, summary and the last
    ``keep_groups`` groups do not fit, fewer recent groups are kept, down to the newest one;
    when even that does not fit, :class:`ContextOverBudgetError` says what takes the room
    (``over_budget="serve"`` serves it anyway, flagged in the manifest, for inspection).

    With ``repair`` (a message counter), calls without results are closed with a marked
    placeholder and orphan results left out (:mod:`projections.session.repair`), within
    the budget; the manifest lists each change. The log is never changed.
    """
    cut = state if isinstance(state, Cut) else state.cut()
    if over_budget not in ("raise", "serve"):
        raise ValueError(f"over_budget must be 'raise' or 'serve', got {over_budget!r}")
    if recall is not None and count is None:
        raise ValueError("render with recall needs count, the token counter of its block")
    held = reserve(cut.issues, repair) if repair is not None else 0
    planned = _plan(cut, budget, keep_groups, recall, count, held)
    messages, sections, repairs = _request(planned, repair)
    if repair is not None:
        # A call still waiting for its result is no issue in the log, but the request must
        # close it too: plan again with the room its placeholders take.
        added = sum(repair(m) for m in messages if is_placeholder(m))
        if added > held:
            planned = _plan(cut, budget, keep_groups, recall, count, added)
            messages, sections, repairs = _request(planned, repair)
    cut, plan, keep, recalled = planned.cut, planned.plan, planned.keep, planned.recalled
    if plan.over_budget and over_budget == "raise":
        raise ContextOverBudgetError(plan.tokens, budget.usable, why_over_budget(cut, plan))
    wire = from_messages(fmt, messages)
    manifest = _manifest(
        cut, budget, plan, messages, sections, cut.summary(), fmt, wire, recalled, repair
    )
    if repair is not None:
        manifest = _repaired_manifest(manifest, repairs, budget)
    why = why_over_budget(cut, plan) if plan.over_budget else None
    manifest = manifest.model_copy(update={"keep_groups": keep, "over_why": why})
    if recall is not None:
        update = {"recalled": recalled.entries, "recall_query": recall.query}
        manifest = manifest.model_copy(update={**update, "summary_yielded": planned.yielded})
    # Built from parts this module made and checked (messages as logged, the manifest): a
    # validating constructor would run every message's validators again (0.19 ms per 500).
    return RenderedContext.model_construct(messages=messages, wire=wire, manifest=manifest)


def _plan(
    cut: Cut,
    budget: Budget,
    keep_groups: int,
    recall: Recall | None,
    count: Callable[[str], int] | None,
    held: int,
) -> RecallRender:
    """The groups to serve, with ``held`` tokens set aside (a repair's placeholders), the
    recent groups kept, and the recalled block (when asked and there is room)."""
    if recall is None or count is None:
        plan, keep = fit_plan(cut, budget, keep_groups=keep_groups, extra_tokens=held)
        return RecallRender(cut, plan, keep, RecallPlan(None, 0))
    return plan_with_recall(cut, budget, keep_groups, recall, count, held)


def _request(
    planned: RecallRender, repair: CountMessage | None
) -> tuple[list[Message], list[str], list[dict[str, str]]]:
    """The request's messages and sections (repaired when asked), and the repairs made."""
    cut, plan, recalled = planned.cut, planned.plan, planned.recalled
    active = cut.summary()
    heads = [(summary_message(active), "summary")] if active else []
    if recalled.message is not None:
        heads.append((recalled.message, "recalled"))
    messages, sections = _assemble(cut, plan, heads)
    if repair is None:
        return messages, sections, []
    repaired = repair_protocol(messages, sections)
    return repaired.messages, repaired.sections, repaired.repairs


def why_over_budget(cut: Cut, plan: GroupPlan) -> str:
    """What takes the room of a plan over usable: each part that must be served, by tokens."""
    active = cut.summary()
    parts = {"prefix": 0, "pinned": 0, "window": 0}
    for group, section in plan.chosen:
        parts[section] += cut.group_tokens(group)
    named = [
        f"the prefix (system and developer messages) {parts['prefix']}",
        f"the pinned messages' groups {parts['pinned']}",
        f"the summary {active.message_tokens if active else 0}",
        f"the newest turn {parts['window']}",
        f"the reply priming {REPLY_PRIMING_TOKENS}",
    ]
    largest = max(("prefix", "pinned", "window"), key=lambda name: parts[name])
    advice = {
        "prefix": "shorten the system prompt",
        "pinned": "unpin messages",
        "window": "mask or compact the newest turn's tool results, or split the turn",
    }[largest]
    return (
        f"even with only the newest turn kept, {', '.join(named)} tokens must be served; "
        f"{advice}, or raise the budget"
    )


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
    repair: CountMessage | None = None,
) -> Manifest:
    rows = cut.rows_of(group for group, _ in plan.chosen)
    counts = [
        active.message_tokens
        if section == "summary" and active
        else recalled.tokens
        if section == "recalled"
        else repair(message)
        if repair is not None and is_placeholder(message)
        else cut.message_tokens(message.id, rows.get(message.id))
        for message, section in zip(messages, sections, strict=True)
    ]
    names = ("prefix", "summary", "recalled", "pinned", "window")
    per_section = dict.fromkeys((n for n in names if n != "recalled" or recalled.message), 0)
    for section, tokens in zip(sections, counts, strict=True):
        per_section[section] += tokens
    per_section["total"] = plan.tokens
    return Manifest(
        message_ids=[message.id for message in messages],
        sections=sections,
        message_tokens=counts,
        tokens=per_section,
        tokenizer=sorted(cut.state.encodings.used(rows[m.id] for m in messages if m.id in rows)),
        budget={**budget.model_dump(), "usable": budget.usable, "trigger": budget.trigger},
        usable=budget.usable,
        margin=budget.usable - plan.tokens,
        summary_version=active.version if active else None,
        # The wire is built from messages checked as canonical JSON when they were appended
        # (and from ctxledger's own text): its bytes are canonical_json's without the walk,
        # which cost a tenth of a warm render (0.26 of 3 ms for 514 messages).
        request_hash=blake3(encode_trusted({"format": fmt, "messages": wire})).hexdigest(),
        over_budget=plan.over_budget,
        dropped_groups=plan.dropped_groups,
        uncovered_groups=plan.uncovered_groups,
        protocol_issues=[issue.as_dict() for issue in cut.issues],
        as_of_version=cut.version,
        as_of_position=cut.position,
        unreadable=[u.as_dict() for u in cut.unreadable()],
        masked=[m.id for m in messages if cut.mask_of(m.id) is not None],
    )


def _repaired_manifest(
    manifest: Manifest, repairs: list[dict[str, str]], budget: Budget
) -> Manifest:
    """The totals of a repaired request recounted: the placeholders counted, the orphans gone
    (at most the plan's total: its reserve covers every placeholder the session could need)."""
    total = REPLY_PRIMING_TOKENS + sum(manifest.message_tokens)
    tokens = {**manifest.tokens, "total": total}
    update = {"tokens": tokens, "margin": budget.usable - total, "repairs": repairs}
    return manifest.model_copy(update=update)


def summary_message(active: CommittedSummary) -> Message:
    """The served summary as an untrusted block in a user-role message (never system)."""
    summary = active.summary
    block = (
        render_summary_block_v2(summary, digest=active.block_digest)
        if isinstance(summary, CompactionSummaryV2)
        else render_summary_block(summary)
    )
    return Message(
        id=f"summary:v{active.version}",
        role="user",
        content=block,
        metadata={"source": "ctxledger", "summary_version": active.version},
    )
