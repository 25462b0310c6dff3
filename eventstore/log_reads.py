"""Reading the log: a stream, the tenant's log in position order, events by id, heads.

Every event read is checked against its hashes and chain as it is read (``verify_reads``,
:mod:`eventstore.read_check`) and decoded (its data upcast to the registry's schema version).
A mixin of :class:`~eventstore.store.EventStore`, as :class:`~eventstore.derived.DerivedVerbs`
is: the verbs use only what :class:`_Reading` names."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Protocol
from uuid import UUID

from eventstore.codec import decode_event, parse_event_id
from eventstore.events import RecordedEvent, StreamPosition
from eventstore.names import validate_stream, validate_tenant
from eventstore.read_check import check_read
from eventstore.recorder import Recorder
from eventstore.records import StoredEvent, StreamHead
from eventstore.registry import EventTypeRegistry

__all__ = ["LogReads"]


class _Reading(Protocol):
    """What these verbs use of the store they are mixed into."""

    recorder: Recorder
    registry: EventTypeRegistry
    verify_reads: bool

    async def initialize(self) -> None: ...

    async def read_batch(
        self,
        tenant_id: str,
        *,
        after_position: int = 0,
        limit: int = 500,
        to_position: int | None = None,
    ) -> list[RecordedEvent]: ...


class LogReads:
    """The store's reading verbs (see the module docstring)."""

    async def read_stream(
        self: _Reading,
        tenant_id: str,
        stream_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
    ) -> list[RecordedEvent]:
        """The events of one stream with ``from_version <= version <= to_version``."""
        validate_tenant(tenant_id)
        validate_stream(stream_id, allow_reserved=True)
        await self.initialize()
        stored = await self.recorder.read_stream(tenant_id, stream_id, from_version, to_version)
        return _checked(self, tenant_id, stored)

    async def read_stream_watching(
        self: _Reading, tenant_id: str, stream_id: str, *, from_version: int = 1, watch: str
    ) -> tuple[list[RecordedEvent], StreamPosition]:
        """The events of a stream from ``from_version`` on, and the head of the stream
        ``watch`` read no later than them, in one round trip (a catch-up that must notice
        whether another stream, such as the erasure stream, has moved)."""
        validate_tenant(tenant_id)
        validate_stream(stream_id, allow_reserved=True)
        validate_stream(watch, allow_reserved=True)
        await self.initialize()
        stored, head = await self.recorder.read_stream_and_head(
            tenant_id, stream_id, from_version, watch
        )
        return _checked(self, tenant_id, stored), _position(tenant_id, watch, head)

    async def read_log(
        self: _Reading,
        tenant_id: str,
        *,
        after_position: int = 0,
        to_position: int | None = None,
        batch_size: int = 500,
    ) -> AsyncIterator[RecordedEvent]:
        """The tenant's events after ``after_position`` (up to ``to_position``), in order.

        Reads in batches, so a log of any length streams in bounded memory.
        """
        cursor = after_position
        while to_position is None or cursor < to_position:
            batch = await self.read_batch(
                tenant_id, after_position=cursor, limit=batch_size, to_position=to_position
            )
            for event in batch:
                yield event
            if len(batch) < batch_size:
                return
            cursor = batch[-1].position

    async def read_batch(
        self: _Reading,
        tenant_id: str,
        *,
        after_position: int = 0,
        limit: int = 500,
        to_position: int | None = None,
    ) -> list[RecordedEvent]:
        """Up to ``limit`` events of the tenant after ``after_position``, in position order."""
        validate_tenant(tenant_id)
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        await self.initialize()
        stored = await self.recorder.read_log(tenant_id, after_position, limit, to_position)
        return _checked(self, tenant_id, stored)

    async def read_events(
        self: _Reading, tenant_id: str, event_ids: Iterable[UUID | str]
    ) -> list[RecordedEvent]:
        """The tenant's events with these ids, in position order (unknown ids are left out)."""
        validate_tenant(tenant_id)
        ids = [parse_event_id(raw) for raw in event_ids]
        await self.initialize()
        stored = await self.recorder.read_events(tenant_id, ids)
        ordered = sorted(stored, key=lambda event: event.position)
        return _checked(self, tenant_id, ordered, consecutive=False)

    async def stream_head(self: _Reading, tenant_id: str, stream_id: str) -> StreamPosition:
        """The stream's last version (0 if it has no events) and that event's hash."""
        validate_tenant(tenant_id)
        validate_stream(stream_id, allow_reserved=True)
        await self.initialize()
        return _position(
            tenant_id, stream_id, await self.recorder.stream_head(tenant_id, stream_id)
        )

    async def tenant_position(self: _Reading, tenant_id: str) -> int:
        """The position of the tenant's last event (0 if it has none)."""
        validate_tenant(tenant_id)
        await self.initialize()
        return (await self.recorder.log_state(tenant_id)).position

    async def streams(self: _Reading, tenant_id: str) -> list[StreamPosition]:
        """Every stream of a tenant with its head, sorted by stream id."""
        validate_tenant(tenant_id)
        await self.initialize()
        heads = (await self.recorder.log_state(tenant_id)).heads
        return [_position(tenant_id, head.stream_id, head) for _, head in sorted(heads.items())]

    async def tenants(self: _Reading) -> list[str]:
        """Every tenant that has events (for operators; normal reads always name a tenant)."""
        await self.initialize()
        return await self.recorder.tenants()


def _checked(
    store: _Reading, tenant_id: str, stored: list[StoredEvent], *, consecutive: bool = True
) -> list[RecordedEvent]:
    """Events as read: checked against their hashes and chain (when the store verifies
    reads) and decoded."""
    if store.verify_reads:
        check_read(tenant_id, stored, consecutive=consecutive)
    return [decode_event(store.registry, event) for event in stored]


def _position(tenant_id: str, stream_id: str, head: StreamHead) -> StreamPosition:
    return StreamPosition(
        tenant_id=tenant_id, stream_id=stream_id, version=head.version, hash=head.hash.hex()
    )
