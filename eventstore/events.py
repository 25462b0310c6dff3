"""The public event models: what callers append and what they read back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from uuid_utils.compat import uuid7

__all__ = ["NewEvent", "RecordedEvent", "Snapshot", "StreamPosition"]


def _generate_if_none(value: object) -> object:
    # NewEvent(event_id=None) means "generate one", as when the argument is omitted.
    return uuid7() if value is None else value


class NewEvent(BaseModel):
    """An event to append.

    Args:
        type: the event type name, e.g. ``"MessageAppended"``.
        data: the payload, a JSON object (stored as canonical JSON and hashed).
        event_id: the event's UUID. When omitted, a UUIDv7 is generated as the object is
            created, so appending the same ``NewEvent`` objects again (a retry after a timeout)
            is a no-op that returns the original records.
        actor: who caused the event (a user, a service, a process), recorded in the envelope.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    data: dict[str, Any]
    event_id: Annotated[UUID, BeforeValidator(_generate_if_none)] = Field(default_factory=uuid7)
    actor: str | None = None


class RecordedEvent(BaseModel):
    """An event as recorded: the hashed envelope plus the decoded (and upcast) data.

    ``schema_version`` is the version the payload was written with (it is part of the hash);
    ``data_schema_version`` is the version of ``data`` after upcasting on read. When the payload
    was erased, ``data`` is ``None`` and ``erased_by`` is the position of the ``PayloadErased``
    event that removed it.
    """

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    stream_id: str
    version: int = Field(ge=1)
    position: int = Field(ge=1)
    event_id: UUID
    type: str
    schema_version: int
    recorded_at: datetime
    actor: str | None
    payload_hash: str
    prev_hash: str
    hash: str
    data: dict[str, Any] | None
    data_schema_version: int
    erased_by: int | None = None

    @property
    def erased(self) -> bool:
        """Whether the payload of this event was erased (``data`` is then ``None``)."""
        return self.erased_by is not None


class StreamPosition(BaseModel):
    """The head of a stream: its last version (0 when empty) and that event's hash (hex)."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    stream_id: str
    version: int
    hash: str


class Snapshot(BaseModel):
    """A projection's saved state for one stream, as of a stream version and tenant position.

    Snapshots are derived data: they live beside the log, never in it, and a projection must
    give the same result with or without them.
    """

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    name: str
    stream_id: str
    projection_version: int
    version: int
    position: int
    state: bytes
