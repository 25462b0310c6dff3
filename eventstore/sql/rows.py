"""Rows shared by the SQL backends: the event select, and conversions to and from records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from eventstore.ids import id_bytes, id_text
from eventstore.records import StoredEvent
from eventstore.sql.schema import erasures, events, payloads
from eventstore.timestamps import format_micros, parse_timestamp

__all__ = ["EVENT_COLUMNS", "SELECT_EVENTS", "contiguous", "event_row", "stored_event"]

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


def stored_event(row: Any) -> StoredEvent:
    """A stored row (columns in ``EVENT_COLUMNS`` order) as a record."""
    # Positional: the select list follows StoredEvent's field order (checked at import below).
    return StoredEvent(*row[:4], id_text(row[4]), *row[5:7], _recorded_text(row[7]), *row[8:])  # type: ignore[call-arg]


def _recorded_text(micros: Any) -> Any:
    # An edited column (another type, a time out of range) is passed on as it is, for
    # verification to report as malformed.
    if type(micros) is int:
        try:
            return format_micros(micros)
        except (OverflowError, ValueError):
            return micros
    return micros


def event_row(event: StoredEvent) -> tuple[Any, ...]:
    """A record as the values of an ``events`` row, in the table's column order."""
    # Column order of schema.events.
    return (
        event.tenant_id,
        event.position,
        event.stream_id,
        event.version,
        id_bytes(event.event_id),
        event.type,
        event.schema_version,
        parse_timestamp(event.recorded_at),
        event.actor,
        event.payload_hash,
        event.prev_hash,
        event.hash,
    )


def contiguous(rows: Sequence[Sequence[Any]], first: int) -> list[bytes]:
    """The hashes of ``(index, hash)`` rows that run on without a gap from ``first``."""
    found: list[bytes] = []
    for index, digest in rows:
        if index != first + len(found):
            break
        found.append(bytes(digest))
    return found
