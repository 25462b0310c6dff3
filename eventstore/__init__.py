"""eventstore: the append-only, hash-chained, tenant-isolated event log under ctxledger.

The public API is :class:`EventStore` with :class:`NewEvent` in and :class:`RecordedEvent` out;
see docs/eventstore.md and, for the bytes, docs/hash-spec.md.

Names are imported on first use (PEP 562): importing one module of the package (the errors,
say) does not load the store, pydantic models or the hash libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eventstore.errors import (
        ConcurrencyError,
        ErasureError,
        EventNotFoundError,
        EventValidationError,
        IdempotencyConflict,
        InvalidNameError,
        LedgerError,
        LockTimeoutError,
        LogMovedError,
        PayloadTooLargeError,
        SchemaVersionError,
        StorageError,
        TamperedLogError,
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

_EXPORTS = {
    "ConcurrencyError": "eventstore.errors",
    "DEFAULT_MAX_PAYLOAD_BYTES": "eventstore.store",
    "ErasureError": "eventstore.errors",
    "ErasureReceipt": "eventstore.store",
    "EventNotFoundError": "eventstore.errors",
    "EventStore": "eventstore.store",
    "EventType": "eventstore.registry",
    "EventTypeRegistry": "eventstore.registry",
    "EventValidationError": "eventstore.errors",
    "IdempotencyConflict": "eventstore.errors",
    "InvalidNameError": "eventstore.errors",
    "LedgerError": "eventstore.errors",
    "LockTimeoutError": "eventstore.errors",
    "LogMovedError": "eventstore.errors",
    "NewEvent": "eventstore.events",
    "PayloadTooLargeError": "eventstore.errors",
    "RecordedEvent": "eventstore.events",
    "SchemaVersionError": "eventstore.errors",
    "Snapshot": "eventstore.events",
    "StorageError": "eventstore.errors",
    "StreamPosition": "eventstore.events",
    "Subscription": "eventstore.subscription",
    "TamperedLogError": "eventstore.errors",
    "TenantIsolationError": "eventstore.errors",
    "UnknownEventTypeError": "eventstore.errors",
    "UnsupportedDatabaseError": "eventstore.errors",
    "Upcaster": "eventstore.registry",
    "VerificationError": "eventstore.errors",
    "VerificationFailure": "eventstore.verify",
    "VerificationReport": "eventstore.verify",
}

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
    "LogMovedError",
    "NewEvent",
    "PayloadTooLargeError",
    "RecordedEvent",
    "SchemaVersionError",
    "Snapshot",
    "StorageError",
    "StreamPosition",
    "Subscription",
    "TamperedLogError",
    "TenantIsolationError",
    "UnknownEventTypeError",
    "UnsupportedDatabaseError",
    "Upcaster",
    "VerificationError",
    "VerificationFailure",
    "VerificationReport",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'eventstore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
