"""The erasure sequence, written once for every backend.

A backend provides the steps (:class:`ErasureSteps`) inside one transaction that holds the
tenant's append lock; :func:`run_erasure` decides and orders them:

1. lock the tenant and the erasure stream (refusing when the tenant's log is not at the
   position the caller planned the erasure at), find the named events;
2. decide what to erase (:func:`~eventstore.records.plan_erasure`: unknown ids and erasure
   records are refused, ids erased before are skipped);
3. append ``PayloadErased`` naming the ids (chained like any event);
4. record which ids it erased (the database refuses a payload delete without this row);
5. delete the payloads and their salts;
6. delete what was derived from them: snapshots of their streams and read-model rows of these
   events, which may hold copies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from eventstore.errors import LogMovedError
from eventstore.recorder import ErasureOutcome, MakeErasure
from eventstore.records import StoredEvent, StreamHead, chain_events, plan_erasure

__all__ = ["ErasureSteps", "run_erasure"]


class ErasureSteps(Protocol):
    """The storage operations of one erasure, all inside the caller's transaction."""

    async def lock(self) -> tuple[int, StreamHead]:
        """Take the tenant's append lock; the tenant position and the erasure stream's head."""
        ...

    async def find(self, event_ids: Sequence[str]) -> Mapping[str, StoredEvent]:
        """The tenant's events among ``event_ids`` (other tenants' are left out)."""
        ...

    async def write(self, erasure: StoredEvent) -> None:
        """Append the chained ``PayloadErased`` event (and move both heads)."""
        ...

    async def mark_erased(self, event_ids: Sequence[str], erased_by: int) -> None:
        """Record that ``PayloadErased`` at position ``erased_by`` erased these events."""
        ...

    async def delete_payloads(self, event_ids: Sequence[str]) -> None:
        """Delete the payload rows (bytes and salts) of these events."""
        ...

    async def drop_derived(self, streams: Sequence[str], event_ids: Sequence[str]) -> None:
        """Delete the snapshots of ``streams`` and the read-model rows of ``event_ids``."""
        ...


async def run_erasure(
    steps: ErasureSteps,
    tenant_id: str,
    event_ids: Sequence[str],
    make_erasure: MakeErasure,
    recorded_at: str,
    expected_position: int | None = None,
) -> ErasureOutcome:
    """Carry out one erasure with a backend's steps (see the module docstring).

    Raises:
        LogMovedError: ``expected_position`` is given and the tenant's log is elsewhere.
    """
    position, head = await steps.lock()
    if expected_position is not None and position != expected_position:
        raise LogMovedError(tenant_id, expected_position, position)
    found = await steps.find(event_ids)
    to_erase, already = plan_erasure(tenant_id, event_ids, found)
    if not to_erase:
        return ErasureOutcome(None, [], already)
    (erasure,) = chain_events(head, position, [make_erasure(to_erase)], recorded_at)
    await steps.write(erasure)
    await steps.mark_erased(to_erase, erasure.position)
    await steps.delete_payloads(to_erase)
    streams = sorted({found[event_id].stream_id for event_id in to_erase})
    await steps.drop_derived(streams, to_erase)
    return ErasureOutcome(erasure, to_erase, already)
