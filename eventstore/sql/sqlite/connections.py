"""The SQLite recorder's connections to its file: one writer, and readers kept between reads.

Opening a connection (a worker thread, the file, the pragmas) costs more than a small read, and
most of a process's first render: the connection that set the schema up is kept as the first
idle reader, and the writer is opened only when something is first written (from an idle reader
when there is one: an idle reader holds no transaction, so it can take the writer's place). A
process that only reads opens one connection, one that only writes one too. An in-memory
database exists only on its one connection: reads and writes go to it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from aiosqlite import Connection

import eventstore.sql.sqlite.worker as worker
from eventstore.errors import StorageError
from eventstore.loop_lock import LoopSafeLock
from eventstore.sql.sqlite.connection import run_in_worker
from eventstore.sql.sqlite.worker import Step

__all__ = ["SqliteConnections"]

T = TypeVar("T")
P = ParamSpec("P")
_IDLE_READERS = 4  # reader connections kept open between reads (each has a worker thread)


class SqliteConnections:
    """The connections of one :class:`~eventstore.sql.sqlite.recorder.SqliteRecorder`.

    Args:
        path: the database's path (for error messages; ``":memory:"`` shares one connection).
        connect: opens one configured connection to the file.
        unsynced_commits: read-model commits may skip their own sync (a WAL database whose
            log commits are synced: see ``worker.in_unsynced_transaction``).
        synchronous: the log's ``synchronous`` level, set back after an unsynced commit.
    """

    def __init__(
        self,
        path: str,
        connect: Callable[[], Awaitable[Connection]],
        *,
        unsynced_commits: bool,
        synchronous: str,
    ) -> None:
        self.path = path
        self._connect = connect
        self._unsynced_commits = unsynced_commits
        self._synchronous = synchronous
        self._opened = False
        self._generation = 0  # moved by close: a read that spans it closes its connection
        self._writer: Connection | None = None
        self._write_lock = LoopSafeLock()  # one writer, whichever thread's loop writes
        self._idle_readers: list[Connection] = []

    async def open(self, set_up: Callable[[Connection], Awaitable[None]]) -> None:
        """Open the first connection and run ``set_up`` on it (the schema); it is then kept as
        the first idle reader (the writer, for an in-memory database). Nothing stays open when
        ``set_up`` fails."""
        first = await self._connect()
        try:
            await set_up(first)
        except BaseException:
            await first.close()
            raise
        if self.path == ":memory:":
            self._writer = first
        else:
            self._idle_readers.append(first)
        self._opened = True

    @property
    def opened(self) -> bool:
        return self._opened

    async def close(self) -> None:
        """Close every connection not in use; one in use is closed when its read ends."""
        writer, self._writer, self._opened = self._writer, None, False
        readers, self._idle_readers = self._idle_readers, []
        self._generation += 1
        for reader in readers:
            await reader.close()
        if writer is not None:
            await writer.close()

    async def run(
        self, connection: Connection, fn: Step[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``fn(sqlite3_connection, *args, **kwargs)`` in ``connection``'s worker thread."""
        return await run_in_worker(connection, self.path, fn, *args, **kwargs)

    async def read(self, fn: Step[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` on an idle reader (opened if none is idle). Every read function leaves no
        transaction open (autocommit, or its own BEGIN ... COMMIT), so an idle reader holds
        no WAL snapshot."""
        self._check_open()
        if self.path == ":memory:":
            assert self._writer is not None
            return await self.run(self._writer, fn, *args, **kwargs)
        generation = self._generation
        connection = self._idle_readers.pop() if self._idle_readers else await self._connect()
        try:
            result = await self.run(connection, fn, *args, **kwargs)
        except BaseException:
            await connection.close()
            raise
        if self._generation == generation and len(self._idle_readers) < _IDLE_READERS:
            self._idle_readers.append(connection)
        else:
            await connection.close()
        return result

    async def write(self, fn: Step[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` in one write transaction (``BEGIN IMMEDIATE``) on the writer."""
        async with self._write_lock:
            writer = await self.writer()
            return await self.run(writer, worker.in_transaction(fn), *args, **kwargs)

    async def write_derived(self, fn: Step[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` in a write transaction whose commit need not be synced on its own, when the
        database allows it (rows rebuilt from the log: most of a turn's index catch-up)."""
        if not self._unsynced_commits:
            return await self.write(fn, *args, **kwargs)
        async with self._write_lock:
            writer = await self.writer()
            step = worker.in_unsynced_transaction(fn, self._synchronous)
            return await self.run(writer, step, *args, **kwargs)

    @property
    def write_lock(self) -> LoopSafeLock:
        """Held around everything that runs on the writer (:meth:`writer`)."""
        return self._write_lock

    async def writer(self) -> Connection:
        """The writer's connection, opened (or taken from the idle readers) on first use. Call
        it holding :attr:`write_lock`, and run nothing on it after releasing the lock."""
        self._check_open()
        if self._writer is None:
            generation = self._generation
            writer = self._idle_readers.pop() if self._idle_readers else await self._connect()
            if self._generation != generation:  # closed (and maybe opened again) meanwhile
                await writer.close()
                return await self.writer()
            self._writer = writer
        return self._writer

    def _check_open(self) -> None:
        if not self._opened:
            raise StorageError(
                "the store is not open: use 'async with EventStore.open(...)' or await "
                "store.initialize() first"
            )
