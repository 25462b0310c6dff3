"""Between the caller's models and the stored records: preparing events for an append (names,
registry validation, canonical bytes, salt, payload hash) and decoding stored records (JSON,
upcasting) into :class:`RecordedEvent`. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from pydantic import ValidationError
from uuid_utils.compat import uuid7

from eventstore.encoding import canonical_json, decode_json
from eventstore.errors import EventValidationError, PayloadTooLargeError, StorageError
from eventstore.events import NewEvent, RecordedEvent
from eventstore.hashing import new_salt, payload_hash
from eventstore.names import validate_actor, validate_event_type
from eventstore.recorder import MakeErasure
from eventstore.records import ERASURE_EVENT_TYPE, PendingEvent, StoredEvent
from eventstore.registry import EventTypeRegistry

__all__ = ["decode_event", "erasure_maker", "parse_event_id", "prepare_event", "prepare_events"]


def prepare_events(
    registry: EventTypeRegistry, max_payload_bytes: int, events: Sequence[NewEvent]
) -> list[PendingEvent]:
    """Validated, encoded and hashed events for one append.

    Raises:
        EventValidationError: not a non-empty list of ``NewEvent``, a bad name, data that the
            registry refuses, a payload over the limit, or an id used twice in the batch.
    """
    given: object = events  # callers without a type checker pass anything
    if isinstance(given, NewEvent) or not isinstance(given, Sequence):
        raise EventValidationError(
            f"append takes a list of NewEvent, got {type(given).__name__}: wrap a single "
            f"event in a list"
        )
    if not events:
        raise EventValidationError("append needs at least one event, got an empty list")
    pending = [prepare_event(registry, max_payload_bytes, event) for event in events]
    ids = [event.event_id for event in pending]
    if len(set(ids)) != len(ids):
        duplicate = next(event_id for event_id in ids if ids.count(event_id) > 1)
        raise EventValidationError(
            f"event id {duplicate} occurs twice in one batch: every event needs its own id"
        )
    return pending


def prepare_event(
    registry: EventTypeRegistry, max_payload_bytes: int, event: NewEvent
) -> PendingEvent:
    """One event, validated, encoded and hashed (see :func:`prepare_events`)."""
    if not isinstance(event, NewEvent):
        raise EventValidationError(f"append takes NewEvent objects, got {type(event).__name__}")
    validate_event_type(event.type)
    validate_actor(event.actor)
    registry.validate(event.type, event.data)
    payload = canonical_json(event.data)
    if len(payload) > max_payload_bytes:
        raise PayloadTooLargeError(event.type, len(payload), max_payload_bytes)
    salt = new_salt()
    return PendingEvent(
        event_id=str(event.event_id),
        type=event.type,
        schema_version=registry.schema_version(event.type),
        actor=event.actor,
        payload=payload,
        salt=salt,
        payload_hash=payload_hash(salt, payload),
    )


def decode_event(registry: EventTypeRegistry, event: StoredEvent) -> RecordedEvent:
    """A stored record as a :class:`RecordedEvent`, its data decoded and upcast.

    Raises:
        StorageError: the payload is not JSON or the envelope is malformed (an edited database).
    """
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
        version, data = registry.upcast(event.type, event.schema_version, data)
    else:
        registry.lookup(event.type)
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


def parse_event_id(raw: UUID | str) -> str:
    """An event id as canonical text.

    Raises:
        EventValidationError: not a UUID.
    """
    try:
        return str(raw if isinstance(raw, UUID) else UUID(str(raw)))
    except ValueError as error:
        raise EventValidationError(
            f"{raw!r} is not an event id: event ids are UUIDs such as "
            f"'0190f2c4-6a7e-7c3b-9d2e-5f1a2b3c4d5e'"
        ) from error


def erasure_maker(reason: str, requested_by: str) -> MakeErasure:
    """Builds the ``PayloadErased`` event once the recorder knows which ids it erases."""

    def make_erasure(to_erase: list[str]) -> PendingEvent:
        data = {"event_ids": to_erase, "reason": reason, "requested_by": requested_by}
        payload = canonical_json(data)
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

    return make_erasure
