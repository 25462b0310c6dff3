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
import contextlib
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
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


@dataclass
class _Pool:
    """One event loop's engine and the connections it keeps idle (asyncpg connections belong
    to the loop that opened them)."""

    engine: AsyncEngine
    #: whether connections are kept checked out between operations: on the loop that opened
    #: the store only; another loop may end at any time, and checked-out connections of an
    #: ended loop can be neither used nor handed back
    keeps: bool = True
    idle: list[tuple[AsyncConnection, asyncpg.Connection]] = field(default_factory=list)
    #: closes the pool when its loop shuts down (``asyncio.run`` ends: see ``_until_loop_end``)
    watcher: AsyncGenerator[None, None] | None = None


class Connections:
    """asyncpg connections from SQLAlchemy's pool, kept between operations; one pool per event
    loop, so threads that each run their own loop share the store (as separate processes do).

    Args:
        url: the database URL (for messages).
        keep: how many idle connections to keep checked out for the next operations.
    """

    def __init__(self, url: str, keep: int) -> None:
        self.url = url
        self.keep = keep
        self._make: Callable[[], AsyncEngine] | None = None
        self._guard = threading.Lock()
        self._pools: dict[asyncio.AbstractEventLoop, _Pool] = {}

    @property
    def opened(self) -> bool:
        """Whether :meth:`open` ran (and :meth:`close` has not since)."""
        return self._make is not None

    def open(self, engine: AsyncEngine, make: Callable[[], AsyncEngine]) -> None:
        """Serve ``engine`` to the running loop, and ``make()`` a new one for any other."""
        self._make = make
        with self._guard:
            self._pools[asyncio.get_running_loop()] = _Pool(engine)

    def _pool(self) -> _Pool | None:
        loop = asyncio.get_running_loop()
        with self._guard:
            pool = self._pools.get(loop)
            if pool is None and self._make is not None:
                self._drop_closed_loops()  # asyncio.run per call makes a new loop every time
                pool = self._pools[loop] = _Pool(self._make(), keeps=False)
            return pool

    async def _until_loop_end(self, pool: _Pool) -> AsyncGenerator[None, None]:
        """Wait for the loop to shut down, then close its pool there: a loop finalises the
        async generators it started before it closes, so connections are handed back while
        their loop still runs (a thread's ``asyncio.run`` may end while the store lives on)."""
        try:
            yield
        finally:
            with self._guard:
                for loop, held in list(self._pools.items()):
                    if held is pool:
                        del self._pools[loop]
            await _close(pool)

    def _drop_closed_loops(self) -> None:
        """Forget the pools of loops that have closed: their connections can no longer be
        used or closed gracefully, so their sockets are aborted."""
        for loop in [loop for loop in self._pools if loop.is_closed()]:
            for _, driver in self._pools.pop(loop).idle:
                with contextlib.suppress(Exception):  # the loop is gone: nothing to wait for
                    driver.terminate()

    @asynccontextmanager
    async def connection(self, tenant_id: str | None = None) -> AsyncIterator[asyncpg.Connection]:
        """An asyncpg connection; driver errors become ctxledger errors."""
        pool = self._pool()
        if pool is None:
            raise StorageError("the store is not open: use 'async with EventStore.open(...)'")
        if pool.watcher is None:
            pool.watcher = self._until_loop_end(pool)
            await anext(pool.watcher)
        connection, driver = await self._checkout(pool, tenant_id)
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
            if self._checkin(pool, connection, driver, clean) or connection.invalidated:
                pass
            elif driver.is_closed():
                await connection.invalidate()  # terminated by the operation: not for reuse
            else:
                await connection.close()

    async def _checkout(
        self, pool: _Pool, tenant_id: str | None
    ) -> tuple[AsyncConnection, asyncpg.Connection]:
        while pool.idle:
            connection, driver = pool.idle.pop()
            if not driver.is_closed():
                return connection, driver
            await connection.invalidate()  # closed by the server while it waited here
        try:
            connection = await pool.engine.connect()
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
        self, pool: _Pool, connection: AsyncConnection, driver: asyncpg.Connection, clean: bool
    ) -> bool:
        """Keep a connection for the next operation if it is idle and healthy; False when the
        caller must hand it back to SQLAlchemy instead."""
        if (
            clean
            and pool.keeps
            and self._make is not None
            and len(pool.idle) < self.keep
            and not connection.invalidated
            and not driver.is_closed()
            and not driver.is_in_transaction()
        ):
            pool.idle.append((connection, driver))
            return True
        return False

    async def close(self) -> None:
        """Close every loop's kept connections and dispose of its pool: this loop's here,
        another running loop's in that loop; a closed loop's are dropped (they cannot be
        closed any more)."""
        self._make = None
        with self._guard:
            pools, self._pools = self._pools, {}
        here = asyncio.get_running_loop()
        for loop, pool in pools.items():
            closing = pool.watcher.aclose() if pool.watcher is not None else _close(pool)
            if loop is here:
                await closing
            elif loop.is_running():
                done = asyncio.run_coroutine_threadsafe(closing, loop)
                await asyncio.wait_for(asyncio.wrap_future(done), _CLOSE_ELSEWHERE_S)
            else:
                closing.close()  # an ended loop: its connections went with it

    @property
    def idle(self) -> int:
        """How many connections the running loop keeps idle right now."""
        pool = self._pool()
        return len(pool.idle) if pool is not None else 0


_CLOSE_ELSEWHERE_S = 10.0


async def _close(pool: _Pool) -> None:
    idle, pool.idle = pool.idle, []
    for connection, _ in idle:
        await connection.close()
    await pool.engine.dispose()
