"""eventstore: the append-only, hash-chained, tenant-isolated event log under ctxledger.

The public API is :class:`EventStore` with :class:`NewEvent` in and :class:`RecordedEvent` out;
see docs/eventstore.md and, for the bytes, docs/hash-spec.md.
"""

from eventstore.errors import (
    ConcurrencyError,
    ErasureError,
    EventNotFoundError,
    EventValidationError,
    IdempotencyConflict,
    InvalidNameError,
    LedgerError,
    LockTimeoutError,
    PayloadTooLargeError,
    SchemaVersionError,
    StorageError,
    TenantIsolationError,
    UnknownEventTypeError,
    UnsupportedDatabaseError,
    VerificationError,
)
from eventstore.events import NewEvent, RecordedEvent, Snapshot, StreamPosition
from eventstore.registry import EventType, EventTypeRegistry, Upcaster
from eventstore.store import DEFAULT_MAX_PAYLOAD_BYTES, ErasureReceipt, EventStore
from eventstore.subscription import Subscription
from eventstore.verify import VerificationFailure, VerificationReport

__all__ = [
    "DEFAULT_MAX_PAYLOAD_BYTES",
    "ConcurrencyError",
    "ErasureError",
    "ErasureReceipt",
    "EventNotFoundError",
    "EventStore",
    "EventType",
    "EventTypeRegistry",
    "EventValidationError",
    "IdempotencyConflict",
    "InvalidNameError",
    "LedgerError",
    "LockTimeoutError",
    "NewEvent",
    "PayloadTooLargeError",
    "RecordedEvent",
    "SchemaVersionError",
    "Snapshot",
    "StorageError",
    "StreamPosition",
    "Subscription",
    "TenantIsolationError",
    "UnknownEventTypeError",
    "UnsupportedDatabaseError",
    "Upcaster",
    "VerificationError",
    "VerificationFailure",
    "VerificationReport",
]
