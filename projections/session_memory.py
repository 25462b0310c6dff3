"""A session's long-term-memory verbs: proposing what its user said, or what its summaries
found, to the consent-gated promoter (:mod:`projections.memory`). The memory modules are
imported when a proposal is made, not when a session is opened to be read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from eventstore import RecordedEvent
from projections.session_reads import LedgerParts, SessionReads

if TYPE_CHECKING:
    from projections.memory.service import LongTermMemory
    from projections.session.events import SummaryCommitted

__all__ = ["MemoryLedgerParts", "SessionMemory"]


class MemoryLedgerParts(LedgerParts, Protocol):
    """What the memory verbs use of a ledger besides the reads' parts."""

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory over the same store."""
        ...


class SessionMemory(SessionReads):
    """The memory verbs of :class:`~projections.ledger.Session`."""

    ledger: MemoryLedgerParts
    user_id: str | None

    async def propose_summary_facts(self, committed: SummaryCommitted) -> list[str]:
        """Propose the committed summary's long-term facts for the session's user (if any)."""
        if self.user_id is None:
            return []
        from projections.memory.bridge import propose_summary_facts

        return await propose_summary_facts(
            self.ledger.memory,
            self.tenant_id,
            self.user_id,
            self.session_id,
            await self.latest(),
            committed.summary,
            committed.summary_version,
        )

    async def propose_memory(
        self,
        *,
        key: str,
        value: str,
        category: str,
        source_ids: Sequence[str],
        confidence: float,
        user_id: str | None = None,
        ttl_days: float | None = None,
    ) -> RecordedEvent:
        """Propose a long-term memory of the session's user, citing the messages (by id) it
        comes from. Only a proposal: the promoter decides, from consent and the tenant policy.

        Raises:
            MemoryRequestError: no user, no sources, an unknown message id, or a bad field.
        """
        from projections.memory.bridge import Proposal, propose_from_session

        proposal = Proposal(key, value, category, list(source_ids), confidence, ttl_days)
        user = user_id or self.user_id
        return await propose_from_session(
            self.ledger.memory, self.tenant_id, self.session_id, user, await self.latest(), proposal
        )
