"""The EventStore facade: validation, encoding and hashing around one recorder.

Everything that can be done before a lock is done here (names, JSON, canonical bytes, salts,
payload hashes); the recorder then holds the lock only to read the heads, chain and write.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from eventstore.backends import open_recorder
from eventstore.codec import decode_event, erasure_maker, parse_event_id, prepare_events
from eventstore.derived import DerivedVerbs
from eventstore.errors import EventValidationError
from eventstore.events import NewEvent, RecordedEvent
from eventstore.log_reads import LogReads
from eventstore.loop_lock import LoopSafeLock, Wakeups
from eventstore.names import validate_actor, validate_stream, validate_tenant
from eventstore.read_models import ReadModels
from eventstore.recorder import Recorder
from eventstore.records import StoredEvent
from eventstore.registry import EventTypeRegistry
from eventstore.scan import ProgressCallback
from eventstore.subscription import Subscription

__all__ = ["DEFAULT_MAX_PAYLOAD_BYTES", "ErasureReceipt", "EventStore", "ProgressCallback"]

DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024


class ErasureReceipt(BaseModel):
    """What ``erase`` did: the ``PayloadErased`` event, and which ids were erased before."""

    model_config = ConfigDict(frozen=True)

    erasure: RecordedEvent | None
    erased: list[UUID]
    already_erased: dict[UUID, int]
    #: what of the erased bytes is still on disk, and when it goes (None: nothing)
    residue: str | None = None


class EventStore(LogReads, DerivedVerbs):
    """An append-only, hash-chained event log for many tenants.

    Open it with :meth:`open` and use it as an async context manager::

        async with EventStore.open("ledger.db") as store:
            await store.append("acme", "session/42", [NewEvent(type="Note", data={})])

    Args:
        recorder: the storage backend.
        registry: event types, schema versions and upcasters (a permissive one by default).
        max_payload_bytes: the largest canonical payload accepted (1 MiB by default).
        verify_reads: check every event read against its hashes and chain as it is read
            (:mod:`eventstore.read_check`), raising ``TamperedLogError`` instead of serving an
            edited event. On by default; ``False`` is the degraded mode that trusts the
            database (about 3 µs per event saved; ``verify`` still finds everything).
    """

    def __init__(
        self,
        recorder: Recorder,
        *,
        registry: EventTypeRegistry | None = None,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
        verify_reads: bool = True,
    ) -> None:
        if max_payload_bytes < 1:
            raise ValueError(f"max_payload_bytes must be positive, got {max_payload_bytes}")
        self.recorder = recorder
        self.registry = registry if registry is not None else EventTypeRegistry()
        self.read_models = ReadModels(recorder, self.initialize)
        self.max_payload_bytes = max_payload_bytes
        self.verify_reads = verify_reads
        self._opened = False
        self._open_lock = LoopSafeLock()  # any thread's loop may open the store first
        self._wakeups = Wakeups()

    @classmethod
    def open(
        cls,
        url: str | os.PathLike[str] = "ctxledger.db",
        *,
        registry: EventTypeRegistry | None = None,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
        verify_reads: bool = True,
        **options: Any,
    ) -> EventStore:
        """Create a store for a database URL; the database is opened on first use.

        Args:
            url: ``sqlite+aiosqlite:///path.db``, ``sqlite:///path.db``, a plain file path,
                ``postgresql+asyncpg://user:password@host/db``, or ``memory://`` for the
                in-process reference backend (:data:`eventstore.backends.BACKENDS`).
            options: the backend's own options, e.g. ``create=False`` (tools that only read or
                verify: a mistyped path is then an error, not a new empty log), SQLite's
                ``synchronous`` and ``busy_timeout``, PostgreSQL's ``lock_timeout``,
                ``row_level_security`` and ``pool_size`` (see each backend's
                ``open_recorder``). SQLite also takes them in the URL's query string.

        Raises:
            UnsupportedDatabaseError: the URL names no backend ctxledger provides, or an
                option is not the backend's.
        """
        return cls(
            open_recorder(url, options),
            registry=registry,
            max_payload_bytes=max_payload_bytes,
            verify_reads=verify_reads,
        )

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        """Open the database and create or check its schema (idempotent)."""
        if self._opened:
            return
        async with self._open_lock:
            if not self._opened:
                await self.recorder.initialize()
                self._opened = True

    async def close(self) -> None:
        """Close every connection. The store can be opened again with :meth:`initialize`."""
        if self._opened:
            self._opened = False
            await self.recorder.close()

    async def __aenter__(self) -> Self:
        await self.initialize()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # -- writing -----------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None = None,
    ) -> list[RecordedEvent]:
        """Append events to a stream atomically: all of them or none.

        Args:
            expected_version: the version the stream must be at (0 for a new stream), or None
                to append whatever the version.

        Returns:
            The recorded events. For an idempotent retry (every event id already recorded with
            the same content) the original records, and nothing is written.

        Raises:
            ConcurrencyError: the stream is not at ``expected_version``.
            IdempotencyConflict: an event id is already recorded with other content.
            EventValidationError: a name, the data or its size is not acceptable.
        """
        validate_tenant(tenant_id)
        validate_stream(stream_id)
        if expected_version is not None and (
            isinstance(expected_version, bool)
            or not isinstance(expected_version, int)
            or expected_version < 0
        ):
            raise EventValidationError(
                f"expected_version must be None or an integer >= 0, got {expected_version!r}"
            )
        pending = prepare_events(self.registry, self.max_payload_bytes, events)
        await self.initialize()
        outcome = await self.recorder.append(tenant_id, stream_id, expected_version, pending)
        if outcome.written:
            self._wake(tenant_id)
        return [self._decode(event) for event in outcome.events]

    async def erase(
        self,
        tenant_id: str,
        event_ids: Iterable[UUID | str],
        *,
        reason: str,
        requested_by: str,
        expected_position: int | None = None,
    ) -> ErasureReceipt:
        """Erase the payloads of events, keeping their hashed envelopes.

        Appends a ``PayloadErased`` event (stream ``ledger/erasures``) naming the events, the
        reason and the requester, and deletes the payloads and salts in the same transaction.
        Verification then reports these events as erased, not as tampered. Ids that were
        erased before are skipped and listed in the receipt.

        Only these events: ``projections.erasure.erase_events`` adds what was derived.

        Raises:
            EventNotFoundError: an id is not an event of this tenant (nothing is erased).
            ErasureError: an id names a ``PayloadErased`` or ``CheckpointRecorded`` event.
            LogMovedError: the log is not at ``expected_position`` (nothing is erased).
        """
        validate_tenant(tenant_id)
        ids = [parse_event_id(raw) for raw in event_ids]
        if not ids:
            raise EventValidationError("erase needs at least one event id")
        for name, value in (("reason", reason), ("requested_by", requested_by)):
            if not isinstance(value, str) or not value.strip():
                raise EventValidationError(f"erase needs a non-empty {name}, got {value!r}")
        validate_actor(requested_by)

        await self.initialize()
        make = erasure_maker(reason, requested_by)
        outcome = await self.recorder.erase(tenant_id, ids, make, expected_position)
        if outcome.erasure is not None:
            self._wake(tenant_id)
        return ErasureReceipt(
            erasure=self._decode(outcome.erasure) if outcome.erasure else None,
            erased=[UUID(event_id) for event_id in outcome.erased],
            already_erased={UUID(k): v for k, v in outcome.already_erased.items()},
            residue=outcome.residue,
        )

    def subscribe(
        self,
        tenant_id: str,
        *,
        after_position: int = 0,
        poll_interval: float = 0.25,
        batch_size: int = 500,
    ) -> Subscription:
        """Follow the tenant's log: catch up after ``after_position``, then poll for more.

        Positions are gap-free and commit-ordered, so the cursor never skips an event. Appends
        made through this store object wake the subscription at once; appends from other
        processes are seen at the next poll.
        """
        validate_tenant(tenant_id)
        return Subscription(
            self,
            tenant_id,
            after_position=after_position,
            poll_interval=poll_interval,
            batch_size=batch_size,
        )

    # -- helpers -----------------------------------------------------------------------------

    def _decode(self, event: StoredEvent) -> RecordedEvent:
        return decode_event(self.registry, event)

    def _wake(self, tenant_id: str) -> None:
        self._wakeups.wake(tenant_id)

    def _wakeup(self, tenant_id: str) -> asyncio.Event:
        """The event the next append to ``tenant_id`` through this store will set (for the
        running loop: every loop waiting gets its own)."""
        return self._wakeups.event(tenant_id)
