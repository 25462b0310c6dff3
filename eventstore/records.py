"""The storage-level records every backend reads and writes, and the pure logic they share.

``PendingEvent`` is an event prepared outside any transaction (canonical payload, salt, payload
hash); ``chain_events`` gives pending events their versions, positions and hashes once a backend
holds the stream's and the tenant's heads; ``match_retry`` decides whether an append is an
idempotent retry. Backends differ only in how they store rows, never in these rules. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from eventstore.errors import ErasureError, EventNotFoundError, IdempotencyConflict
from eventstore.hashing import event_hash, genesis_hash, header_bytes

__all__ = [
    "CHECKPOINT_EVENT_TYPE",
    "CHECKPOINT_STREAM",
    "ERASURE_EVENT_TYPE",
    "ERASURE_STREAM",
    "PendingEvent",
    "SnapshotRecord",
    "StoredEvent",
    "StreamHead",
    "chain_events",
    "default_origin",
    "match_retry",
    "plan_erasure",
]

#: The reserved stream that holds a tenant's ``PayloadErased`` events.
ERASURE_STREAM = "ledger/erasures"
CHECKPOINT_STREAM = "ledger/checkpoints"
CHECKPOINT_EVENT_TYPE = "CheckpointRecorded"


def default_origin(tenant_id: str) -> str:
    """The origin line of a tenant's checkpoints unless another is given."""
    return f"ctxledger/{tenant_id}"


def checkpoint_advice(tenant_id: str) -> str:
    """How to sign a checkpoint of a tenant's log, from nothing (for an error or a warning):
    a key first, then the checkpoint with it."""
    return (
        f"sign one: 'ctxledger keygen --name audit-key -o audit.pem' once, then 'ctxledger "
        f"checkpoint --tenant {tenant_id} --key audit.pem --key-name audit-key' (docs/audit.md)"
    )


ERASURE_EVENT_TYPE = "PayloadErased"


class PendingEvent(NamedTuple):
    """An event ready to be chained: everything that does not depend on the log's state."""

    event_id: str
    type: str
    schema_version: int
    actor: str | None
    payload: bytes
    salt: bytes
    payload_hash: bytes


class StoredEvent(NamedTuple):
    """One event exactly as stored: envelope columns plus payload and salt (``None`` if erased).

    A NamedTuple rather than a frozen dataclass: it is built for every row read or written,
    and constructs several times faster while staying immutable.
    """

    tenant_id: str
    stream_id: str
    version: int
    position: int
    event_id: str
    type: str
    schema_version: int
    recorded_at: str
    actor: str | None
    payload_hash: bytes
    prev_hash: bytes
    hash: bytes
    payload: bytes | None
    salt: bytes | None
    erased_by: int | None = None


class SnapshotRecord(NamedTuple):
    """A projection's saved state for one stream, as stored (derived data, never hashed in
    the log; ``state_hash`` guards it against corruption)."""

    tenant_id: str
    name: str
    stream_id: str
    projection_version: int
    version: int
    position: int
    state: bytes
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class StreamHead:
    """The last version of a stream and its hash (version 0 and the genesis hash when empty)."""

    tenant_id: str
    stream_id: str
    version: int
    hash: bytes

    @classmethod
    def empty(cls, tenant_id: str, stream_id: str) -> StreamHead:
        """The head of a stream that has no events yet."""
        return cls(tenant_id, stream_id, 0, genesis_hash(tenant_id, stream_id))


def chain_events(
    head: StreamHead,
    tenant_position: int,
    pending: Sequence[PendingEvent],
    recorded_at: str,
) -> list[StoredEvent]:
    """Assign versions and positions after ``head``/``tenant_position`` and hash-link the events."""
    stored: list[StoredEvent] = []
    prev = head.hash
    for offset, event in enumerate(pending, start=1):
        version = head.version + offset
        position = tenant_position + offset
        header = header_bytes(
            tenant_id=head.tenant_id,
            stream_id=head.stream_id,
            version=version,
            position=position,
            event_id=event.event_id,
            type=event.type,
            schema_version=event.schema_version,
            recorded_at=recorded_at,
            actor=event.actor,
            payload_hash=event.payload_hash,
            prev_hash=prev,
        )
        digest = event_hash(prev, header)
        stored.append(
            StoredEvent(
                tenant_id=head.tenant_id,
                stream_id=head.stream_id,
                version=version,
                position=position,
                event_id=event.event_id,
                type=event.type,
                schema_version=event.schema_version,
                recorded_at=recorded_at,
                actor=event.actor,
                payload_hash=event.payload_hash,
                prev_hash=prev,
                hash=digest,
                payload=event.payload,
                salt=event.salt,
            )
        )
        prev = digest
    return stored


def match_retry(
    tenant_id: str,
    stream_id: str,
    pending: Sequence[PendingEvent],
    existing: Mapping[str, StoredEvent],
) -> list[StoredEvent] | None:
    """Decide whether appending ``pending`` repeats an append that is already recorded.

    Args:
        existing: the tenant's recorded events whose ids occur in ``pending`` (an event id is
            unique within its tenant; another tenant's ids are its own).

    Returns:
        ``None`` if no pending id is recorded (a new append), else the original records in
        batch order when the whole batch is recorded with the same content.

    Raises:
        IdempotencyConflict: some ids are recorded and others are not, or an id is recorded with
            different content, in another stream, or in another order.
    """
    if not existing:
        return None
    originals: list[StoredEvent] = []
    for event in pending:
        original = existing.get(event.event_id)
        if original is None:
            recorded = next(iter(existing))
            raise IdempotencyConflict(
                recorded,
                f"the batch repeats recorded event {recorded} but event {event.event_id} is new; "
                f"a batch is recorded whole or not at all",
            )
        reason = _difference(tenant_id, stream_id, event, original)
        if reason:
            raise IdempotencyConflict(event.event_id, reason)
        originals.append(original)
    versions = [original.version for original in originals]
    if versions != list(range(versions[0], versions[0] + len(versions))):
        raise IdempotencyConflict(
            pending[0].event_id, "the recorded events are not one batch in this order"
        )
    return originals


def _difference(
    tenant_id: str, stream_id: str, event: PendingEvent, original: StoredEvent
) -> str | None:
    if original.stream_id != stream_id:
        return f"recorded in stream {original.stream_id!r}, not {stream_id!r}"
    if original.type != event.type:
        return f"recorded as type {original.type!r}, not {event.type!r}"
    if original.actor != event.actor:
        return f"recorded with actor {original.actor!r}, not {event.actor!r}"
    if original.payload is None:
        return "the recorded payload was erased, so a retry cannot be confirmed"
    if original.payload != event.payload:
        return "recorded with different data"
    return None


def plan_erasure(
    tenant_id: str, event_ids: Sequence[str], found: Mapping[str, StoredEvent]
) -> tuple[list[str], dict[str, int]]:
    """Split an erasure request into ids to erase now and ids erased before.

    Args:
        found: the tenant's recorded events among ``event_ids``.

    Returns:
        ``(to_erase, already_erased)`` where ``already_erased`` maps an id to the position of
        the ``PayloadErased`` event that erased it.

    Raises:
        EventNotFoundError: an id is not an event of this tenant.
        ErasureError: an id names a ``PayloadErased`` event (the record of an erasure is kept)
            or a ``CheckpointRecorded`` one.
    """
    missing = [event_id for event_id in event_ids if event_id not in found]
    if missing:
        raise EventNotFoundError(tenant_id, missing)
    protected = [e.event_id for e in found.values() if e.stream_id == ERASURE_STREAM]
    if protected:
        raise ErasureError(
            f"events {', '.join(protected)} record erasures themselves and cannot be erased: "
            f"they are the proof that an erasure happened"
        )
    anchors = [e.event_id for e in found.values() if e.stream_id == CHECKPOINT_STREAM]
    if anchors:
        raise ErasureError(
            f"events {', '.join(anchors)} are signed checkpoints and cannot be erased: they "
            f"hold no personal data, and verification and bundles rely on every one of them"
        )
    already = {e.event_id: e.erased_by for e in found.values() if e.erased_by is not None}
    to_erase = list(dict.fromkeys(i for i in event_ids if i not in already))
    return to_erase, already
