"""Erasure with what was derived from the erased events.

``EventStore.erase`` deletes the payloads it is given. A memory proposal copies a value out of
the messages it cites, so erasing a message alone would leave that value readable in the
proposal's payload (the memory view shows it "retracted", ``log --json`` and bundles still
carry it). :func:`erase_events` therefore erases, in the same recorded step, every
``MemoryProposed`` event whose sources include an erased event.
"""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from eventstore import ErasureReceipt, EventStore
from projections.memory.events import MEMORY_PROPOSED

__all__ = ["derived_proposals", "erase_events"]

_MEMORY_PREFIX = "memory/"


async def derived_proposals(
    store: EventStore, tenant_id: str, event_ids: Iterable[str]
) -> list[str]:
    """The ids of the tenant's ``MemoryProposed`` events that cite any of ``event_ids``."""
    wanted = set(event_ids)
    found: list[str] = []
    for head in await store.streams(tenant_id):
        if not head.stream_id.startswith(_MEMORY_PREFIX):
            continue
        for event in await store.read_stream(tenant_id, head.stream_id):
            sources = (event.data or {}).get("source_event_ids") or []
            if event.type == MEMORY_PROPOSED and wanted.intersection(map(str, sources)):
                found.append(str(event.event_id))
    return found


async def erase_events(
    store: EventStore,
    tenant_id: str,
    event_ids: Iterable[UUID | str],
    *,
    reason: str,
    requested_by: str,
) -> ErasureReceipt:
    """Erase ``event_ids`` and the memory proposals derived from them, in one erasure.

    Raises the errors of :meth:`EventStore.erase`."""
    ids = [str(i) for i in event_ids]
    derived = [i for i in await derived_proposals(store, tenant_id, ids) if i not in ids]
    return await store.erase(tenant_id, ids + derived, reason=reason, requested_by=requested_by)
