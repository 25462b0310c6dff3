"""Checks of one stored envelope and the wording of head failures (for :mod:`eventstore.verify`)."""

from __future__ import annotations

from eventstore.hashing import event_hash, header_bytes, payload_hash
from eventstore.records import StoredEvent, StreamHead

__all__ = ["commitment_problem", "head_reason", "malformed", "recomputed_hash", "text"]


def commitment_problem(event: StoredEvent) -> str | None:
    """Why a well-formed event does not match its own hashes (payload, then envelope), or
    None. Chain links are the caller's: they need the previous event."""
    payload: object = event.payload  # typed bytes, but read from a possibly edited row
    if payload is not None and not (isinstance(payload, bytes) and isinstance(event.salt, bytes)):
        return "payload or salt is not stored as bytes: the row was edited"
    if event.payload is not None and (
        event.salt is None or payload_hash(event.salt, event.payload) != event.payload_hash
    ):
        return "payload does not match its payload_hash: the payload or salt was edited"
    if recomputed_hash(event) != event.hash:
        return "hash does not match the envelope: an envelope field was edited"
    return None


def recomputed_hash(
    event: StoredEvent, *, payload_hash: bytes | None = None, prev_hash: bytes | None = None
) -> bytes:
    """The event hash of a stored envelope by hash spec v1 (with another commitment or
    ``prev_hash`` when given: what re-chaining an edited stream needs)."""
    prev = event.prev_hash if prev_hash is None else prev_hash
    header = header_bytes(
        tenant_id=event.tenant_id,
        stream_id=event.stream_id,
        version=event.version,
        position=event.position,
        event_id=event.event_id,
        type=event.type,
        schema_version=event.schema_version,
        recorded_at=event.recorded_at,
        actor=event.actor,
        payload_hash=event.payload_hash if payload_hash is None else payload_hash,
        prev_hash=prev,
    )
    return event_hash(prev, header)


def malformed(event: StoredEvent, tenant_id: str) -> str | None:
    # One cheap test for the common, well-formed row; the detailed walk only on failure.
    if (
        event.tenant_id == tenant_id
        and type(event.version) is int
        and type(event.position) is int
        and type(event.schema_version) is int
        and type(event.stream_id) is str
        and type(event.type) is str
        and type(event.recorded_at) is str
        and (event.actor is None or type(event.actor) is str)
        and type(event.payload_hash) is bytes
        and type(event.prev_hash) is bytes
        and type(event.hash) is bytes
        and len(event.payload_hash) == len(event.prev_hash) == len(event.hash) == 32
    ):
        return None
    return _describe_malformed(event, tenant_id)


def _describe_malformed(event: StoredEvent, tenant_id: str) -> str | None:
    if event.tenant_id != tenant_id:
        return f"event belongs to tenant {event.tenant_id!r}, not {tenant_id!r}"
    for name in ("version", "position", "schema_version"):
        if type(getattr(event, name)) is not int:
            return f"envelope field {name} is not an integer: {getattr(event, name)!r}"
    for name in ("stream_id", "event_id", "type", "recorded_at"):
        if not isinstance(getattr(event, name), str):
            return f"envelope field {name} is not text: {getattr(event, name)!r}"
    actor: object = event.actor  # typed str | None, but read from a possibly edited row
    if actor is not None and not isinstance(actor, str):
        return f"envelope field actor is not text: {actor!r}"
    for name in ("payload_hash", "prev_hash", "hash"):
        value = getattr(event, name)
        if not isinstance(value, bytes) or len(value) != 32:
            return f"envelope field {name} is not a 32-byte hash"
    return None


def head_reason(head: StreamHead, version: int) -> str:
    """Why a stream head disagrees with the last event of its stream (version ``version``)."""
    if head.version > version:
        return (
            f"stream head says version {head.version} but the log ends at version {version}: "
            f"the last events were deleted"
        )
    if head.version < version:
        return f"stream head says version {head.version} but the log has version {version}"
    return f"stream head hash differs from the hash of version {version}"


def text(value: object) -> str:
    """A stored name for a report: itself if text, else its repr (an edited column)."""
    return value if isinstance(value, str) else repr(value)
