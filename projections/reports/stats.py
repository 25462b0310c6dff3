"""The seed's acceptance metrics, as a projection over the log.

Per session: compression ratio (history tokens ÷ tokens actually sent, over every recorded model
call), key-information retention (pinned constraints and confirmed facts still present in the
context), tool-protocol error rate, compaction overhead (summarizer tokens, latency p50/p95,
tokens and bytes saved), rollback and rejection rates, staleness (facts of the served summary
that a later version changed or retracted) and security counters (redactions, neutralised
instruction-like content, flagged messages). Per tenant: the sums, plus memory and refused
access. The fold (:mod:`projections.reports.figures`) is pure and runs on the ledger's
projection runner; :func:`session_stats` and :func:`tenant_stats` put the figures together.
"""

from __future__ import annotations

from collections import Counter
from statistics import quantiles

from pydantic import BaseModel, ConfigDict, Field

from eventstore import EventStore
from projections.audit import ACCESS_REFUSED, AUDIT_STREAM
from projections.context.budget import Budget
from projections.context.messages import text_of
from projections.ledger import Ledger
from projections.memory.events import user_of_stream
from projections.memory.service import LongTermMemory
from projections.reports.consistency import evidence_present
from projections.reports.figures import SESSION_FIGURES, SessionFigures
from projections.session.render import RenderedContext

__all__ = [
    "ACCESS_REFUSED",
    "AUDIT_STREAM",
    "SessionStats",
    "TenantStats",
    "session_stats",
    "tenant_stats",
]


class SessionStats(BaseModel):
    """The acceptance metrics of one session."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    messages: int = Field(description="messages appended")
    model_calls: int = Field(description="model calls recorded")
    history_tokens: int = Field(description="tokens of every message appended")
    sent_tokens: int = Field(description="input tokens of every recorded model call, summed")
    compression_ratio: float | None = Field(
        description="history tokens at each call / input tokens sent (summed over calls)"
    )
    key_items: int = Field(description="pinned messages and confirmed summary facts")
    key_items_present: int = Field(description="key items present in the rendered context")
    retention: float | None = Field(description="key items present / key items")
    evidence_present: float | None = Field(
        default=None,
        description="earlier questions whose reply left the window and comes back when asked "
        "again (recall) / such questions",
    )
    consistency_measure: str = Field(
        default="evidence_present",
        description="what stands for answer consistency here: evidence_present (no model is "
        "called; `ctxledger consistency` asks one and reports agreeing answers)",
    )
    tool_calls: int = Field(description="tool calls made")
    protocol_issues: int = Field(
        description="tool protocol issues recorded (orphan results, calls without results)"
    )
    protocol_error_rate: float | None = Field(description="protocol issues / tool calls")
    summaries_committed: int = Field(description="summaries that passed the gate")
    summaries_rejected: int = Field(description="summaries the gate rejected")
    rollbacks: int = Field(description="summary rollbacks")
    rollbacks_per_commit: float | None = Field(
        description="rollbacks / committed summaries (above 1 when summaries are rolled back "
        "more often than new ones commit)"
    )
    summarizer_tokens: int = Field(description="tokens the summarizer model used")
    compaction_latency_ms_p50: float | None = Field(description="summarizer latency, median (ms)")
    compaction_latency_ms_p95: float | None = Field(
        description="summarizer latency, 95th percentile (ms)"
    )
    compaction_latencies_ms: list[float] = Field(
        default_factory=list,
        exclude=True,
        description="every compaction's latency (ms), for the Prometheus histogram",
    )
    tokens_saved: int = Field(description="context tokens saved by committed summaries")
    results_masked: int = Field(default=0, description="tool results served as a digest")
    mask_tokens_saved: int = Field(default=0, description="tokens the masked results save")
    bytes_saved: int = Field(description="bytes of message text not sent in the latest context")
    stale_facts: int = Field(
        description="facts of the served summary that a later version changed or retracted"
    )
    redactions: dict[str, int]
    neutralised: int = Field(description="instruction-like content neutralised before summarising")
    flagged_messages: int = Field(
        description="messages flagged at append (e.g. tool arguments that are not JSON)"
    )


class TenantStats(BaseModel):
    """A tenant's sessions and their totals, with memory and refused access."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    sessions: list[SessionStats]
    totals: dict[str, float | int | None]
    memory: dict[str, int]
    refused_access: int


def _ratio(numerator: float, denominator: float) -> float | None:
    return None if not denominator else numerator / denominator


def _percentiles(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    if len(values) == 1:
        return values[0], values[0]
    cuts = quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[94]


async def session_stats(
    ledger: Ledger, tenant_id: str, session_id: str, *, budget: Budget | None = None
) -> SessionStats:
    """The metrics of one session; retention is judged on the context rendered under
    ``budget`` (by default the budget of the session's last recorded model call)."""
    session = ledger.session(tenant_id, session_id)
    fold = await ledger.projection(SESSION_FIGURES).current(tenant_id, session_id)
    state = await session.latest()
    if budget is None and fold.last_budget is not None:
        budget = Budget.model_validate(
            {k: v for k, v in fold.last_budget.items() if k in Budget.model_fields}
        )
    budget = budget or Budget(context_limit=128_000, max_output_tokens=4_000)
    rendered = await session.render(budget, over_budget="serve")
    present, total = _retention(rendered, fold, state.pinned)
    found, asked = await evidence_present(session, budget)
    history_bytes = sum(len(text_of(m).encode()) for m in (await session.messages()))
    sent_bytes = sum(len(text_of(m).encode()) for m in rendered.messages)
    p50, p95 = _percentiles(fold.latencies)
    return SessionStats(
        session_id=session_id,
        messages=fold.messages,
        model_calls=fold.calls,
        history_tokens=fold.history,
        sent_tokens=fold.sent,
        compression_ratio=_ratio(fold.before, fold.sent),
        key_items=total,
        key_items_present=present,
        retention=_ratio(present, total),
        evidence_present=_ratio(found, asked),
        tool_calls=fold.tool_calls,
        protocol_issues=fold.issues,
        protocol_error_rate=_ratio(fold.issues, fold.tool_calls) if fold.tool_calls else 0.0,
        summaries_committed=fold.committed,
        summaries_rejected=fold.rejected,
        rollbacks=fold.rollbacks,
        rollbacks_per_commit=_ratio(fold.rollbacks, fold.committed),
        summarizer_tokens=fold.summarizer_tokens,
        compaction_latency_ms_p50=p50,
        compaction_latency_ms_p95=p95,
        compaction_latencies_ms=list(fold.latencies),
        tokens_saved=fold.saved,
        results_masked=fold.masked,
        mask_tokens_saved=fold.mask_saved,
        bytes_saved=max(0, history_bytes - sent_bytes),
        stale_facts=fold.stale_facts(rendered.manifest.summary_version),
        redactions=dict(sorted(fold.redactions.items())),
        neutralised=fold.neutralised,
        flagged_messages=fold.flagged,
    )


def _retention(
    rendered: RenderedContext, fold: SessionFigures, pinned: set[str]
) -> tuple[int, int]:
    """Key items (pinned messages, confirmed facts of any committed summary) and how many of
    them the rendered context still carries (verbatim, or in the served summary)."""
    sent_ids = set(rendered.manifest.message_ids)
    text = "\n".join(text_of(m) for m in rendered.messages)
    facts: dict[tuple[str, str], None] = {}
    for version_facts in fold.facts.values():
        facts.update(dict.fromkeys(version_facts.items()))
    present = sum(1 for message_id in pinned if message_id in sent_ids)
    present += sum(1 for _, value in facts if value in text)
    return present, len(pinned) + len(facts)


_SUMMED = (
    "messages",
    "model_calls",
    "history_tokens",
    "sent_tokens",
    "key_items",
    "key_items_present",
    "tool_calls",
    "protocol_issues",
    "summaries_committed",
    "summaries_rejected",
    "rollbacks",
    "summarizer_tokens",
    "tokens_saved",
    "results_masked",
    "mask_tokens_saved",
    "bytes_saved",
    "stale_facts",
    "neutralised",
    "flagged_messages",
)


async def tenant_stats(
    ledger: Ledger, tenant_id: str, *, session_id: str | None = None
) -> TenantStats:
    """The metrics of every session of a tenant (or one), their totals, memory and refusals."""
    store: EventStore = ledger.store
    streams = await store.streams(tenant_id)
    sessions = [
        s.stream_id.removeprefix("session/") for s in streams if s.stream_id.startswith("session/")
    ]
    if session_id is not None:
        sessions = [s for s in sessions if s == session_id] or [session_id]
    per_session = [await session_stats(ledger, tenant_id, s) for s in sessions]
    totals: dict[str, float | int | None] = {
        name: sum(getattr(s, name) for s in per_session) for name in _SUMMED
    }
    before = sum((s.compression_ratio or 0) * s.sent_tokens for s in per_session)
    totals["compression_ratio"] = _ratio(before, float(totals["sent_tokens"] or 0))
    totals["retention"] = _ratio(
        float(totals["key_items_present"] or 0), float(totals["key_items"] or 0)
    )
    totals["protocol_error_rate"] = _ratio(
        float(totals["protocol_issues"] or 0), float(totals["tool_calls"] or 0)
    )
    totals["rollbacks_per_commit"] = _ratio(
        float(totals["rollbacks"] or 0), float(totals["summaries_committed"] or 0)
    )
    totals["redactions"] = sum(sum(s.redactions.values()) for s in per_session)
    memory = LongTermMemory(store)
    counts: Counter[str] = Counter()
    users = sorted({u for s in streams if (u := user_of_stream(s.stream_id)) is not None})
    for user in users:
        for candidate in await memory.candidates(tenant_id, user):
            counts[candidate.status] += 1
    refused = (await store.stream_head(tenant_id, AUDIT_STREAM)).version
    return TenantStats(
        tenant_id=tenant_id,
        sessions=per_session,
        totals=totals,
        memory={"users": len(users), **dict(sorted(counts.items()))},
        refused_access=refused,
    )
