"""The SQLite recorder: SQLAlchemy 2 async engine over aiosqlite, one thread hop per operation.

Why not statement-by-statement through ``AsyncConnection.execute``: with aiosqlite every
statement is a hop to the connection's worker thread and back, and an append needs about seven
(BEGIN IMMEDIATE, existing ids, two heads, two inserts, two head upserts, COMMIT); the hops, not
SQL or hashing, dominate (DESIGN §8). So each operation is one plain function that runs whole in
the aiosqlite worker thread that owns the ``sqlite3`` connection, submitted through
``aiosqlite.Connection._execute`` (the same worker queue SQLAlchemy's own aiosqlite adapter
feeds). The SQL those functions run is compiled once from the SQLAlchemy Core tables in
:mod:`eventstore.sql.schema`, so the schema has a single definition.

Durability and isolation: WAL journal, ``synchronous=FULL`` by default, a busy timeout, and
``BEGIN IMMEDIATE`` for every writer, which serialises writers across processes so positions are
assigned in commit order without gaps.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from sqlalchemy import event as sa_event
from sqlalchemy import func, select
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlalchemy.sql.elements import ClauseElement

from eventstore.errors import (
    ConcurrencyError,
    LedgerError,
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
from eventstore.sql.rows import SELECT_EVENTS, contiguous, event_row, stored_event
from eventstore.sql.schema import (
    SCHEMA_VERSION,
    SQLITE_TRIGGERS,
    erasures,
    events,
    ledger_meta,
    metadata,
    payloads,
    snapshots,
    stream_heads,
    tenant_heads,
)
from eventstore.timestamps import timestamp_now

__all__ = ["SYNCHRONOUS_MODES", "SqliteRecorder"]

SYNCHRONOUS_MODES: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
_ID_CHUNK = 500  # ids per IN (...) list, well under SQLite's bound-parameter limit
T = TypeVar("T")

_DIALECT = sqlite_dialect.dialect(paramstyle="qmark")


def _sql(statement: ClauseElement) -> str:
    return str(statement.compile(dialect=_DIALECT))


class _Sql:
    """The statements the recorder runs, compiled once (lazily: nothing happens at import)."""

    def __init__(self) -> None:
        e = events.c
        self.insert_event = _sql(events.insert())
        self.insert_payload = _sql(payloads.insert())
        self.insert_erasure = _sql(erasures.insert())
        self.delete_payload = _sql(payloads.delete().where(payloads.c.event_id == "?"))
        self.events_by_id = _sql(SELECT_EVENTS) + " WHERE events.event_id IN ({marks})"
        self.stream = _sql(
            SELECT_EVENTS.where(e.tenant_id == "?", e.stream_id == "?", e.version >= "?").order_by(
                e.version
            )
        )
        self.stream_upto = _sql(
            SELECT_EVENTS.where(
                e.tenant_id == "?", e.stream_id == "?", e.version >= "?", e.version <= "?"
            ).order_by(e.version)
        )
        # LIMIT is appended by hand: SQLite's compiler would add an OFFSET parameter too.
        self.log = (
            _sql(SELECT_EVENTS.where(e.tenant_id == "?", e.position > "?").order_by(e.position))
            + " LIMIT ?"
        )
        self.log_upto = (
            _sql(
                SELECT_EVENTS.where(
                    e.tenant_id == "?", e.position > "?", e.position <= "?"
                ).order_by(e.position)
            )
            + " LIMIT ?"
        )
        h = stream_heads.c
        self.stream_head = _sql(
            select(h.version, h.hash).where(h.tenant_id == "?", h.stream_id == "?")
        )
        self.stream_heads = _sql(select(h.stream_id, h.version, h.hash).where(h.tenant_id == "?"))
        self.upsert_stream_head = (
            "INSERT INTO stream_heads (tenant_id, stream_id, version, hash) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (tenant_id, stream_id) DO UPDATE SET version = excluded.version, "
            "hash = excluded.hash"
        )
        t = tenant_heads.c
        self.tenant_position = _sql(select(t.position).where(t.tenant_id == "?"))
        self.upsert_tenant_head = (
            "INSERT INTO tenant_heads (tenant_id, position) VALUES (?, ?) "
            "ON CONFLICT (tenant_id) DO UPDATE SET position = excluded.position"
        )
        self.last_position = _sql(select(func.max(e.position)).where(e.tenant_id == "?"))
        self.last_version = _sql(
            select(func.max(e.version)).where(e.tenant_id == "?", e.stream_id == "?")
        )
        self.tenants = _sql(select(t.tenant_id).order_by(t.tenant_id))
        self.ddl = [
            _sql(CreateTable(table, if_not_exists=True)) for table in metadata.sorted_tables
        ]
        self.ddl += [
            _sql(CreateIndex(index, if_not_exists=True))
            for table in metadata.sorted_tables
            for index in table.indexes
        ]
        self.ddl += list(SQLITE_TRIGGERS)
        self.save_snapshot = (
            "INSERT OR REPLACE INTO snapshots (tenant_id, name, stream_id, projection_version, "
            "version, position, state, state_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        n = snapshots.c
        self.load_snapshot = _sql(
            select(*snapshots.c).where(n.tenant_id == "?", n.name == "?", n.stream_id == "?")
        )
        self.hashes = (
            "SELECT hash FROM events WHERE tenant_id = ? AND position >= ? AND position <= ? "
            "ORDER BY position"
        )
        self.merkle_nodes = (
            "SELECT idx, hash FROM merkle_nodes WHERE tenant_id = ? AND algorithm = ? AND "
            "level = ? AND idx >= ? AND idx <= ? ORDER BY idx"
        )
        self.merkle_extent = (
            "SELECT count(*) FROM merkle_nodes WHERE tenant_id = ? AND algorithm = ? AND level = ?"
        )
        self.save_merkle = (
            "INSERT OR IGNORE INTO merkle_nodes (tenant_id, algorithm, level, idx, hash) "
            "VALUES (?, ?, ?, ?, ?)"
        )
        m = ledger_meta.c
        self.meta_get = _sql(select(m.value).where(m.key == "?"))
        self.meta_put = _sql(ledger_meta.insert())


_compiled: _Sql | None = None


def _statements() -> _Sql:
    global _compiled
    if _compiled is None:
        _compiled = _Sql()
    return _compiled


class SqliteRecorder:
    """A :class:`~eventstore.recorder.Recorder` on one SQLite database file.

    Args:
        path: the database file (created if missing) or ``":memory:"``.
        synchronous: SQLite's ``synchronous`` pragma; ``FULL`` (default) survives power loss.
        busy_timeout: seconds a writer waits for another process's write lock.
        journal_wal: use the WAL journal (default); readers then never block the writer.
        create: create the database file and schema if missing (default); when False, a
            missing file or schema is an error (for tools that only read or verify).
    """

    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        journal_wal: bool = True,
        create: bool = True,
    ) -> None:
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout must be >= 0 seconds, got {busy_timeout}")
        self.path = path
        self.synchronous = mode
        self.busy_timeout = busy_timeout
        self.journal_wal = journal_wal and path != ":memory:"
        self.create = create
        self._engine: AsyncEngine | None = None
        self._writer: AsyncConnection | None = None
        self._write_lock = asyncio.Lock()

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        if self._engine is not None:
            return
        _check_path(self.path, create=self.create)
        engine = self._create_engine()
        try:
            self._writer = await self._connect(engine)
            await self._run(self._writer, self._setup)
        except BaseException:
            self._writer = None
            await engine.dispose()
            raise
        self._engine = engine

    def _create_engine(self) -> AsyncEngine:
        url = f"sqlite+aiosqlite:///{self.path}"
        options: dict[str, Any] = {
            # Autocommit mode at the driver: every transaction is an explicit BEGIN ... COMMIT.
            "connect_args": {"timeout": self.busy_timeout, "isolation_level": None},
        }
        if self.path == ":memory:":
            options["poolclass"] = StaticPool
        engine = create_async_engine(url, **options)
        synchronous = self.synchronous

        @sa_event.listens_for(engine.sync_engine, "connect")
        def _configure(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.close()

        return engine

    async def close(self) -> None:
        engine, writer = self._engine, self._writer
        self._engine = self._writer = None
        if writer is not None:
            await writer.close()
        if engine is not None:
            await engine.dispose()

    def _setup(self, db: sqlite3.Connection) -> None:
        sql = _statements()
        if self.journal_wal:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StorageError(
                    f"cannot switch {self.path} to the WAL journal (it stays {mode!r}); "
                    f"put the database on a local file system"
                )
        found = _schema_version(db)
        if found == SCHEMA_VERSION:
            return  # current schema: opening takes no write lock
        if found is None and not self.create:
            raise StorageError(
                f"{self.path} is not a ctxledger database (it has no ledger_meta table); "
                f"check the path"
            )
        db.execute("BEGIN IMMEDIATE")
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            if "events" in tables and "ledger_meta" not in tables:
                raise StorageError(
                    f"{self.path} has an 'events' table but is not a ctxledger database; "
                    f"choose another file"
                )
            found = None
            if "ledger_meta" in tables:
                row = db.execute(sql.meta_get, ("schema_version",)).fetchone()
                found = int(row[0]) if row else None
            if found is not None and found > SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"the database {self.path}",
                    found,
                    SCHEMA_VERSION,
                    "upgrade ctxledger to open it (it was written by a newer release)",
                )
            for statement in sql.ddl:
                db.execute(statement)
            if found is None:
                db.execute(sql.meta_put, ("schema_version", str(SCHEMA_VERSION)))
                db.execute(sql.meta_put, ("hash_spec", "1"))
            elif found < SCHEMA_VERSION:  # an upgrade: the DDL above added what was missing
                db.execute(
                    "UPDATE ledger_meta SET value = ? WHERE key = 'schema_version'",
                    (str(SCHEMA_VERSION),),
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    # -- the one seam to the driver ----------------------------------------------------------

    async def _connect(self, engine: AsyncEngine) -> AsyncConnection:
        try:
            return await engine.connect()
        except DBAPIError as error:
            if isinstance(error.orig, sqlite3.Error):
                raise _storage_error(self.path, error.orig) from error
            raise StorageError(f"cannot connect to {self.path}: {error}") from error

    async def _run(self, connection: AsyncConnection, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(sqlite3_connection, *args)`` in the connection's worker thread."""
        raw = await connection.get_raw_connection()
        driver = raw.driver_connection
        if driver is None or not hasattr(driver, "_execute"):
            raise StorageError(
                "this aiosqlite version has no worker queue (Connection._execute); "
                "install aiosqlite>=0.20,<0.23 as ctxledger's requirements say"
            )

        def in_thread() -> T:
            return fn(driver._conn, *args)

        try:
            result: T = await driver._execute(in_thread)
        except LedgerError:
            raise
        except sqlite3.Error as error:
            raise _storage_error(self.path, error) from error
        return result

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        connection = await self._connect(self._ready())
        try:
            return await self._run(connection, fn, *args)
        finally:
            await connection.close()

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        self._ready()
        async with self._write_lock:
            assert self._writer is not None
            return await self._run(self._writer, fn, *args)

    def _ready(self) -> AsyncEngine:
        if self._engine is None:
            raise StorageError(
                "the store is not open: use 'async with EventStore.open(...)' or await "
                "store.initialize() first"
            )
        return self._engine

    # -- writes ------------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        return await self._write(
            _in_transaction(_append_locked), tenant_id, stream_id, expected_version, pending
        )

    async def erase(
        self, tenant_id: str, event_ids: Sequence[str], make_erasure: MakeErasure
    ) -> ErasureOutcome:
        return await self._write(_in_transaction(_erase_locked), tenant_id, event_ids, make_erasure)

    # -- reads -------------------------------------------------------------------------------

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        sql = _statements()
        if to_version is None:
            return await self._read(_fetch, sql.stream, (tenant_id, stream_id, from_version))
        return await self._read(
            _fetch, sql.stream_upto, (tenant_id, stream_id, from_version, to_version)
        )

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        sql = _statements()
        if to_position is None:
            return await self._read(_fetch, sql.log, (tenant_id, after_position, limit))
        return await self._read(
            _fetch, sql.log_upto, (tenant_id, after_position, to_position, limit)
        )

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        return await self._read(_events_by_id, tenant_id, list(event_ids))

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        return await self._read(_stream_head, tenant_id, stream_id)

    async def snapshot(self, tenant_id: str, stream_id: str | None = None) -> LogSnapshot:
        return await self._read(_in_read_transaction(_snapshot), tenant_id, stream_id)

    async def tenants(self) -> list[str]:
        return await self._read(_tenants)

    async def save_snapshot(self, snapshot: SnapshotRecord) -> None:
        await self._write(_in_transaction(_save_snapshot), snapshot)

    async def load_snapshot(
        self, tenant_id: str, name: str, stream_id: str
    ) -> SnapshotRecord | None:
        return await self._read(_load_snapshot, tenant_id, name, stream_id)

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        return await self._read(_column, _statements().hashes, (tenant_id, first, last))

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        rows = await self._read(
            _rows, _statements().merkle_nodes, (tenant_id, algorithm, level, first, last)
        )
        return contiguous(rows, first)

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        (count,) = await self._read(
            _column, _statements().merkle_extent, (tenant_id, algorithm, level)
        )
        return int(count)

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        rows = [(tenant_id, algorithm, level, index, digest) for level, index, digest in nodes]
        await self._write(_in_transaction(_executemany), _statements().save_merkle, rows)


def _schema_version(db: sqlite3.Connection) -> int | None:
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "ledger_meta" not in tables:
        return None
    row = db.execute(_statements().meta_get, ("schema_version",)).fetchone()
    return int(row[0]) if row else None


def _check_path(path: str, *, create: bool) -> None:
    if path == ":memory:":
        return
    if not create and not Path(path).is_file():
        raise StorageError(
            f"there is no database at {path}: check the path (--db or CTXLEDGER_DB); nothing "
            f"was created"
        )
    parent = Path(path).expanduser().resolve().parent
    if not parent.is_dir():
        raise StorageError(
            f"cannot open SQLite database {path}: directory {parent} does not exist; create it "
            f"first or choose another path"
        )


# -- functions that run in the worker thread --------------------------------------------------


def _in_transaction(fn: Callable[..., T]) -> Callable[..., T]:
    def run(db: sqlite3.Connection, *args: Any) -> T:
        db.execute("BEGIN IMMEDIATE")
        try:
            result = fn(db, *args)
            db.execute("COMMIT")
            return result
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    return run


def _in_read_transaction(fn: Callable[..., T]) -> Callable[..., T]:
    def run(db: sqlite3.Connection, *args: Any) -> T:
        db.execute("BEGIN")
        try:
            return fn(db, *args)
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    return run


def _fetch(
    db: sqlite3.Connection, statement: str, parameters: tuple[Any, ...]
) -> list[StoredEvent]:
    return [stored_event(row) for row in db.execute(statement, parameters)]


def _events_by_id(
    db: sqlite3.Connection, tenant_id: str, event_ids: list[str]
) -> list[StoredEvent]:
    sql = _statements()
    found: list[StoredEvent] = []
    unique = list(dict.fromkeys(event_ids))
    for start in range(0, len(unique), _ID_CHUNK):
        chunk = [id_bytes(event_id) for event_id in unique[start : start + _ID_CHUNK]]
        statement = sql.events_by_id.format(marks=",".join("?" * len(chunk)))
        found.extend(stored_event(row) for row in db.execute(statement, chunk))
    return [event for event in found if event.tenant_id == tenant_id]


def _all_events_by_id(db: sqlite3.Connection, event_ids: list[str]) -> dict[str, StoredEvent]:
    sql = _statements()
    found: dict[str, StoredEvent] = {}
    for start in range(0, len(event_ids), _ID_CHUNK):
        chunk = [id_bytes(event_id) for event_id in event_ids[start : start + _ID_CHUNK]]
        statement = sql.events_by_id.format(marks=",".join("?" * len(chunk)))
        for row in db.execute(statement, chunk):
            event = stored_event(row)
            found[event.event_id] = event
    return found


def _stream_head(db: sqlite3.Connection, tenant_id: str, stream_id: str) -> StreamHead:
    row = db.execute(_statements().stream_head, (tenant_id, stream_id)).fetchone()
    if row is None:
        return StreamHead.empty(tenant_id, stream_id)
    return StreamHead(tenant_id, stream_id, row[0], row[1])


def _tenant_position(db: sqlite3.Connection, tenant_id: str) -> int:
    row = db.execute(_statements().tenant_position, (tenant_id,)).fetchone()
    return int(row[0]) if row else 0


def _snapshot(db: sqlite3.Connection, tenant_id: str, stream_id: str | None) -> LogSnapshot:
    sql = _statements()
    position = _tenant_position(db, tenant_id)
    last_position = db.execute(sql.last_position, (tenant_id,)).fetchone()[0]
    if stream_id is None:
        heads = {
            row[0]: StreamHead(tenant_id, row[0], row[1], row[2])
            for row in db.execute(sql.stream_heads, (tenant_id,))
        }
        return LogSnapshot(position, heads, _as_int(last_position))
    head = db.execute(sql.stream_head, (tenant_id, stream_id)).fetchone()
    last_version = db.execute(sql.last_version, (tenant_id, stream_id)).fetchone()[0]
    return LogSnapshot(
        position,
        {stream_id: StreamHead(tenant_id, stream_id, head[0], head[1])} if head else {},
        _as_int(last_position),
        _as_int(last_version),
    )


def _as_int(value: object) -> int:
    # max() over a tampered column may return text; verification reports that row itself.
    return value if isinstance(value, int) else 0


def _save_snapshot(db: sqlite3.Connection, snapshot: SnapshotRecord) -> None:
    db.execute(_statements().save_snapshot, tuple(snapshot))


def _load_snapshot(
    db: sqlite3.Connection, tenant_id: str, name: str, stream_id: str
) -> SnapshotRecord | None:
    row = db.execute(_statements().load_snapshot, (tenant_id, name, stream_id)).fetchone()
    return SnapshotRecord(*row) if row else None


def _column(db: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[Any]:
    return [row[0] for row in db.execute(sql, args)]


def _rows(db: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in db.execute(sql, args)]


def _executemany(db: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    db.executemany(sql, rows)


def _tenants(db: sqlite3.Connection) -> list[str]:
    return [row[0] for row in db.execute(_statements().tenants)]


def _append_locked(
    db: sqlite3.Connection,
    tenant_id: str,
    stream_id: str,
    expected_version: int | None,
    pending: Sequence[PendingEvent],
) -> AppendOutcome:
    sql = _statements()
    existing = _all_events_by_id(db, [event.event_id for event in pending])
    retry = match_retry(tenant_id, stream_id, pending, existing)
    if retry is not None:
        return AppendOutcome(retry, written=False)
    head = _stream_head(db, tenant_id, stream_id)
    if expected_version is not None and expected_version != head.version:
        raise ConcurrencyError(tenant_id, stream_id, expected_version, head.version)
    position = _tenant_position(db, tenant_id)
    stored = chain_events(head, position, pending, timestamp_now())
    try:
        db.executemany(sql.insert_event, [event_row(event) for event in stored])
    except sqlite3.IntegrityError as error:
        # Only reachable if the heads disagree with the events table (a damaged database):
        # BEGIN IMMEDIATE holds the write lock, so no other writer can have moved the stream.
        actual = db.execute(
            "SELECT max(version) FROM events WHERE tenant_id = ? AND stream_id = ?",
            (tenant_id, stream_id),
        ).fetchone()[0]
        raise ConcurrencyError(tenant_id, stream_id, head.version, int(actual or 0)) from error
    db.executemany(
        sql.insert_payload,
        [(id_bytes(event.event_id), tenant_id, event.salt, event.payload) for event in stored],
    )
    last = stored[-1]
    db.execute(sql.upsert_stream_head, (tenant_id, stream_id, last.version, last.hash))
    db.execute(sql.upsert_tenant_head, (tenant_id, last.position))
    return AppendOutcome(stored, written=True)


def _erase_locked(
    db: sqlite3.Connection, tenant_id: str, event_ids: Sequence[str], make_erasure: MakeErasure
) -> ErasureOutcome:
    sql = _statements()
    found = {event.event_id: event for event in _events_by_id(db, tenant_id, list(event_ids))}
    to_erase, already = plan_erasure(tenant_id, event_ids, found)
    if not to_erase:
        return ErasureOutcome(None, [], already)
    outcome = _append_locked(db, tenant_id, ERASURE_STREAM, None, [make_erasure(to_erase)])
    erasure = outcome.events[0]
    ids = [id_bytes(event_id) for event_id in to_erase]
    db.executemany(sql.insert_erasure, [(raw, tenant_id, erasure.position) for raw in ids])
    db.executemany(sql.delete_payload, [(raw,) for raw in ids])
    # Snapshots of the affected streams may hold copies of the erased data: drop them too.
    streams = sorted({found[event_id].stream_id for event_id in to_erase})
    db.executemany(
        "DELETE FROM snapshots WHERE tenant_id = ? AND stream_id = ?",
        [(tenant_id, stream) for stream in streams],
    )
    return ErasureOutcome(erasure, to_erase, already)


def _storage_error(path: str, error: sqlite3.Error) -> StorageError:
    text = str(error)
    if "locked" in text or "busy" in text:
        return StorageError(
            f"SQLite database {path} stayed locked by another writer longer than the busy "
            f"timeout ({text}); retry the operation, or open the store with a larger "
            f"busy_timeout"
        )
    if "unable to open" in text:
        return StorageError(
            f"cannot open SQLite database {path} ({text}): check that the path is a writable "
            f"file in an existing directory"
        )
    if "not a database" in text:
        return StorageError(f"{path} is not a SQLite database ({text}); choose another file")
    if "ctxledger:" in text:
        return StorageError(f"the database refused a change to {path}: {text}")
    return StorageError(f"SQLite error on {path}: {type(error).__name__}: {text}")
