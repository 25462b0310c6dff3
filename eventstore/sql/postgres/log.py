"""The append's round trips on PostgreSQL in one transaction (the protocol without the lock
hand-off): lock the tenant (reading the stream head), write everything in one statement, commit;
and the idempotency lookup both protocols share."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from eventstore.ids import id_bytes
from eventstore.records import PendingEvent, StoredEvent, StreamHead, chain_events
from eventstore.sql.postgres.statements import statements
from eventstore.sql.rows import stored_event
from eventstore.timestamps import parse_timestamp, timestamp_now

if TYPE_CHECKING:
    import asyncpg

__all__ = [
    "AppendOptions",
    "DuplicateEventId",
    "append_locked",
    "event_columns",
    "events_by_id",
    "lock",
    "raise_if_duplicate",
    "write",
]

_ID_CONSTRAINTS = ("events_event_id_uq", "payloads_pk", "payloads_pkey")


@dataclass(frozen=True, slots=True)
class AppendOptions:
    """How an append runs: the lock timeout (PostgreSQL's text form), row-level security, and
    the test hooks (see :class:`~eventstore.sql.postgres.recorder.PostgresRecorder`)."""

    lock_timeout: str | None
    row_level_security: bool
    before_write: Callable[[], Awaitable[None]] | None = None
    commit_delay: Callable[[], float] | None = None
    #: the turn lease (``idle_session_timeout`` while a hand-off holds the turn), or None
    turn_timeout: str | None = None


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


async def append_locked(
    db: asyncpg.Connection,
    options: AppendOptions,
    tenant_id: str,
    stream_id: str,
    expected_version: int | None,
    pending: Sequence[PendingEvent],
) -> list[StoredEvent] | StreamHead:
    """Inside the caller's transaction: lock, check the version, chain and write. Returns the
    records, or the stream head when it is not at ``expected_version``."""
    rls = options.row_level_security
    position, head = await lock(db, tenant_id, stream_id, options.lock_timeout, rls)
    if expected_version is not None and expected_version != head.version:
        return head
    stored = chain_events(head, position, pending, timestamp_now())
    if options.before_write is not None:
        await options.before_write()
    await write(db, stored)
    if options.commit_delay is not None:
        await asyncio.sleep(options.commit_delay())
    return stored


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
            *event_columns(stored),
            last.version,
            last.hash,
            last.position,
        )
    except Exception as error:
        raise_if_duplicate(error, first.event_id)
        raise


def event_columns(stored: Sequence[StoredEvent]) -> tuple[list[object], ...]:
    """The chained events as the write statements' eleven array parameters: positions,
    versions, ids, types, schema versions, actors, payload hashes, previous hashes, hashes,
    salts and payloads."""
    return (
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
    )


def raise_if_duplicate(error: Exception, event_id: str) -> None:
    """Raise :class:`DuplicateEventId` if ``error`` is a unique violation of an event id."""
    # payloads_pkey: the name before schema 5 keyed payloads by tenant.
    if getattr(error, "constraint_name", None) in _ID_CONSTRAINTS:
        raise DuplicateEventId(event_id) from error
