"""From a session to long-term memory: proposals that cite the session's messages by id, and
the long-term facts of a committed summary proposed once per session, key and value.

Only proposals: the promoter decides, from consent and the tenant's policy (DESIGN §6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eventstore import EventStore, RecordedEvent
from projections.errors import MemoryRequestError
from projections.memory.service import LongTermMemory
from projections.session.state import SessionState
from projections.summaries.schema import CompactionSummary, Fact
from projections.summaries.schema_v2 import FactV2
from projections.summaries.summarizer import AnySummary

__all__ = ["Proposal", "propose_from_session", "propose_summary_facts", "source_event_ids"]


@dataclass(frozen=True)
class Proposal:
    """A memory a session proposes for its user."""

    key: str
    value: str
    category: str
    source_ids: list[str]
    confidence: float
    ttl_days: float | None = None


async def source_event_ids(
    store: EventStore, tenant_id: str, session_id: str, state: SessionState, ids: Sequence[str]
) -> list[str]:
    """The ids of the events that appended these messages of the session.

    Raises:
        MemoryRequestError: a message id the session does not have (an erased message keeps
            no id, and cannot be a source).
    """
    unknown = [i for i in ids if i not in state.index_of]
    if unknown:
        raise MemoryRequestError(
            f"session {session_id} has no message {', '.join(map(repr, unknown))} "
            f"(an erased message keeps no id, and cannot be a source)"
        )
    found = []
    for message_id in ids:
        version = state.message_versions[state.index_of[message_id]]
        (event,) = await store.read_stream(
            tenant_id, f"session/{session_id}", from_version=version, to_version=version
        )
        found.append(str(event.event_id))
    return found


async def propose_from_session(
    memory: LongTermMemory,
    tenant_id: str,
    session_id: str,
    user_id: str | None,
    state: SessionState,
    proposal: Proposal,
) -> RecordedEvent:
    """Propose a memory citing messages of the session (see ``Session.propose_memory``).

    Raises:
        MemoryRequestError: no user, no sources, an unknown message id, or a bad field.
    """
    if user_id is None:
        raise MemoryRequestError(
            f"session {session_id} has no user: open it with "
            f"ledger.session(tenant, session, user_id=...) or pass user_id"
        )
    if not proposal.source_ids:
        raise MemoryRequestError("a memory proposal must cite at least one source message")
    events = await source_event_ids(memory.store, tenant_id, session_id, state, proposal.source_ids)
    return await memory.propose(
        tenant_id,
        user_id,
        key=proposal.key,
        value=proposal.value,
        category=proposal.category,
        source_ids=proposal.source_ids,
        source_event_ids=events,
        confidence=proposal.confidence,
        session_id=session_id,
        ttl_days=proposal.ttl_days,
    )


async def propose_summary_facts(
    memory: LongTermMemory,
    tenant_id: str,
    user_id: str,
    session_id: str,
    state: SessionState,
    summary: AnySummary,
    version: int,
) -> list[str]:
    """Propose the summary's confirmed facts whose key the tenant policy keeps long-term (once
    per session, key and value); returns the new proposals' event ids."""
    if not summary.facts:
        return []
    policy = await memory.policy(tenant_id)
    seen = await _proposed_in_session(memory, tenant_id, user_id, session_id)
    proposed: list[RecordedEvent] = []
    for fact, source_ids, confidence in _facts(summary, state):
        category = policy.long_term_category(fact.key)
        if category is None or fact.status != "confirmed" or (fact.key, fact.value) in seen:
            continue
        seen.add((fact.key, fact.value))
        sources = await source_event_ids(memory.store, tenant_id, session_id, state, source_ids)
        event = await memory.propose(
            tenant_id,
            user_id,
            key=fact.key,
            value=fact.value,
            category=category,
            source_ids=source_ids,
            source_event_ids=sources,
            confidence=confidence,
            session_id=session_id,
            origin="summary",
            summary_version=version,
        )
        proposed.append(event)
    return [str(event.event_id) for event in proposed]


async def _proposed_in_session(
    memory: LongTermMemory, tenant_id: str, user_id: str, session_id: str
) -> set[tuple[str, str]]:
    user = await memory.state(tenant_id, user_id)
    return {
        (p.data.key, p.data.value)
        for p in user.proposals.values()
        if p.data is not None and p.data.session_id == session_id
    }


def _facts(
    summary: AnySummary, state: SessionState
) -> list[tuple[Fact | FactV2, list[str], float]]:
    """Each fact with the message ids it cites and its confidence (v2 facts cite versions)."""
    if isinstance(summary, CompactionSummary):
        return [(fact, list(fact.source_ids), fact.confidence) for fact in summary.facts]
    ids = dict(zip(state.message_versions, state.ids, strict=True))
    return [
        (fact, [ids[v] for v in fact.src if v in ids], 0.9 if fact.status == "confirmed" else 0.6)
        for fact in summary.facts
    ]
