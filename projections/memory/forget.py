"""Forgetting a memory: ``MemoryForgotten`` naming every proposal of it and every memory
promoted from them, then erasure of the proposals' payloads (the only events that hold the
value). Calling it again finishes an erasure an earlier call did not get to."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from eventstore import ConcurrencyError, EventStore, NewEvent, RecordedEvent
from projections.errors import MemoryNotFoundError
from projections.memory.events import MEMORY_FORGOTTEN, MemoryForgotten, memory_stream
from projections.memory.inputs import validated
from projections.memory.state import UserMemory


class MemoryLog(Protocol):
    """What forgetting uses of :class:`~projections.memory.service.LongTermMemory`."""

    store: EventStore

    async def state(self, tenant_id: str, user_id: str) -> UserMemory:
        """The user's memory folded from the log."""
        ...


__all__ = ["ForgetReceipt", "forget_memory"]


class ForgetReceipt(BaseModel):
    """What ``forget`` did: the ``MemoryForgotten`` event and the erased proposal events."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    event: RecordedEvent | None
    memory_ids: list[str]
    proposal_ids: list[str]
    erased: list[str]


async def forget_memory(
    memory: MemoryLog,
    tenant_id: str,
    user_id: str,
    key_or_id: str,
    requested_by: str,
    reason: str,
) -> ForgetReceipt:
    """See :meth:`LongTermMemory.forget`."""
    for _ in range(5):
        state = await memory.state(tenant_id, user_id)
        proposals = [
            p.event_id
            for p in state.proposals.values()
            if key_or_id == p.event_id or (p.data is not None and p.data.key == key_or_id)
        ]
        proposals += [
            m.proposal_id
            for m in state.memories.values()
            if m.memory_id == key_or_id and m.proposal_id not in proposals
        ]
        if not proposals:
            raise MemoryNotFoundError(
                f"user {user_id!r} of tenant {tenant_id!r} has no memory or proposal with "
                f"key or id {key_or_id!r}; see 'ctxledger memory candidates'"
            )
        pending = [p for p in proposals if state.proposals[p].data is not None]
        memories = sorted(
            m.memory_id for m in state.memories.values() if m.proposal_id in proposals
        )
        event = None
        if pending:
            data = validated(
                MemoryForgotten,
                "forget request",
                memory_ids=memories,
                proposal_ids=sorted(pending),
                requested_by=requested_by,
                reason=reason,
            )
            try:
                (event,) = await memory.store.append(
                    tenant_id,
                    memory_stream(user_id),
                    [NewEvent(type=MEMORY_FORGOTTEN, data=data, actor=requested_by)],
                    expected_version=state.memory_version,
                )
            except ConcurrencyError:
                continue  # a proposal or decision arrived meanwhile: judge again
        to_erase = [p for p in proposals if p not in state.erased]
        erased: list[str] = []
        if to_erase:
            receipt = await memory.store.erase(
                tenant_id,
                to_erase,
                reason=f"memory forgotten: {reason}",
                requested_by=requested_by,
            )
            erased = [str(i) for i in receipt.erased]
        return ForgetReceipt(
            event=event, memory_ids=memories, proposal_ids=sorted(proposals), erased=erased
        )
    raise ConcurrencyError(tenant_id, memory_stream(user_id), -1, -1)
