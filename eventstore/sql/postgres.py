"""The PostgreSQL recorder: SQLAlchemy 2 async engine and pool over asyncpg.

Ordering: each tenant has one row in ``tenant_heads``. An append does everything it can first
(encoding and hashing happen in the store; here, the idempotency lookup), then locks that row
``FOR UPDATE`` and reads the stream head (one call of ``ctxledger_lock``), chains the events, writes
events, payloads and both heads in one statement, and commits. The row lock is held from the
lock statement to the commit, so positions are assigned in commit order without gaps, and
tenants never wait for each other. PostgreSQL makes a commit visible before it releases the
transaction's locks, so a reader tailing "after position p" never sees p + 2 before p + 1.

As for SQLite, the hot paths use the driver connection (asyncpg) that SQLAlchemy's pool hands
out, with statements compiled from the Core tables: a few round trips per append matter more
than anything else. Driver errors are translated in :func:`_translate`, the one seam.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlalchemy.sql.elements import BindParameter, ClauseElement

from eventstore.errors import (
    ConcurrencyError,
    IdempotencyConflict,
    LedgerError,
    LockTimeoutError,
    SchemaVersionError,
    StorageError,
)
from eventstore.ids import id_bytes
from eventstore.recorder import AppendOutcome, ErasureOutcome, LogSnapshot, MakeErasure
from eventstore.records import (
    ERASURE_STREAM,
    PendingEvent,
    SnapshotRecord,
    StoredEvent,
    StreamHead,
    chain_events,
    match_retry,
    plan_erasure,
)
from eventstore.sql.rows import SELECT_EVENTS, contiguous, stored_event
from eventstore.sql.schema import (
    POSTGRES_DDL,
    SCHEMA_VERSION,
    TENANT_TABLES,
    events,
    ledger_meta,
    metadata,
    stream_heads,
    tenant_heads,
)
from eventstore.timestamps import parse_timestamp, timestamp_now

__all__ = ["PostgresRecorder"]

_DIALECT = postgresql.dialect(paramstyle="numeric_dollar")  # type: ignore[no-untyped-call]
_SETUP_LOCK = 0x637478_6C6564  # advisory lock id for schema set-up ("ctxled")


def _sql(statement: ClauseElement) -> str:
    return str(statement.compile(dialect=_DIALECT))


class _Sql:
    """Statements, compiled once from the Core tables (nothing happens at import)."""

    def __init__(self) -> None:
        e, h, t = events.c, stream_heads.c, tenant_heads.c
        self.events_by_id = _sql(SELECT_EVENTS) + " WHERE events.event_id = ANY($1::bytea[])"
        tenant: BindParameter[str] = bindparam("tenant")
        stream: BindParameter[str] = bindparam("stream")
        self.stream = _sql(
            SELECT_EVENTS.where(
                e.tenant_id == tenant,
                e.stream_id == stream,
                e.version >= bindparam("from_version"),
                e.version <= bindparam("to_version"),
            ).order_by(e.version)
        )
        self.log = (
            _sql(
                SELECT_EVENTS.where(
                    e.tenant_id == tenant,
                    e.position > bindparam("after"),
                    e.position <= bindparam("upto"),
                ).order_by(e.position)
            )
            + " LIMIT $4"
        )
        # Locks the tenant's head row and then reads the stream head, in one round trip.
        self.lock = "SELECT * FROM ctxledger_lock($1, $2, $3, $4)"
        self.write = (
            "WITH new_events AS ("
            " INSERT INTO events (tenant_id, position, stream_id, version, event_id, type,"
            " schema_version, recorded_at, actor, payload_hash, prev_hash, hash)"
            " SELECT $1, x.position, $2, x.version, x.event_id, x.type, x.schema_version, $3,"
            " x.actor, x.payload_hash, x.prev_hash, x.hash FROM unnest($4::bigint[],"
            " $5::bigint[], $6::bytea[], $7::text[], $8::int[], $9::text[], $10::bytea[],"
            " $11::bytea[], $12::bytea[]) AS x(position, version, event_id, type,"
            " schema_version, actor, payload_hash, prev_hash, hash)"
            "), new_payloads AS ("
            " INSERT INTO payloads (event_id, tenant_id, salt, payload)"
            " SELECT y.event_id, $1, y.salt, y.payload"
            " FROM unnest($6::bytea[], $13::bytea[], $14::bytea[]) AS y(event_id, salt, payload)"
            "), new_head AS ("
            " INSERT INTO stream_heads (tenant_id, stream_id, version, hash)"
            " VALUES ($1, $2, $15, $16) ON CONFLICT (tenant_id, stream_id)"
            " DO UPDATE SET version = EXCLUDED.version, hash = EXCLUDED.hash"
            ") UPDATE tenant_heads SET position = $17 WHERE tenant_id = $1"
        )
        # Two statements: the delete trigger must see the erasure rows, and the parts of one
        # statement (CTEs) share a snapshot.
        self.mark_erased = (
            "INSERT INTO erasures (event_id, tenant_id, erased_by)"
            " SELECT unnest($2::bytea[]), $1, $3"
        )
        self.delete_payloads = (
            "DELETE FROM payloads WHERE tenant_id = $1 AND event_id = ANY($2::bytea[])"
        )
        self.snapshot = (
            "SELECT (SELECT position FROM tenant_heads WHERE tenant_id = $1),"
            " (SELECT max(position) FROM events WHERE tenant_id = $1),"
            " (SELECT max(version) FROM events WHERE tenant_id = $1 AND stream_id = $2)"
        )
        self.stream_heads = _sql(
            select(h.stream_id, h.version, h.hash).where(h.tenant_id == tenant)
        )
        self.stream_head = _sql(
            select(h.stream_id, h.version, h.hash).where(
                h.tenant_id == tenant, h.stream_id == stream
            )
        )
        self.tenants = _sql(select(t.tenant_id).order_by(t.tenant_id))
        self.meta_version = "SELECT value FROM ledger_meta WHERE key = 'schema_version'"
        self.ddl = [
            _sql(CreateTable(table, if_not_exists=True)) for table in metadata.sorted_tables
        ]
        self.ddl += [
            _sql(CreateIndex(index, if_not_exists=True))
            for table in metadata.sorted_tables
            for index in table.indexes
        ]
        self.ddl += list(POSTGRES_DDL)
        self.save_snapshot = (
            "INSERT INTO snapshots (tenant_id, name, stream_id, projection_version, version,"
            " position, state, state_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            " ON CONFLICT (tenant_id, name, stream_id) DO UPDATE SET"
            " projection_version = EXCLUDED.projection_version, version = EXCLUDED.version,"
            " position = EXCLUDED.position, state = EXCLUDED.state,"
            " state_hash = EXCLUDED.state_hash"
        )
        self.load_snapshot = (
            "SELECT tenant_id, name, stream_id, projection_version, version, position, state,"
            " state_hash FROM snapshots WHERE tenant_id = $1 AND name = $2 AND stream_id = $3"
        )
        self.meta_put = _sql(ledger_meta.insert().values(key=bindparam("k"), value=bindparam("v")))
        self.hashes = (
            "SELECT hash FROM events WHERE tenant_id = $1 AND position >= $2 AND position <= $3"
            " ORDER BY position"
        )
        self.merkle_nodes = (
            "SELECT idx, hash FROM merkle_nodes WHERE tenant_id = $1 AND algorithm = $2 AND"
            " level = $3 AND idx >= $4 AND idx <= $5 ORDER BY idx"
        )
        self.merkle_extent = (
            "SELECT count(*) FROM merkle_nodes WHERE tenant_id = $1 AND algorithm = $2"
            " AND level = $3"
        )
        self.save_merkle = (
            "INSERT INTO merkle_nodes (tenant_id, algorithm, level, idx, hash)"
            " SELECT $1, $2, unnest($3::int[]), unnest($4::bigint[]), unnest($5::bytea[])"
            " ON CONFLICT DO NOTHING"
        )


_compiled: _Sql | None = None


def _statements() -> _Sql:
    global _compiled
    if _compiled is None:
        _compiled = _Sql()
    return _compiled


class PostgresRecorder:
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
        before_commit: an async hook awaited just before an append commits (fault and delay
            injection in tests).
    """

    def __init__(
        self,
        url: str,
        *,
        lock_timeout: float | None = 10.0,
        row_level_security: bool = False,
        create: bool = True,
        pool_size: int = 5,
        before_commit: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.lock_timeout = lock_timeout
        self.row_level_security = row_level_security
        self.create = create
        self.pool_size = pool_size
        self.before_commit = before_commit
        self._engine: AsyncEngine | None = None
        # Connections this recorder keeps checked out between operations (see _checkout).
        self._idle: list[tuple[AsyncConnection, Any]] = []

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        if self._engine is not None:
            return
        try:
            engine = create_async_engine(self.url, pool_size=self.pool_size, max_overflow=10)
        except (ImportError, ModuleNotFoundError) as error:
            raise StorageError(
                "PostgreSQL needs the asyncpg driver: pip install 'ctxledger[postgres]'"
            ) from error
        self._engine = engine
        try:
            async with self._connection() as db:
                await self._setup(db)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        engine, self._engine = self._engine, None
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            await connection.close()
        if engine is not None:
            await engine.dispose()

    async def _setup(self, db: Any) -> None:
        version = await self._schema_version(db)
        if version is not None and version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"the database at {_safe_url(self.url)}",
                version,
                SCHEMA_VERSION,
                "upgrade ctxledger to open it (it was written by a newer release)",
            )
        if version is None and not self.create:
            raise StorageError(
                f"{_safe_url(self.url)} holds no ctxledger schema; open it with create=True "
                f"as the owner role first"
            )
        if version is None or version < SCHEMA_VERSION:
            # Creation, or an upgrade: every step is additive and idempotent.
            async with db.transaction():
                await db.execute("SELECT pg_advisory_xact_lock($1)", _SETUP_LOCK)
                current = await self._schema_version(db)
                if current is None or current < SCHEMA_VERSION:
                    for statement in _statements().ddl:
                        await db.execute(statement)
                if current is None:
                    await db.execute(_statements().meta_put, "schema_version", str(SCHEMA_VERSION))
                    await db.execute(_statements().meta_put, "hash_spec", "1")
                elif current < SCHEMA_VERSION:
                    await db.execute(
                        "UPDATE ledger_meta SET value = $1 WHERE key = 'schema_version'",
                        str(SCHEMA_VERSION),
                    )
        if self.row_level_security and self.create:
            for table in TENANT_TABLES:
                await db.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")

    async def _schema_version(self, db: Any) -> int | None:
        if await db.fetchval("SELECT to_regclass('ledger_meta')") is None:
            return None
        value = await db.fetchval(_statements().meta_version)
        return int(value) if value is not None else None

    # -- connections and the one seam to the driver ------------------------------------------

    @asynccontextmanager
    async def _connection(self, tenant_id: str | None = None) -> AsyncIterator[Any]:
        """An asyncpg connection from the pool; driver errors become ctxledger errors."""
        connection, driver = await self._checkout(tenant_id)
        clean = False
        try:
            yield driver
            clean = True
        except LedgerError:
            clean = True  # raised by ctxledger after the server answered normally
            raise
        except Exception as error:
            if _is_connection_loss(error):
                await connection.invalidate()
            translated = _translate(error, self.url, tenant_id)
            if translated is None:
                raise
            raise translated from error
        finally:
            if not self._checkin(connection, driver, clean) and not connection.invalidated:
                await connection.close()

    async def _checkout(self, tenant_id: str | None) -> tuple[AsyncConnection, Any]:
        """A connection kept from an earlier operation, or one from SQLAlchemy's pool.

        SQLAlchemy's checkout and checkin cost about 110 us of CPU together (greenlet hops),
        a tenth of a single durable append; so up to ``pool_size`` connections stay checked
        out between operations. SQLAlchemy still creates, limits and disposes them.
        """
        if self._engine is None:
            raise StorageError("the store is not open: use 'async with EventStore.open(...)'")
        while self._idle:
            connection, driver = self._idle.pop()
            if not driver.is_closed():
                return connection, driver
            await connection.invalidate()  # closed by the server while it waited here
        try:
            connection = await self._engine.connect()
            raw = await connection.get_raw_connection()
        except DBAPIError as error:
            cause = error.orig or error
            raise _translate(cause, self.url, tenant_id) or StorageError(str(error)) from error
        except OSError as error:
            raise StorageError(
                f"cannot connect to {_safe_url(self.url)}: {error}; is the server running?"
            ) from error
        return connection, raw.driver_connection

    def _checkin(self, connection: AsyncConnection, driver: Any, clean: bool) -> bool:
        """Keep a connection for the next operation if it is idle and healthy; False when the
        caller must hand it back to SQLAlchemy instead."""
        if (
            clean
            and self._engine is not None
            and len(self._idle) < self.pool_size
            and not connection.invalidated
            and not driver.is_closed()
            and not driver.is_in_transaction()
        ):
            self._idle.append((connection, driver))
            return True
        return False

    @asynccontextmanager
    async def _transaction(
        self, tenant_id: str, isolation: str = "read_committed"
    ) -> AsyncIterator[Any]:
        async with self._connection(tenant_id) as db, db.transaction(isolation=isolation):
            await self._configure(db, tenant_id)
            yield db

    async def _configure(self, db: Any, tenant_id: str) -> None:
        """Per-transaction settings of a read: the tenant, under row-level security."""
        if self.row_level_security:
            await db.execute("SELECT set_config('ctxledger.tenant', $1, true)", tenant_id)

    # -- writes ------------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        # Four round trips: BEGIN, lock (with the stream head), write, COMMIT. The idempotency
        # lookup happens only when the write or the version check says it is needed.
        ids = [event.event_id for event in pending]
        try:
            async with self._connection(tenant_id) as db, db.transaction():
                position, head = await self._lock(db, tenant_id, stream_id)
                if expected_version is not None and expected_version != head.version:
                    # A retry of an append that did commit, or a real conflict.
                    existing = await _events_by_id(db, ids)
                    retry = match_retry(tenant_id, stream_id, pending, existing)
                    if retry is not None:
                        return AppendOutcome(retry, written=False)
                    raise ConcurrencyError(tenant_id, stream_id, expected_version, head.version)
                stored = chain_events(head, position, pending, timestamp_now())
                await _write(db, tenant_id, stream_id, stored)
                if self.before_commit is not None:
                    await self.before_commit()
            return AppendOutcome(stored, written=True)
        except _DuplicateEventId as duplicate:
            # Some ids are recorded already: the originals of a retry, or a conflict.
            async with self._transaction(tenant_id) as db:
                existing = await _events_by_id(db, ids)
            retry = match_retry(tenant_id, stream_id, pending, existing)
            if retry is None:
                raise IdempotencyConflict(
                    duplicate.event_id, "the id is recorded but not visible to this tenant"
                ) from duplicate
            return AppendOutcome(retry, written=False)

    async def _lock(self, db: Any, tenant_id: str, stream_id: str) -> tuple[int, StreamHead]:
        timeout = None if self.lock_timeout is None else f"{int(self.lock_timeout * 1000)}ms"
        position, version, digest = await db.fetchrow(
            _statements().lock, tenant_id, stream_id, timeout, self.row_level_security
        )
        if version is None:
            return position, StreamHead.empty(tenant_id, stream_id)
        return position, StreamHead(tenant_id, stream_id, version, digest)

    async def erase(
        self, tenant_id: str, event_ids: Sequence[str], make_erasure: MakeErasure
    ) -> ErasureOutcome:
        async with self._connection(tenant_id) as db, db.transaction():
            position, head = await self._lock(db, tenant_id, ERASURE_STREAM)
            found = {
                event.event_id: event
                for event in (await _events_by_id(db, list(event_ids))).values()
                if event.tenant_id == tenant_id
            }
            to_erase, already = plan_erasure(tenant_id, event_ids, found)
            if not to_erase:
                return ErasureOutcome(None, [], already)
            (erasure,) = chain_events(head, position, [make_erasure(to_erase)], timestamp_now())
            await _write(db, tenant_id, ERASURE_STREAM, [erasure])
            ids = [id_bytes(i) for i in to_erase]
            await db.execute(_statements().mark_erased, tenant_id, ids, erasure.position)
            await db.execute(_statements().delete_payloads, tenant_id, ids)
            # Snapshots of the affected streams may hold copies of the erased data.
            streams = sorted({found[event_id].stream_id for event_id in to_erase})
            await db.execute(
                "DELETE FROM snapshots WHERE tenant_id = $1 AND stream_id = ANY($2::text[])",
                tenant_id,
                streams,
            )
        return ErasureOutcome(erasure, to_erase, already)

    # -- reads -------------------------------------------------------------------------------

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        upto = to_version if to_version is not None else 2**62
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(_statements().stream, tenant_id, stream_id, from_version, upto)
        return [stored_event(row) for row in rows]

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        upto = to_position if to_position is not None else 2**62
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(_statements().log, tenant_id, after_position, upto, limit)
        return [stored_event(row) for row in rows]

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        async with self._reader(tenant_id) as db:
            found = await _events_by_id(db, list(event_ids))
        return [event for event in found.values() if event.tenant_id == tenant_id]

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        async with self._reader(tenant_id) as db:
            row = await db.fetchrow(_statements().stream_head, tenant_id, stream_id)
        if row is None:
            return StreamHead.empty(tenant_id, stream_id)
        return StreamHead(tenant_id, stream_id, row[1], row[2])

    async def snapshot(self, tenant_id: str, stream_id: str | None = None) -> LogSnapshot:
        sql = _statements()
        async with self._transaction(tenant_id, isolation="repeatable_read") as db:
            position, last_position, last_version = await db.fetchrow(
                sql.snapshot, tenant_id, stream_id or ""
            )
            if stream_id is None:
                rows = await db.fetch(sql.stream_heads, tenant_id)
            else:
                rows = await db.fetch(sql.stream_head, tenant_id, stream_id)
        heads = {row[0]: StreamHead(tenant_id, row[0], row[1], row[2]) for row in rows}
        return LogSnapshot(position or 0, heads, last_position or 0, last_version or 0)

    async def tenants(self) -> list[str]:
        async with self._connection() as db:
            return [row[0] for row in await db.fetch(_statements().tenants)]

    async def save_snapshot(self, snapshot: SnapshotRecord) -> None:
        async with self._transaction(snapshot.tenant_id) as db:
            await db.execute(_statements().save_snapshot, *snapshot)

    async def load_snapshot(
        self, tenant_id: str, name: str, stream_id: str
    ) -> SnapshotRecord | None:
        async with self._reader(tenant_id) as db:
            row = await db.fetchrow(_statements().load_snapshot, tenant_id, name, stream_id)
        return SnapshotRecord(*row) if row else None

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(_statements().hashes, tenant_id, first, last)
        return [bytes(row[0]) for row in rows]

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(
                _statements().merkle_nodes, tenant_id, algorithm, level, first, last
            )
        return contiguous([(row[0], row[1]) for row in rows], first)

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        async with self._reader(tenant_id) as db:
            count = await db.fetchval(_statements().merkle_extent, tenant_id, algorithm, level)
        return int(count)

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        if not nodes:
            return
        async with self._transaction(tenant_id) as db:
            await db.execute(
                _statements().save_merkle,
                tenant_id,
                algorithm,
                [level for level, _, _ in nodes],
                [index for _, index, _ in nodes],
                [digest for _, _, digest in nodes],
            )

    @asynccontextmanager
    async def _reader(self, tenant_id: str) -> AsyncIterator[Any]:
        if not self.row_level_security:
            async with self._connection(tenant_id) as db:
                yield db
            return
        async with self._transaction(tenant_id) as db:
            yield db


class _DuplicateEventId(Exception):
    def __init__(self, event_id: str) -> None:
        super().__init__(event_id)
        self.event_id = event_id


async def _events_by_id(db: Any, event_ids: list[str]) -> dict[str, StoredEvent]:
    rows = await db.fetch(_statements().events_by_id, [id_bytes(i) for i in event_ids])
    found = (stored_event(row) for row in rows)
    return {event.event_id: event for event in found}


async def _write(db: Any, tenant_id: str, stream_id: str, stored: list[StoredEvent]) -> None:
    last = stored[-1]
    ids = [id_bytes(event.event_id) for event in stored]
    try:
        await db.execute(
            _statements().write,
            tenant_id,
            stream_id,
            parse_timestamp(last.recorded_at),
            [event.position for event in stored],
            [event.version for event in stored],
            ids,
            [event.type for event in stored],
            [event.schema_version for event in stored],
            [event.actor for event in stored],
            [event.payload_hash for event in stored],
            [event.prev_hash for event in stored],
            [event.hash for event in stored],
            [event.salt for event in stored],
            [event.payload for event in stored],
            last.version,
            last.hash,
            last.position,
        )
    except Exception as error:
        if getattr(error, "constraint_name", None) in ("events_event_id_uq", "payloads_pkey"):
            raise _DuplicateEventId(stored[0].event_id) from error
        raise


def _is_connection_loss(error: BaseException) -> bool:
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


def _translate(error: BaseException, url: str, tenant_id: str | None) -> LedgerError | None:
    """The one place where driver errors become ctxledger errors (None: not a driver error)."""
    import asyncpg

    where = _safe_url(url)
    if isinstance(error, asyncpg.exceptions.LockNotAvailableError):
        return LockTimeoutError(tenant_id or "?", str(error))
    if _is_connection_loss(error):
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


def _safe_url(url: str) -> str:
    """The URL without its password."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
