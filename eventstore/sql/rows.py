"""Rows shared by the SQL backends: conversions to and from records (no SQLAlchemy: the
event select itself is :mod:`eventstore.sql.select_events`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventstore.ids import id_bytes, id_text
from eventstore.records import StoredEvent
from eventstore.timestamps import format_micros, parse_timestamp

__all__ = ["contiguous", "event_row", "stored_event"]


def stored_event(row: Any) -> StoredEvent:
    """A stored row (columns in ``EVENT_COLUMNS`` order) as a record."""
    # Positional: the select list follows StoredEvent's field order (checked in select_events).
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
