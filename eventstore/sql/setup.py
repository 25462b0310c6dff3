"""Schema set-up and upgrade, decided once for every SQL backend.

Opening a database reads its schema version. The current version needs nothing (and takes no
lock). Otherwise, under a lock that serialises every process opening the same database
(``BEGIN IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), the version is read again
(another process may have set the schema up meanwhile) and then:

- a newer version is refused (:class:`SchemaVersionError`: upgrade ctxledger);
- no ctxledger schema: with ``create`` the DDL runs and the version is recorded; without it,
  or when the database holds someone else's tables, it is refused (:class:`StorageError`);
- an older version is upgraded: every DDL step is additive and idempotent (``IF NOT EXISTS``),
  so the DDL runs again and the new version is recorded.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from eventstore.errors import SchemaVersionError, StorageError
from eventstore.sql.version import SCHEMA_VERSION

__all__ = [
    "HASH_SPEC",
    "READABLE_SINCE",
    "SchemaSteps",
    "refuse_missing_schema",
    "refuse_old_schema",
    "set_up_schema",
]

#: The oldest schema a read-only open reads without upgrading it: schema 5 only re-keyed event
#: ids by tenant, and every read filters by tenant under either key.
READABLE_SINCE = 4

#: The hash spec version recorded in ``ledger_meta`` (docs/hash-spec.md).
HASH_SPEC = "1"


class SchemaSteps(Protocol):
    """What a backend provides for set-up (each step on its own connection state)."""

    where: str  # the database, for messages (never with a password)

    async def schema_version(self) -> int | None:
        """The recorded schema version; None when there is no ``ledger_meta`` table."""
        ...

    async def has_foreign_tables(self) -> bool:
        """Whether the database holds tables but no ctxledger schema (another program's)."""
        ...

    def exclusive(self) -> AbstractAsyncContextManager[None]:
        """A transaction holding the set-up lock; committed when the block ends normally."""
        ...

    async def create_schema(self) -> None:
        """Run every DDL statement (idempotent)."""
        ...

    async def record_version(self, *, fresh: bool) -> None:
        """Record ``SCHEMA_VERSION`` (and the hash spec when ``fresh``)."""
        ...


async def set_up_schema(steps: SchemaSteps, *, create: bool) -> bool:
    """Create, check or upgrade the schema; returns whether anything was written."""
    found = await steps.schema_version()
    if found == SCHEMA_VERSION:
        return False
    _refuse_newer(steps, found)
    if found is None and not create:
        raise StorageError(
            f"{steps.where} is not a ctxledger database (it has no ctxledger schema) and this "
            f"command does not create one: check the path or URL (--db or CTXLEDGER_DB)"
        )
    async with steps.exclusive():
        found = await steps.schema_version()
        if found == SCHEMA_VERSION:
            return False
        _refuse_newer(steps, found)
        if found is None and await steps.has_foreign_tables():
            raise StorageError(
                f"{steps.where} holds tables of another program and no ctxledger schema; "
                f"ctxledger does not add its tables to it: choose a new file or database"
            )
        await steps.create_schema()
        await steps.record_version(fresh=found is None)
    return True


async def refuse_missing_schema(steps: SchemaSteps) -> None:
    """Raise :class:`StorageError` when the database has no ctxledger schema (checked before
    anything could write to it)."""
    if await steps.schema_version() is None:
        raise StorageError(
            f"{steps.where} is not a ctxledger database (it has no ctxledger schema) and this "
            f"command does not create one: check the path or URL (--db or CTXLEDGER_DB)"
        )


async def refuse_old_schema(steps: SchemaSteps) -> None:
    """For a read-only open: the schema must be readable as it is (``READABLE_SINCE`` or
    newer, up to the current one), since upgrading it would write."""
    found = await steps.schema_version()
    _refuse_newer(steps, found)
    if found is None or found < READABLE_SINCE:
        raise StorageError(
            f"{steps.where} has ctxledger schema {found}, this release reads schema "
            f"{READABLE_SINCE} to {SCHEMA_VERSION}; opened read-only it cannot be upgraded: open "
            f"it once with a writing command (or on a writable copy)"
        )


def _refuse_newer(steps: SchemaSteps, found: int | None) -> None:
    if found is not None and found > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the database {steps.where}",
            found,
            SCHEMA_VERSION,
            "upgrade ctxledger to open it (it was written by a newer release)",
        )
