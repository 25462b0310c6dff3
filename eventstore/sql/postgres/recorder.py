"""The PostgreSQL recorder: SQLAlchemy 2 async engine and pool over asyncpg.

Ordering: an append does everything it can first (encoding and hashing happen in the store),
then takes its tenant's turn and reads the heads, chains the events and writes them: by default
with the lock hand-off, two autocommit statements (:mod:`~eventstore.sql.postgres.handoff`);
with ``lock_handoff=False`` in one transaction holding the tenant's head row ``FOR UPDATE``
(:mod:`~eventstore.sql.postgres.log`). Either way positions are assigned in commit order
without gaps, tenants never wait for each other, both protocols may write one database at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

import eventstore.sql.postgres.handoff as handoff
from eventstore.erasure import run_erasure
from eventstore.errors import ConcurrencyError, IdempotencyConflict, StorageError
from eventstore.recorder import (
    AppendOutcome,
    ErasureOutcome,
    LogState,
    MakeErasure,
)
from eventstore.records import (
    PendingEvent,
    StoredEvent,
    StreamHead,
    match_retry,
)
from eventstore.sql.postgres.connection import Connections
from eventstore.sql.postgres.derived_rows import DerivedRows
from eventstore.sql.postgres.erasure import PostgresErasure
from eventstore.sql.postgres.log import AppendOptions, DuplicateEventId, append_locked, events_by_id
from eventstore.sql.postgres.schema_steps import PostgresSchemaSteps
from eventstore.sql.postgres.statements import statements
from eventstore.sql.rows import stored_event
from eventstore.sql.schema import TENANT_TABLES
from eventstore.sql.setup import set_up_schema
from eventstore.timestamps import timestamp_now

if TYPE_CHECKING:
    pass

__all__ = ["PostgresRecorder"]

_NO_LIMIT = 2**62


class PostgresRecorder(DerivedRows):
    """A :class:`~eventstore.recorder.Recorder` on PostgreSQL (asyncpg).

    Args:
        url: ``postgresql+asyncpg://user:password@host:port/database``.
        lock_timeout: seconds an append waits for its tenant's lock before
            :class:`LockTimeoutError` (None: wait as long as the server allows).
        row_level_security: set ``ctxledger.tenant`` in every transaction and enable the
            tenant policies on the tables, so the server itself hides other tenants' rows from
            roles that do not own the tables.
        create: create the schema when it is missing.
        pool_size: connections the recorder keeps open for its next operations; SQLAlchemy's
            pool keeps up to as many again after a burst, and at most ``pool_size + 10`` are
            open at once.
        lock_handoff: append in two autocommit statements with the lock hand-off (see
            :mod:`~eventstore.sql.postgres.handoff`; the default), or False for one
            transaction of four round trips, which PgBouncer in transaction mode needs.
        before_write: an async hook awaited once an append holds its tenant's turn, before
            it writes (fault and delay injection in tests).
        commit_delay: seconds an append waits between its write and its commit (delay
            injection in tests: the ordering under slow commits).
        turn_timeout: the turn lease of the hand-off: a client idle this long while it holds
            its tenant's turn is disconnected by the server, which frees the turn (None: no
            lease; needs PostgreSQL 14+). See docs/operations-postgres.md.
    """

    def __init__(
        self,
        url: str,
        *,
        lock_timeout: float | None = 10.0,
        row_level_security: bool = False,
        create: bool = True,
        pool_size: int = 5,
        lock_handoff: bool = True,
        before_write: Callable[[], Awaitable[None]] | None = None,
        commit_delay: Callable[[], float] | None = None,
        turn_timeout: float | None = 30.0,
    ) -> None:
        self.url = url
        self.lock_timeout = lock_timeout
        self.row_level_security = row_level_security
        self.create = create
        self.pool_size = pool_size
        self.lock_handoff = lock_handoff
        self.before_write = before_write
        self.commit_delay = commit_delay
        self.turn_timeout = turn_timeout
        self._connections = Connections(url, keep=pool_size)

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        if self._connections.opened:
            return
        try:
            engine = self._new_engine()
        except ImportError as error:
            raise StorageError(
                "PostgreSQL needs the asyncpg driver: pip install 'ctxledger[postgres]'"
            ) from error
        self._connections.open(engine, self._new_engine)
        try:
            async with self._connections.connection() as db:
                await set_up_schema(PostgresSchemaSteps(self.url, db), create=self.create)
                if self.row_level_security and self.create:
                    for table in TENANT_TABLES:
                        await db.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        await self._connections.close()

    def _new_engine(self) -> AsyncEngine:  # one per event loop (see Connections)
        return create_async_engine(self.url, pool_size=self.pool_size, max_overflow=10)

    @property
    def idle_connections(self) -> int:
        """Connections kept open for the next operations."""
        return self._connections.idle

    def _lock_timeout(self) -> str | None:
        return None if self.lock_timeout is None else f"{int(self.lock_timeout * 1000)}ms"

    # -- the log -----------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        # The ids are looked up only when the write or the version check says it is needed.
        try:
            written = await self._write_events(tenant_id, stream_id, expected_version, pending)
        except DuplicateEventId as duplicate:
            # Some ids are recorded already: the originals of a retry, or a conflict.
            retry = await self._originals(tenant_id, stream_id, pending)
            if retry is None:
                # Only a database keyed before schema 5 (event ids unique across tenants, a
                # re-key pending) gets here: the id is another tenant's.
                raise IdempotencyConflict(
                    duplicate.event_id, "the id is recorded but not visible to this tenant"
                ) from duplicate
            return AppendOutcome(retry, written=False)
        if isinstance(written, StreamHead):
            # The version check failed: a retry of an append that did commit, or a conflict.
            retry = await self._originals(tenant_id, stream_id, pending)
            if retry is not None:
                return AppendOutcome(retry, written=False)
            assert expected_version is not None
            raise ConcurrencyError(tenant_id, stream_id, expected_version, written.version)
        return AppendOutcome(written, written=True)

    async def _write_events(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> list[StoredEvent] | StreamHead:
        """The records written, or the stream head when it is not at ``expected_version``."""
        arguments = (self._options(), tenant_id, stream_id, expected_version, pending)
        async with self._connections.connection(tenant_id) as db:
            if self.lock_handoff:
                return await handoff.append(db, *arguments)
            async with db.transaction():
                return await append_locked(db, *arguments)

    def _options(self) -> AppendOptions:
        lease = None if self.turn_timeout is None else f"{int(self.turn_timeout * 1000)}ms"
        return AppendOptions(
            self._lock_timeout(),
            self.row_level_security,
            self.before_write,
            self.commit_delay,
            lease,
        )

    async def _originals(
        self, tenant_id: str, stream_id: str, pending: Sequence[PendingEvent]
    ) -> list[StoredEvent] | None:
        ids = [event.event_id for event in pending]
        async with self._reader(tenant_id) as db:
            existing = await events_by_id(db, tenant_id, ids)
        return match_retry(tenant_id, stream_id, pending, existing)

    async def erase(
        self,
        tenant_id: str,
        event_ids: Sequence[str],
        make_erasure: MakeErasure,
        expected_position: int | None = None,
    ) -> ErasureOutcome:
        async with self._connections.connection(tenant_id) as db, db.transaction():
            steps = PostgresErasure(db, tenant_id, self._lock_timeout(), self.row_level_security)
            return await run_erasure(
                steps, tenant_id, event_ids, make_erasure, timestamp_now(), expected_position
            )

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        upto = to_version if to_version is not None else _NO_LIMIT
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(statements().stream, tenant_id, stream_id, from_version, upto)
        return [stored_event(row) for row in rows]

    async def read_stream_and_head(
        self, tenant_id: str, stream_id: str, from_version: int, head_of: str
    ) -> tuple[list[StoredEvent], StreamHead]:
        sql = statements()
        async with self._reader(tenant_id) as db:
            row = await db.fetchrow(sql.stream_head, tenant_id, head_of)
            rows = await db.fetch(sql.stream, tenant_id, stream_id, from_version, _NO_LIMIT)
        head = StreamHead(tenant_id, head_of, row[1], row[2]) if row else None
        return [stored_event(r) for r in rows], head or StreamHead.empty(tenant_id, head_of)

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        upto = to_position if to_position is not None else _NO_LIMIT
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(statements().log, tenant_id, after_position, upto, limit)
        return [stored_event(row) for row in rows]

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        async with self._reader(tenant_id) as db:
            found = await events_by_id(db, tenant_id, list(event_ids))
        return [event for event in found.values() if event.tenant_id == tenant_id]

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(statements().hashes, tenant_id, first, last)
        return [bytes(row[0]) for row in rows]

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        async with self._reader(tenant_id) as db:
            row = await db.fetchrow(statements().stream_head, tenant_id, stream_id)
        if row is None:
            return StreamHead.empty(tenant_id, stream_id)
        return StreamHead(tenant_id, stream_id, row[1], row[2])

    async def log_state(self, tenant_id: str, stream_id: str | None = None) -> LogState:
        sql = statements()
        async with self._transaction(tenant_id, isolation="repeatable_read") as db:
            extents = await db.fetchrow(sql.log_state, tenant_id, stream_id or "")
            if stream_id is None:
                rows = await db.fetch(sql.stream_heads, tenant_id)
            else:
                rows = await db.fetch(sql.stream_head, tenant_id, stream_id)
        position, last_position, last_version = extents or (0, 0, 0)
        heads = {row[0]: StreamHead(tenant_id, row[0], row[1], row[2]) for row in rows}
        return LogState(position or 0, heads, last_position or 0, last_version or 0)

    async def tenants(self) -> list[str]:
        async with self._connections.connection() as db:
            return [row[0] for row in await db.fetch(statements().tenants)]
