"""Refused requests, recorded in the log: a request that tries to reach outside its tenant (a
memory citing an event the tenant does not have, say) leaves an ``AccessRefused`` event on the
tenant's ``audit/refusals`` stream, so the refusal itself is auditable and counted by ``stats``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from eventstore import EventStore, NewEvent, RecordedEvent

__all__ = ["ACCESS_REFUSED", "AUDIT_STREAM", "AccessRefused", "record_refusal"]

AUDIT_STREAM = "audit/refusals"
ACCESS_REFUSED = "AccessRefused"


class AccessRefused(BaseModel):
    """What was refused and why, and how many references it named (never foreign ids)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operation: str = Field(min_length=1)
    reason: str
    references: int = Field(ge=0)


async def record_refusal(
    store: EventStore, tenant_id: str, *, operation: str, reason: str, references: int
) -> RecordedEvent:
    """Append an ``AccessRefused`` event (what was refused and why; no foreign ids, which
    could themselves leak what another tenant holds)."""
    (event,) = await store.append(
        tenant_id,
        AUDIT_STREAM,
        [
            NewEvent(
                type=ACCESS_REFUSED,
                data={"operation": operation, "reason": reason, "references": references},
            )
        ],
    )
    return event
