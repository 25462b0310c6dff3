"""The one seam between the PostgreSQL recorder and its driver: connections and errors.

Connections come from SQLAlchemy's async pool (which creates, limits and disposes them); the
recorder works on the asyncpg connection underneath, because a few round trips per append
matter more than anything else. SQLAlchemy's checkout and checkin cost about 110 µs of CPU
together (greenlet hops), a tenth of a durable append, so up to ``keep`` connections stay
checked out between operations (:class:`Connections`).

Driver errors become ctxledger errors in :func:`translate` and nowhere else, by exception class
(asyncpg maps each SQLSTATE to one).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from eventstore.backends import safe_url
from eventstore.errors import LedgerError, LockTimeoutError, StorageError

if TYPE_CHECKING:
    import asyncpg

__all__ = ["Connections", "is_connection_loss", "translate"]


def is_connection_loss(error: BaseException) -> bool:
    """Whether the error leaves the connection unusable."""
    import asyncpg

    return isinstance(
        error,
        (
            asyncpg.exceptions.ConnectionDoesNotExistError,
            asyncpg.exceptions.AdminShutdownError,
            asyncpg.exceptions.InterfaceError,
            # Raised when the protocol is left in a broken state, e.g. by a server that
            # terminated the session while the client waited: the connection is unusable.
            asyncpg.exceptions.InternalClientError,
            ConnectionError,
        ),
    )


def translate(error: BaseException, url: str, tenant_id: str | None) -> LedgerError | None:
    """The ctxledger error for a driver error (None: not a driver error)."""
    import asyncpg

    where = safe_url(url)
    if isinstance(error, asyncpg.exceptions.LockNotAvailableError):
        return LockTimeoutError(tenant_id or "?", str(error))
    if is_connection_loss(error):
        return StorageError(
            f"the connection to {where} was lost during the operation ({error}); nothing was "
            f"committed unless the server had already acknowledged the commit: retry with the "
            f"same event ids, which is safe"
        )
    if isinstance(error, asyncpg.exceptions.InvalidAuthorizationSpecificationError):
        return StorageError(f"cannot log in to {where}: {error}")
    if isinstance(error, asyncpg.exceptions.InsufficientPrivilegeError):
        return StorageError(
            f"the role connected to {where} may not do this ({error}): see "
            f"docs/operations-postgres.md for the grants of each role"
        )
    if isinstance(error, asyncpg.exceptions.PostgresError):
        return StorageError(f"PostgreSQL error on {where}: {type(error).__name__}: {error}")
    if isinstance(error, OSError | asyncio.TimeoutError):
        return StorageError(f"cannot reach {where}: {error}")
    return None


class Connections:
    """asyncpg connections from SQLAlchemy's pool, kept between operations.

    Args:
        url: the database URL (for messages).
        keep: how many idle connections to keep checked out for the next operations.
    """

    def __init__(self, url: str, keep: int) -> None:
        self.url = url
        self.keep = keep
        self.engine: AsyncEngine | None = None
        self._idle: list[tuple[AsyncConnection, asyncpg.Connection]] = []

    @asynccontextmanager
    async def connection(self, tenant_id: str | None = None) -> AsyncIterator[asyncpg.Connection]:
        """An asyncpg connection; driver errors become ctxledger errors."""
        connection, driver = await self._checkout(tenant_id)
        clean = False
        try:
            yield driver
            clean = True
        except LedgerError:
            clean = True  # raised by ctxledger after the server answered normally
            raise
        except Exception as error:
            if is_connection_loss(error):
                await connection.invalidate()
            translated = translate(error, self.url, tenant_id)
            if translated is None:
                raise
            raise translated from error
        finally:
            if self._checkin(connection, driver, clean) or connection.invalidated:
                pass
            elif driver.is_closed():
                await connection.invalidate()  # terminated by the operation: not for reuse
            else:
                await connection.close()

    async def _checkout(self, tenant_id: str | None) -> tuple[AsyncConnection, asyncpg.Connection]:
        if self.engine is None:
            raise StorageError("the store is not open: use 'async with EventStore.open(...)'")
        while self._idle:
            connection, driver = self._idle.pop()
            if not driver.is_closed():
                return connection, driver
            await connection.invalidate()  # closed by the server while it waited here
        try:
            connection = await self.engine.connect()
            raw = await connection.get_raw_connection()
        except DBAPIError as error:
            cause = error.orig or error
            raise translate(cause, self.url, tenant_id) or StorageError(str(error)) from error
        except OSError as error:
            raise StorageError(
                f"cannot connect to {safe_url(self.url)}: {error}; is the server running?"
            ) from error
        except TypeError as error:  # a query parameter of the URL that asyncpg does not take
            raise StorageError(
                f"cannot connect to {safe_url(self.url)}: {error}; a parameter in the URL's query "
                f"string is neither a ctxledger option (create, lock_timeout, row_level_security, "
                f"pool_size, lock_handoff, turn_timeout) nor an asyncpg connect argument"
            ) from error
        fresh = raw.driver_connection
        if fresh is None:
            raise StorageError(f"the pool gave a closed connection to {safe_url(self.url)}")
        return connection, fresh

    def _checkin(
        self, connection: AsyncConnection, driver: asyncpg.Connection, clean: bool
    ) -> bool:
        """Keep a connection for the next operation if it is idle and healthy; False when the
        caller must hand it back to SQLAlchemy instead."""
        if (
            clean
            and self.engine is not None
            and len(self._idle) < self.keep
            and not connection.invalidated
            and not driver.is_closed()
            and not driver.is_in_transaction()
        ):
            self._idle.append((connection, driver))
            return True
        return False

    async def close(self) -> None:
        """Close the kept connections and dispose of the pool."""
        engine, self.engine = self.engine, None
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            await connection.close()
        if engine is not None:
            await engine.dispose()

    @property
    def idle(self) -> int:
        """How many connections are kept idle right now."""
        return len(self._idle)
