"""From a session to long-term memory: proposals that cite the session's messages by id, and
the long-term facts of a committed summary proposed once per session, key and value.

Only proposals: the promoter decides, from consent and the tenant's policy (DESIGN §6).
"""

from __future__ import annotations

from collections.abc import Sequence

from eventstore import EventStore, RecordedEvent
from projections.errors import MemoryRequestError
from projections.memory.service import LongTermMemory
from projections.session.state import SessionState
from projections.summaries.schema import CompactionSummary

__all__ = ["propose_summary_facts", "source_event_ids"]


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


async def propose_summary_facts(
    memory: LongTermMemory,
    tenant_id: str,
    user_id: str,
    session_id: str,
    state: SessionState,
    summary: CompactionSummary,
    version: int,
) -> list[str]:
    """Propose the summary's confirmed facts whose key the tenant policy keeps long-term (once
    per session, key and value); returns the new proposals' event ids."""
    if not summary.facts:
        return []
    policy = await memory.policy(tenant_id)
    seen = await _proposed_in_session(memory, tenant_id, user_id, session_id)
    proposed: list[RecordedEvent] = []
    for fact in summary.facts:
        category = policy.long_term_category(fact.key)
        if category is None or fact.status != "confirmed" or (fact.key, fact.value) in seen:
            continue
        seen.add((fact.key, fact.value))
        sources = await source_event_ids(
            memory.store, tenant_id, session_id, state, fact.source_ids
        )
        event = await memory.propose(
            tenant_id,
            user_id,
            key=fact.key,
            value=fact.value,
            category=category,
            source_ids=fact.source_ids,
            source_event_ids=sources,
            confidence=fact.confidence,
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
