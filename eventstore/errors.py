"""The one error tree of ctxledger.

Every error the library raises on purpose derives from :class:`LedgerError`, so a caller can catch
everything ctxledger means with one ``except``. Driver errors (sqlite3, asyncpg, SQLAlchemy) are
translated at exactly one seam per backend and chained with ``raise ... from``.

::

    LedgerError
    ├── EventValidationError          bad input to append: not JSON, NaN, too large, bad name…
    │   ├── InvalidNameError          a tenant, stream, event type or actor name is not allowed
    │   └── PayloadTooLargeError      the canonical payload is over the store's limit
    ├── UnknownEventTypeError         a strict registry met a type it does not know
    ├── SchemaVersionError            stored data is newer than this code understands
    ├── ConcurrencyError              the stream moved: expected version != actual version
    │   └── LogMovedError             the tenant's log moved past a position an erasure planned at
    ├── IdempotencyConflict           an event id was reused for different content
    ├── EventNotFoundError            an operation names an event id the tenant does not have
    ├── ErasureError                  an erasure cannot be carried out as asked
    ├── TenantIsolationError          an operation would cross a tenant boundary
    ├── VerificationError             ``verify`` found tampering (raised by ``verify_or_raise``)
    └── StorageError                  the database failed, cannot be opened, or is misconfigured
        ├── LockTimeoutError          a tenant's append lock was not granted in time
        └── UnsupportedDatabaseError  the URL names a backend ctxledger does not provide

Messages say what happened, what was expected and what was found, and what to do next.
"""

from __future__ import annotations

__all__ = [
    "ConcurrencyError",
    "ErasureError",
    "EventNotFoundError",
    "EventValidationError",
    "IdempotencyConflict",
    "InvalidNameError",
    "LedgerError",
    "LockTimeoutError",
    "LogMovedError",
    "PayloadTooLargeError",
    "SchemaVersionError",
    "StorageError",
    "TamperedLogError",
    "TenantIsolationError",
    "UnknownEventTypeError",
    "UnsupportedDatabaseError",
    "VerificationError",
]


class LedgerError(Exception):
    """Root of every error ctxledger raises on purpose."""


class EventValidationError(LedgerError, ValueError):
    """The events given to ``append`` are not valid; nothing was written."""


class InvalidNameError(EventValidationError):
    """A tenant, stream, event type or actor name is empty, too long or has control characters."""


class PayloadTooLargeError(EventValidationError):
    """An event's canonical payload is larger than the store's ``max_payload_bytes``."""

    def __init__(self, event_type: str, size: int, limit: int) -> None:
        self.event_type = event_type
        self.size = size
        self.limit = limit
        super().__init__(
            f"payload of {event_type!r} is {size} bytes of canonical JSON, over the limit of "
            f"{limit} bytes: store large content elsewhere and reference it, or open the store "
            f"with a larger max_payload_bytes"
        )


class UnknownEventTypeError(LedgerError):
    """A strict event-type registry was asked about a type it does not know."""

    def __init__(self, event_type: str, known: list[str]) -> None:
        self.event_type = event_type
        self.known = known
        shown = ", ".join(known[:10]) + (", …" if len(known) > 10 else "")
        super().__init__(
            f"event type {event_type!r} is not registered (known: {shown or 'none'}): "
            f"register it with EventTypeRegistry.register() or use a non-strict registry"
        )


class SchemaVersionError(LedgerError):
    """Stored data (a database or an event) has a schema newer than this code understands."""

    def __init__(self, what: str, found: int, supported: int, advice: str) -> None:
        self.what = what
        self.found = found
        self.supported = supported
        super().__init__(
            f"{what} has schema version {found}, but this ctxledger understands at most "
            f"version {supported}: {advice}"
        )


class ConcurrencyError(LedgerError):
    """The stream was not at the expected version; nothing was written."""

    def __init__(self, tenant_id: str, stream_id: str, expected: int, actual: int) -> None:
        self.tenant_id = tenant_id
        self.stream = stream_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"expected stream {stream_id} of tenant {tenant_id} at version {expected}, "
            f"found {actual}: reload the stream and retry"
        )


class LogMovedError(ConcurrencyError):
    """The tenant's log was not at the position an erasure was planned at; nothing was erased."""

    def __init__(self, tenant_id: str, expected: int, actual: int) -> None:
        self.tenant_id = tenant_id
        self.stream = "*"
        self.expected = expected
        self.actual = actual
        LedgerError.__init__(
            self,
            f"expected the log of tenant {tenant_id} at position {expected}, found {actual}: "
            f"events were appended since the erasure was planned; plan it again and retry",
        )


class IdempotencyConflict(LedgerError):
    """An event id that is already recorded was appended again with different content."""

    def __init__(self, event_id: str, reason: str) -> None:
        self.event_id = event_id
        self.reason = reason
        super().__init__(
            f"event id {event_id} is already recorded with different content ({reason}): "
            f"a retry must resend exactly the same events; use a new event id for new content"
        )


class EventNotFoundError(LedgerError, LookupError):
    """An event id named by the caller is not in the tenant's log."""

    def __init__(self, tenant_id: str, event_ids: list[str]) -> None:
        self.tenant_id = tenant_id
        self.event_ids = event_ids
        super().__init__(
            f"tenant {tenant_id} has no event with id {', '.join(event_ids)}: "
            f"check the ids (ctxledger log --tenant {tenant_id})"
        )


class ErasureError(LedgerError):
    """An erasure cannot be carried out as asked; nothing was erased."""


class TenantIsolationError(LedgerError):
    """An operation named data of another tenant; nothing was read or written."""


class VerificationError(LedgerError):
    """Verification found events that do not match their hashes or their chain."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


class TamperedLogError(VerificationError):
    """An event read to serve a context, a summary chain or a search does not match its hashes
    or its chain: the stored log was edited. Nothing built from it is returned."""

    def __init__(
        self, tenant_id: str, stream_id: str, version: int, position: int, reason: str
    ) -> None:
        self.tenant_id = tenant_id
        self.stream_id = stream_id
        self.version = version
        self.position = position
        self.reason = reason
        super().__init__(
            f"event {stream_id} v{version} (position {position}) of tenant {tenant_id} was "
            f"read but does not verify: {reason}. The log was edited behind the store; run "
            f"'ctxledger verify --tenant {tenant_id}' to see everything that is wrong"
        )


class StorageError(LedgerError):
    """The database failed, could not be opened, or is not set up as ctxledger needs."""


class LockTimeoutError(StorageError):
    """Another writer held the tenant's append lock longer than the lock timeout."""

    def __init__(self, tenant_id: str, detail: str) -> None:
        self.tenant_id = tenant_id
        super().__init__(
            f"the append lock of tenant {tenant_id} was not granted within the lock timeout "
            f"({detail}): another writer holds it; retry, or raise lock_timeout"
        )


class UnsupportedDatabaseError(StorageError):
    """The database URL names a backend that ctxledger does not provide."""
