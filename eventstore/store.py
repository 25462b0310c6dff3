"""The EventStore facade: validation, encoding and hashing around one recorder.

Everything that can be done before a lock is done here (names, JSON, canonical bytes, salts,
payload hashes); the recorder then holds the lock only to read the heads, chain and write.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict, ValidationError
from uuid_utils.compat import uuid7

from eventstore.encoding import canonical_json, decode_json
from eventstore.errors import EventValidationError, PayloadTooLargeError, StorageError
from eventstore.events import NewEvent, RecordedEvent, Snapshot, StreamPosition
from eventstore.hashing import new_salt, payload_hash, snapshot_hash
from eventstore.merkle import Algorithm
from eventstore.names import validate_actor, validate_event_type, validate_stream, validate_tenant
from eventstore.notes import Checkpoint, Signer, checkpoint_body, sign_note
from eventstore.recorder import Recorder
from eventstore.records import (
    CHECKPOINT_EVENT_TYPE,
    CHECKPOINT_STREAM,
    ERASURE_EVENT_TYPE,
    ERASURE_STREAM,
    PendingEvent,
    SnapshotRecord,
    StoredEvent,
    default_origin,
)
from eventstore.registry import EventTypeRegistry
from eventstore.subscription import Subscription
from eventstore.tree import MerkleLog
from eventstore.urls import recorder_for_url
from eventstore.verify import ChainVerifier, VerificationReport

__all__ = ["DEFAULT_MAX_PAYLOAD_BYTES", "ErasureReceipt", "EventStore", "ProgressCallback"]

DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024
#: Called with (events checked so far, events to check) while verifying.
ProgressCallback = Callable[[int, int], None]
_VERIFY_BATCH = 5000


class ErasureReceipt(BaseModel):
    """What ``erase`` did: the ``PayloadErased`` event, and which ids were erased before."""

    model_config = ConfigDict(frozen=True)

    erasure: RecordedEvent | None
    erased: list[UUID]
    already_erased: dict[UUID, int]


class EventStore:
    """An append-only, hash-chained event log for many tenants.

    Open it with :meth:`open` and use it as an async context manager::

        async with EventStore.open("ledger.db") as store:
            await store.append("acme", "session/42", [NewEvent(type="Note", data={})])

    Args:
        recorder: the storage backend.
        registry: event types, schema versions and upcasters (a permissive one by default).
        max_payload_bytes: the largest canonical payload accepted (1 MiB by default).
    """

    def __init__(
        self,
        recorder: Recorder,
        *,
        registry: EventTypeRegistry | None = None,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
    ) -> None:
        if max_payload_bytes < 1:
            raise ValueError(f"max_payload_bytes must be positive, got {max_payload_bytes}")
        self.recorder = recorder
        self.registry = registry if registry is not None else EventTypeRegistry()
        self.max_payload_bytes = max_payload_bytes
        self._opened = False
        self._open_lock = asyncio.Lock()
        self._wakeups: dict[str, asyncio.Event] = {}

    @classmethod
    def open(
        cls,
        url: str | os.PathLike[str] = "ctxledger.db",
        *,
        registry: EventTypeRegistry | None = None,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        create: bool = True,
        lock_timeout: float | None = 10.0,
        row_level_security: bool = False,
    ) -> EventStore:
        """Create a store for a database URL; the database is opened on first use.

        Args:
            url: ``sqlite+aiosqlite:///path.db``, ``sqlite:///path.db``, a plain file path, or
                ``memory://`` for the in-process reference backend.
            synchronous: SQLite's durability pragma (``FULL`` by default).
            busy_timeout: seconds a SQLite writer waits for another process's lock.
            create: create the database if it does not exist (default). Pass False in tools
                that only read or verify, so a mistyped path is an error, not a new empty log.
            lock_timeout: PostgreSQL: seconds an append waits for its tenant's lock.
            row_level_security: PostgreSQL: enforce tenant isolation in the server too (see
                docs/operations-postgres.md).

        Raises:
            UnsupportedDatabaseError: the URL names a backend ctxledger does not provide.
        """
        recorder = recorder_for_url(
            url,
            synchronous=synchronous,
            busy_timeout=busy_timeout,
            create=create,
            lock_timeout=lock_timeout,
            row_level_security=row_level_security,
        )
        return cls(recorder, registry=registry, max_payload_bytes=max_payload_bytes)

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
        pending = self._prepare(events)
        await self.initialize()
        outcome = await self.recorder.append(tenant_id, stream_id, expected_version, pending)
        if outcome.written:
            self._wake(tenant_id)
        return [self._decode(event) for event in outcome.events]

    def _prepare(self, events: Sequence[NewEvent]) -> list[PendingEvent]:
        given: object = events  # callers without a type checker pass anything
        if isinstance(given, NewEvent) or not isinstance(given, Sequence):
            raise EventValidationError(
                f"append takes a list of NewEvent, got {type(given).__name__}: wrap a single "
                f"event in a list"
            )
        if not events:
            raise EventValidationError("append needs at least one event, got an empty list")
        pending = [self._prepare_one(event) for event in events]
        ids = [event.event_id for event in pending]
        if len(set(ids)) != len(ids):
            duplicate = next(event_id for event_id in ids if ids.count(event_id) > 1)
            raise EventValidationError(
                f"event id {duplicate} occurs twice in one batch: every event needs its own id"
            )
        return pending

    def _prepare_one(self, event: NewEvent) -> PendingEvent:
        if not isinstance(event, NewEvent):
            raise EventValidationError(f"append takes NewEvent objects, got {type(event).__name__}")
        validate_event_type(event.type)
        validate_actor(event.actor)
        self.registry.validate(event.type, event.data)
        payload = canonical_json(event.data)
        if len(payload) > self.max_payload_bytes:
            raise PayloadTooLargeError(event.type, len(payload), self.max_payload_bytes)
        salt = new_salt()
        return PendingEvent(
            event_id=str(event.event_id),
            type=event.type,
            schema_version=self.registry.schema_version(event.type),
            actor=event.actor,
            payload=payload,
            salt=salt,
            payload_hash=payload_hash(salt, payload),
        )

    async def erase(
        self,
        tenant_id: str,
        event_ids: Iterable[UUID | str],
        *,
        reason: str,
        requested_by: str,
    ) -> ErasureReceipt:
        """Erase the payloads of events, keeping their hashed envelopes.

        Appends a ``PayloadErased`` event (stream ``ledger/erasures``) naming the events, the
        reason and the requester, and deletes the payloads and salts in the same transaction.
        Verification then reports these events as erased, not as tampered. Ids that were
        erased before are skipped and listed in the receipt.

        Raises:
            EventNotFoundError: an id is not an event of this tenant (nothing is erased).
            ErasureError: an id names a ``PayloadErased`` event.
        """
        validate_tenant(tenant_id)
        ids = [_parse_event_id(raw) for raw in event_ids]
        if not ids:
            raise EventValidationError("erase needs at least one event id")
        for name, value in (("reason", reason), ("requested_by", requested_by)):
            if not isinstance(value, str) or not value.strip():
                raise EventValidationError(f"erase needs a non-empty {name}, got {value!r}")
        validate_actor(requested_by)

        def make_erasure(to_erase: list[str]) -> PendingEvent:
            payload = canonical_json(
                {"event_ids": to_erase, "reason": reason, "requested_by": requested_by}
            )
            salt = new_salt()
            return PendingEvent(
                event_id=str(uuid7()),
                type=ERASURE_EVENT_TYPE,
                schema_version=1,
                actor=requested_by,
                payload=payload,
                salt=salt,
                payload_hash=payload_hash(salt, payload),
            )

        await self.initialize()
        outcome = await self.recorder.erase(tenant_id, ids, make_erasure)
        if outcome.erasure is not None:
            self._wake(tenant_id)
        return ErasureReceipt(
            erasure=self._decode(outcome.erasure) if outcome.erasure else None,
            erased=[UUID(event_id) for event_id in outcome.erased],
            already_erased={UUID(k): v for k, v in outcome.already_erased.items()},
        )

    # -- reading -----------------------------------------------------------------------------

    async def read_stream(
        self,
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
        return [self._decode(event) for event in stored]

    async def read_log(
        self,
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
        self,
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
        return [self._decode(event) for event in stored]

    async def read_events(
        self, tenant_id: str, event_ids: Iterable[UUID | str]
    ) -> list[RecordedEvent]:
        """The tenant's events with these ids, in position order (unknown ids are left out)."""
        validate_tenant(tenant_id)
        ids = [_parse_event_id(raw) for raw in event_ids]
        await self.initialize()
        stored = await self.recorder.read_events(tenant_id, ids)
        return [self._decode(event) for event in sorted(stored, key=lambda e: e.position)]

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamPosition:
        """The stream's last version (0 if it has no events) and that event's hash."""
        validate_tenant(tenant_id)
        validate_stream(stream_id, allow_reserved=True)
        await self.initialize()
        head = await self.recorder.stream_head(tenant_id, stream_id)
        return StreamPosition(
            tenant_id=tenant_id, stream_id=stream_id, version=head.version, hash=head.hash.hex()
        )

    async def tenant_position(self, tenant_id: str) -> int:
        """The position of the tenant's last event (0 if it has none)."""
        validate_tenant(tenant_id)
        await self.initialize()
        return (await self.recorder.snapshot(tenant_id)).position

    async def streams(self, tenant_id: str) -> list[StreamPosition]:
        """Every stream of a tenant with its head, sorted by stream id."""
        validate_tenant(tenant_id)
        await self.initialize()
        heads = (await self.recorder.snapshot(tenant_id)).heads
        return [
            StreamPosition(
                tenant_id=tenant_id,
                stream_id=head.stream_id,
                version=head.version,
                hash=head.hash.hex(),
            )
            for _, head in sorted(heads.items())
        ]

    async def tenants(self) -> list[str]:
        """Every tenant that has events (for operators; normal reads always name a tenant)."""
        await self.initialize()
        return await self.recorder.tenants()

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

    # -- projection snapshots ----------------------------------------------------------------

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        """Store a projection snapshot (replacing that projection's previous one for the
        stream), guarded by a hash bound to its tenant, name, stream, versions and position."""
        validate_tenant(snapshot.tenant_id)
        validate_stream(snapshot.stream_id, allow_reserved=True)
        await self.initialize()
        fields = (
            snapshot.tenant_id,
            snapshot.name,
            snapshot.stream_id,
            snapshot.projection_version,
            snapshot.version,
            snapshot.position,
            snapshot.state,
        )
        await self.recorder.save_snapshot(SnapshotRecord(*fields, snapshot_hash(*fields)))

    async def load_snapshot(self, tenant_id: str, name: str, stream_id: str) -> Snapshot | None:
        """The latest snapshot of a projection for a stream; None when there is none or when
        its hash does not match (a damaged snapshot is never used: rebuild from the log)."""
        validate_tenant(tenant_id)
        await self.initialize()
        record = await self.recorder.load_snapshot(tenant_id, name, stream_id)
        if record is None or snapshot_hash(*record[:7]) != record.state_hash:
            return None
        return Snapshot(
            tenant_id=record.tenant_id,
            name=record.name,
            stream_id=record.stream_id,
            projection_version=record.projection_version,
            version=record.version,
            position=record.position,
            state=record.state,
        )

    # -- Merkle tree and checkpoints ---------------------------------------------------------

    def tree(self, tenant_id: str, algorithm: Algorithm = "blake3") -> MerkleLog:
        """The tenant's Merkle tree over its event hashes (see ``eventstore.tree``)."""
        return MerkleLog(self.recorder, validate_tenant(tenant_id), algorithm)

    async def checkpoint(
        self,
        tenant_id: str,
        signer: Signer,
        *,
        origin: str | None = None,
        algorithm: Algorithm = "blake3",
    ) -> RecordedEvent:
        """Sign the tenant's current tree size and root as a C2SP checkpoint and record it as a
        ``CheckpointRecorded`` event on ``ledger/checkpoints`` (itself the next leaf).

        The interior nodes are stored first, so later proofs need no rebuild.
        """
        validate_tenant(tenant_id)
        await self.initialize()
        tree = self.tree(tenant_id, algorithm)
        await tree.sync()
        size = await tree.size()
        checkpoint = Checkpoint(
            origin or default_origin(tenant_id), size, await tree.root(size), algorithm
        )
        note = sign_note(checkpoint_body(checkpoint), [signer])
        data = {
            "origin": checkpoint.origin,
            "size": size,
            "root": checkpoint.root.hex(),
            "algorithm": algorithm,
            "key_name": signer.name,
            "key_id": signer.verifier.key_id.hex(),
            "note": note,
        }
        pending = self._prepare_one(
            NewEvent(type=CHECKPOINT_EVENT_TYPE, data=data, actor=signer.name)
        )
        outcome = await self.recorder.append(tenant_id, CHECKPOINT_STREAM, None, [pending])
        self._wake(tenant_id)
        return self._decode(outcome.events[0])

    async def checkpoints(self, tenant_id: str) -> list[RecordedEvent]:
        """The tenant's recorded checkpoints, oldest first."""
        return await self.read_stream(tenant_id, CHECKPOINT_STREAM)

    # -- verification ------------------------------------------------------------------------

    async def verify(
        self,
        tenant_id: str,
        *,
        stream: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> VerificationReport:
        """Recompute every hash of a tenant's log (or of one stream) from the stored bytes.

        Reports the first bad event of each stream: an edited payload or envelope, a missing,
        re-ordered or moved event, a truncated stream. Erased payloads count as ``erased``
        when a verified ``PayloadErased`` names them.
        """
        validate_tenant(tenant_id)
        if stream is not None:
            validate_stream(stream, allow_reserved=True)
        await self.initialize()
        verifier = ChainVerifier(tenant_id, stream)
        snapshot = await self.recorder.snapshot(tenant_id, stream)
        if stream is None:
            # Scan to the furthest of the tenant head and the last stored event, so that an
            # edited head can neither hide events nor shorten the scan.
            last = max(snapshot.position, snapshot.last_event_position)
            await self._scan_log(verifier, tenant_id, last, progress)
        else:
            head = snapshot.heads.get(stream)
            last = max(head.version if head else 0, snapshot.last_stream_version)
            await self._scan_stream(verifier, tenant_id, stream, last, progress)
        if verifier.pending_erasures and stream != ERASURE_STREAM:
            later = await self.recorder.read_stream(
                tenant_id, ERASURE_STREAM, verifier.last_version(ERASURE_STREAM) + 1, None
            )
            verifier.feed_erasures(later)
        return verifier.finish(snapshot.heads, snapshot.position if stream is None else None)

    async def _scan_log(
        self,
        verifier: ChainVerifier,
        tenant_id: str,
        last: int,
        progress: ProgressCallback | None,
    ) -> None:
        cursor = 0
        while cursor < last:
            batch = await self.recorder.read_log(tenant_id, cursor, _VERIFY_BATCH, last)
            verifier.feed(batch)
            if progress:
                progress(verifier.checked, last)
            end = batch[-1].position if batch else None
            if len(batch) < _VERIFY_BATCH or not isinstance(end, int) or end <= cursor:
                return
            cursor = end

    async def _scan_stream(
        self,
        verifier: ChainVerifier,
        tenant_id: str,
        stream: str,
        last: int,
        progress: ProgressCallback | None,
    ) -> None:
        for start in range(1, last + 1, _VERIFY_BATCH):
            end = min(start + _VERIFY_BATCH - 1, last)
            verifier.feed(await self.recorder.read_stream(tenant_id, stream, start, end))
            if progress:
                progress(verifier.checked, last)

    # -- helpers -----------------------------------------------------------------------------

    def _decode(self, event: StoredEvent) -> RecordedEvent:
        data: Any = None
        version = event.schema_version
        if event.payload is not None:
            try:
                data = decode_json(event.payload)
            except ValueError as error:
                raise StorageError(
                    f"payload of event {event.event_id} (tenant {event.tenant_id}, position "
                    f"{event.position}) is not valid JSON: the database was edited; run "
                    f"'ctxledger verify --tenant {event.tenant_id}'"
                ) from error
            version, data = self.registry.upcast(event.type, event.schema_version, data)
        else:
            self.registry.lookup(event.type)
        # Validating construction: pydantic-core parses the id and time faster than
        # model_construct() assembles pre-built objects.
        try:
            return RecordedEvent(
                tenant_id=event.tenant_id,
                stream_id=event.stream_id,
                version=event.version,
                position=event.position,
                event_id=event.event_id,  # type: ignore[arg-type]
                type=event.type,
                schema_version=event.schema_version,
                recorded_at=event.recorded_at,  # type: ignore[arg-type]
                actor=event.actor,
                payload_hash=event.payload_hash.hex(),
                prev_hash=event.prev_hash.hex(),
                hash=event.hash.hex(),
                data=data,
                data_schema_version=version,
                erased_by=event.erased_by,
            )
        except ValidationError as error:
            raise StorageError(
                f"event at position {event.position} of tenant {event.tenant_id} has a "
                f"malformed envelope ({error.error_count()} problems): the database was edited; "
                f"run 'ctxledger verify --tenant {event.tenant_id}'"
            ) from error

    def _wake(self, tenant_id: str) -> None:
        wakeup = self._wakeups.pop(tenant_id, None)
        if wakeup is not None:
            wakeup.set()

    def _wakeup(self, tenant_id: str) -> asyncio.Event:
        """The event the next append to ``tenant_id`` through this store will set."""
        wakeup = self._wakeups.get(tenant_id)
        if wakeup is None:
            wakeup = self._wakeups[tenant_id] = asyncio.Event()
        return wakeup


def _parse_event_id(raw: UUID | str) -> str:
    try:
        return str(raw if isinstance(raw, UUID) else UUID(str(raw)))
    except ValueError as error:
        raise EventValidationError(
            f"{raw!r} is not an event id: event ids are UUIDs such as "
            f"'0190f2c4-6a7e-7c3b-9d2e-5f1a2b3c4d5e'"
        ) from error
