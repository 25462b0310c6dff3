"""The select of events with their payloads and erasures, shared by the SQL backends' statements
(Core; compiled once per dialect)."""

from __future__ import annotations

from sqlalchemy import select

from eventstore.records import StoredEvent
from eventstore.sql.schema import erasures, events, payloads

__all__ = ["EVENT_COLUMNS", "SELECT_EVENTS"]

EVENT_COLUMNS = [
    events.c.tenant_id,
    events.c.stream_id,
    events.c.version,
    events.c.position,
    events.c.event_id,
    events.c.type,
    events.c.schema_version,
    events.c.recorded_at,
    events.c.actor,
    events.c.payload_hash,
    events.c.prev_hash,
    events.c.hash,
    payloads.c.payload,
    payloads.c.salt,
    erasures.c.erased_by,
]
# Joining on the tenant too means a payload or erasure row edited to another tenant no longer
# belongs to the event, which verification then reports.
SELECT_EVENTS = select(*EVENT_COLUMNS).select_from(
    events.outerjoin(
        payloads,
        (payloads.c.event_id == events.c.event_id) & (payloads.c.tenant_id == events.c.tenant_id),
    ).outerjoin(
        erasures,
        (erasures.c.event_id == events.c.event_id) & (erasures.c.tenant_id == events.c.tenant_id),
    )
)


assert [column.name for column in EVENT_COLUMNS] == list(StoredEvent._fields)
