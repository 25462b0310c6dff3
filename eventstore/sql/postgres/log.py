"""The append's round trips on PostgreSQL: lock the tenant (reading the stream head), write
everything in one statement, and the idempotency lookup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from eventstore.ids import id_bytes
from eventstore.records import StoredEvent, StreamHead
from eventstore.sql.postgres.statements import statements
from eventstore.sql.rows import stored_event
from eventstore.timestamps import parse_timestamp

if TYPE_CHECKING:
    import asyncpg

__all__ = ["DuplicateEventId", "events_by_id", "lock", "write"]

_ID_CONSTRAINTS = ("events_event_id_uq", "payloads_pk", "payloads_pkey")


class DuplicateEventId(Exception):
    """The write hit an event id that is recorded already (a retry, or a conflict)."""

    def __init__(self, event_id: str) -> None:
        super().__init__(event_id)
        self.event_id = event_id


async def lock(
    db: asyncpg.Connection,
    tenant_id: str,
    stream_id: str,
    lock_timeout: str | None,
    row_level_security: bool,
) -> tuple[int, StreamHead]:
    """Lock the tenant's head row; the tenant position and the stream's head."""
    row = await db.fetchrow(
        statements().lock, tenant_id, stream_id, lock_timeout, row_level_security
    )
    assert row is not None  # the function always returns one row
    position, version, digest = row
    if version is None:
        return position, StreamHead.empty(tenant_id, stream_id)
    return position, StreamHead(tenant_id, stream_id, version, digest)


async def events_by_id(
    db: asyncpg.Connection, tenant_id: str, event_ids: Sequence[str]
) -> dict[str, StoredEvent]:
    """The tenant's events with these ids (an id is unique within its tenant)."""
    rows = await db.fetch(statements().events_by_id, tenant_id, [id_bytes(i) for i in event_ids])
    return {event.event_id: event for event in map(stored_event, rows)}


async def write(db: asyncpg.Connection, stored: Sequence[StoredEvent]) -> None:
    """Insert chained events with their payloads and move both heads, in one statement."""
    first, last = stored[0], stored[-1]
    try:
        await db.execute(
            statements().write,
            first.tenant_id,
            first.stream_id,
            parse_timestamp(last.recorded_at),
            [event.position for event in stored],
            [event.version for event in stored],
            [id_bytes(event.event_id) for event in stored],
            [event.type for event in stored],
            [event.schema_version for event in stored],
            [event.actor for event in stored],
            [event.payload_hash for event in stored],
            [event.prev_hash for event in stored],
            [event.hash for event in stored],
            [event.salt for event in stored],
            [event.payload for event in stored],
            last.version,
            last.hash,
            last.position,
        )
    except Exception as error:
        # payloads_pkey: the name before schema 5 keyed payloads by tenant.
        if getattr(error, "constraint_name", None) in _ID_CONSTRAINTS:
            raise DuplicateEventId(first.event_id) from error
        raise
