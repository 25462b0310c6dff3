"""The fold of one user's long-term memory: proposals, consents, memories, erasures, policy.

``UserMemory.apply`` takes, in tenant-position order, the events of ``memory/<user>``,
``consent/<user>``, ``policy/memory`` and ``ledger/erasures``; the rules in ``rules`` judge the
folded state. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from eventstore import RecordedEvent
from eventstore.records import ERASURE_EVENT_TYPE, ERASURE_STREAM
from projections.memory.events import (
    CONSENT_GRANTED,
    CONSENT_REVOKED,
    MEMORY_FORGOTTEN,
    MEMORY_POLICY_SET,
    MEMORY_PROMOTED,
    MEMORY_PROPOSED,
    MEMORY_RETRACTED,
    POLICY_STREAM,
    ConsentGranted,
    ConsentRevoked,
    MemoryForgotten,
    MemoryPolicySet,
    MemoryPromoted,
    MemoryProposed,
    MemoryRetracted,
    consent_stream,
    memory_stream,
)
from projections.memory.policy import MemoryPolicy, key_matches

__all__ = ["Consent", "Memory", "Proposal", "UserMemory"]


@dataclass
class Proposal:
    """A ``MemoryProposed`` event; ``data`` is None once its payload was erased."""

    event_id: str
    position: int
    recorded_at: datetime
    data: MemoryProposed | None


@dataclass
class Consent:
    """A ``ConsentGranted`` event and, if it happened, its revocation."""

    consent_id: str
    event_id: str
    position: int
    granted_at: datetime
    data: ConsentGranted | None  # None when its payload was erased: it allows nothing
    revoked_at: datetime | None = None

    def covers(self, proposal: MemoryProposed, *, key_only: bool) -> bool:
        """Whether this consent's scope names the proposal's key (or, unless ``key_only``, its
        category)."""
        if self.data is None:
            return False
        if key_matches(proposal.key, self.data.keys):
            return True
        return not key_only and proposal.category in self.data.categories

    def expired(self, now: datetime) -> bool:
        """Whether the consent's own expiry has passed at ``now``."""
        return (
            self.data is not None
            and self.data.expires_at is not None
            and self.data.expires_at <= now
        )

    def valid(self, now: datetime) -> bool:
        """Readable, not revoked, not expired at ``now``."""
        return self.data is not None and self.revoked_at is None and not self.expired(now)


@dataclass
class Memory:
    """A promoted memory (its id is the ``MemoryPromoted`` event's id) and its end, if any."""

    memory_id: str
    proposal_id: str
    position: int
    promoted_at: datetime
    promoted: MemoryPromoted
    retracted: MemoryRetracted | None = None
    retracted_at: datetime | None = None
    forgotten: bool = False

    def live(self, now: datetime) -> bool:
        """Not retracted, not forgotten and not expired at ``now`` (permission aside)."""
        return self.retracted is None and not self.forgotten and self.promoted.expires_at > now


@dataclass
class UserMemory:
    """Everything the memory rules need to know about one user of one tenant."""

    tenant_id: str
    user_id: str
    policy: MemoryPolicy = field(default_factory=MemoryPolicy)
    policy_version: int = 0  # version of policy/memory; 0: the defaults
    proposals: dict[str, Proposal] = field(default_factory=dict)
    consents: dict[str, Consent] = field(default_factory=dict)
    memories: dict[str, Memory] = field(default_factory=dict)
    erased: set[str] = field(default_factory=set)  # erased event ids of the tenant
    unreadable: list[str] = field(default_factory=list)  # decision events whose payload is gone
    memory_version: int = 0
    position: int = 0
    last_time: datetime | None = None  # recorded_at of the last event folded

    @property
    def streams(self) -> tuple[str, str]:
        """The user's two streams: ``memory/<user>`` and ``consent/<user>``."""
        return memory_stream(self.user_id), consent_stream(self.user_id)

    def memories_of(self, proposal_id: str) -> list[Memory]:
        """The memories promoted from one proposal, oldest first."""
        return sorted(
            (m for m in self.memories.values() if m.proposal_id == proposal_id),
            key=lambda memory: memory.position,
        )

    def apply(self, event: RecordedEvent) -> UserMemory:
        """Fold one event (of this user's streams, the policy stream or the erasure log)."""
        self.position = max(self.position, event.position)
        self.last_time = event.recorded_at
        stream = event.stream_id
        if stream == ERASURE_STREAM:
            if event.type == ERASURE_EVENT_TYPE and event.data is not None:
                erased = event.data.get("event_ids", [])
                self._erase([str(i) for i in erased] if isinstance(erased, list) else [])
            return self
        if stream == POLICY_STREAM:
            if event.type == MEMORY_POLICY_SET and event.data is not None:
                try:
                    self.policy = MemoryPolicySet.model_validate(event.data).policy
                    self.policy_version = event.version
                except ValidationError:
                    self.unreadable.append(str(event.event_id))
            return self
        memory, consent = self.streams
        if stream == memory:
            self.memory_version = event.version
        elif stream != consent:
            return self
        event_id = str(event.event_id)
        data = event.data
        handler = _HANDLERS.get(event.type)
        if handler is None:
            return self
        if data is None and event.type not in (MEMORY_PROPOSED, CONSENT_GRANTED):
            self.unreadable.append(event_id)
            return self
        try:
            handler(self, event, event_id, data)
        except ValidationError:  # an older or foreign writer's payload: reported, skipped
            self.unreadable.append(event_id)
        return self

    def _erase(self, event_ids: list[str]) -> None:
        self.erased.update(event_ids)
        for event_id in event_ids:
            if event_id in self.proposals:
                self.proposals[event_id].data = None
        for consent in self.consents.values():
            if consent.event_id in event_ids:
                consent.data = None

    def _proposed(self, event: RecordedEvent, event_id: str, data: Any) -> None:
        self.proposals[event_id] = Proposal(
            event_id,
            event.position,
            event.recorded_at,
            None if data is None else MemoryProposed.model_validate(data),
        )

    def _granted(self, event: RecordedEvent, event_id: str, data: Any) -> None:
        granted = None if data is None else ConsentGranted.model_validate(data)
        consent_id = granted.consent_id if granted else event_id
        self.consents[consent_id] = Consent(
            consent_id, event_id, event.position, event.recorded_at, granted
        )

    def _revoked(self, event: RecordedEvent, _: str, data: Any) -> None:
        for consent_id in ConsentRevoked.model_validate(data).consent_ids:
            consent = self.consents.get(consent_id)
            if consent is not None and consent.revoked_at is None:
                consent.revoked_at = event.recorded_at

    def _promoted(self, event: RecordedEvent, event_id: str, data: Any) -> None:
        promoted = MemoryPromoted.model_validate(data)
        self.memories[event_id] = Memory(
            event_id, promoted.proposal_id, event.position, event.recorded_at, promoted
        )

    def _retracted(self, event: RecordedEvent, _: str, data: Any) -> None:
        retracted = MemoryRetracted.model_validate(data)
        memory = self.memories.get(retracted.memory_id)
        if memory is not None and memory.retracted is None:
            memory.retracted, memory.retracted_at = retracted, event.recorded_at

    def _forgotten(self, _event: RecordedEvent, _id: str, data: Any) -> None:
        forgotten = MemoryForgotten.model_validate(data)
        for memory_id in forgotten.memory_ids:
            if memory_id in self.memories:
                self.memories[memory_id].forgotten = True
        for proposal_id in forgotten.proposal_ids:
            for memory in self.memories.values():
                if memory.proposal_id == proposal_id:
                    memory.forgotten = True
            if proposal_id in self.proposals:
                self.proposals[proposal_id].data = None

    def forgotten_proposals(self) -> list[str]:
        """Proposals named by a ``MemoryForgotten`` whose payload is not erased yet."""
        return [
            proposal_id
            for proposal_id, proposal in self.proposals.items()
            if proposal.data is None and proposal_id not in self.erased
        ]


_Handler = Callable[[UserMemory, RecordedEvent, str, Any], None]
_HANDLERS: dict[str, _Handler] = {
    MEMORY_PROPOSED: UserMemory._proposed,
    CONSENT_GRANTED: UserMemory._granted,
    CONSENT_REVOKED: UserMemory._revoked,
    MEMORY_PROMOTED: UserMemory._promoted,
    MEMORY_RETRACTED: UserMemory._retracted,
    MEMORY_FORGOTTEN: UserMemory._forgotten,
}
