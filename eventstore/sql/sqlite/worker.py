"""Functions that run whole in the SQLite recorder's worker thread (each one operation)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, ParamSpec, TypeAlias, TypeVar

import orjson

from eventstore.errors import ConcurrencyError, IdempotencyConflict, StorageError
from eventstore.ids import id_bytes
from eventstore.recorder import AppendOutcome, LogState
from eventstore.records import (
    PendingEvent,
    SnapshotRecord,
    StoredEvent,
    StreamHead,
    chain_events,
    match_retry,
)
from eventstore.sql.rows import event_row, stored_event
from eventstore.sql.sqlite.statements import statements
from eventstore.timestamps import timestamp_now

__all__ = [
    "append",
    "begin",
    "column",
    "commit",
    "events_by_id",
    "execute",
    "executemany",
    "fetch",
    "in_read_transaction",
    "in_transaction",
    "in_unsynced_transaction",
    "load_snapshots",
    "log_state",
    "rollback",
    "rows",
    "stream_and_head",
    "stream_head",
    "tenant_position",
    "use_wal",
    "write_events",
]

T = TypeVar("T")
P = ParamSpec("P")
#: A step run in the worker thread: the SQLite connection, then its own typed arguments.
Step: TypeAlias = Callable[Concatenate[sqlite3.Connection, P], T]
_ID_CHUNK = 500  # ids per IN (...) list, well under SQLite's bound-parameter limit


def in_transaction(fn: Step[P, T]) -> Step[P, T]:
    """``fn`` inside ``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on any error)."""

    def run(db: sqlite3.Connection, /, *args: P.args, **kwargs: P.kwargs) -> T:
        db.execute("BEGIN IMMEDIATE")
        try:
            result = fn(db, *args, **kwargs)
            db.execute("COMMIT")
            return result
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    return run


def in_unsynced_transaction(fn: Step[P, T], synchronous: str) -> Step[P, T]:
    """``fn`` in a transaction whose commit is not synced on its own: for rows derived from
    the log (read models), on a WAL database. With ``synchronous=NORMAL`` a WAL commit is
    atomic and consistent but durable only at the next synced commit (the log's next append)
    or checkpoint; a commit lost to a power cut is redone from the read model's checkpoint,
    which moves in the same transaction. The connection's own level (``synchronous``) is set
    back afterwards, so the log's commits keep it."""
    inner = in_transaction(fn)

    def run(db: sqlite3.Connection, /, *args: P.args, **kwargs: P.kwargs) -> T:
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            return inner(db, *args, **kwargs)
        finally:
            db.execute(f"PRAGMA synchronous={synchronous}")

    return run


def in_read_transaction(fn: Step[P, T]) -> Step[P, T]:
    """``fn`` inside one read transaction (a consistent snapshot of the file)."""

    def run(db: sqlite3.Connection, /, *args: P.args, **kwargs: P.kwargs) -> T:
        db.execute("BEGIN")
        try:
            return fn(db, *args, **kwargs)
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    return run


def begin(db: sqlite3.Connection) -> None:
    """Start a write transaction (the caller commits or rolls back)."""
    db.execute("BEGIN IMMEDIATE")


def commit(db: sqlite3.Connection) -> None:
    """Commit the open transaction."""
    db.execute("COMMIT")


def flush_wal(db: sqlite3.Connection) -> bool:
    """Copy the WAL into the main file and truncate it, so that the pre-erasure page images
    it holds are gone (readers of other connections are waited for, up to the busy timeout).
    Returns False when a reader still held an older snapshot at the deadline: then the main
    file still holds the old pages and the WAL the old frames (``PRAGMA wal_checkpoint``
    reports it as busy)."""
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy


def rollback(db: sqlite3.Connection) -> None:
    """Roll the open transaction back, if there is one."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def use_wal(db: sqlite3.Connection, path: str) -> None:
    """Switch the database to the WAL journal, or refuse."""
    mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StorageError(
            f"cannot switch {path} to the WAL journal (it stays {mode!r}); put the database "
            f"on a local file system"
        )


def fetch(db: sqlite3.Connection, sql: str, parameters: tuple[Any, ...]) -> list[StoredEvent]:
    """Events selected by ``sql`` (a ``SELECT_EVENTS`` query)."""
    return [stored_event(row) for row in db.execute(sql, parameters)]


def column(db: sqlite3.Connection, sql: str, parameters: tuple[Any, ...]) -> list[Any]:
    """The first column of every row."""
    return [row[0] for row in db.execute(sql, parameters)]


def rows(db: sqlite3.Connection, sql: str, parameters: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Every row, as tuples."""
    return [tuple(row) for row in db.execute(sql, parameters)]


def execute(db: sqlite3.Connection, sql: str, parameters: tuple[Any, ...]) -> None:
    """One statement."""
    db.execute(sql, parameters)


def executemany(db: sqlite3.Connection, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """One statement for each row of parameters."""
    db.executemany(sql, rows)


def events_by_id(
    db: sqlite3.Connection, tenant_id: str, event_ids: Sequence[str]
) -> dict[str, StoredEvent]:
    """The tenant's events with these ids (an id is unique within its tenant)."""
    sql = statements()
    found: dict[str, StoredEvent] = {}
    unique = list(dict.fromkeys(event_ids))
    for start in range(0, len(unique), _ID_CHUNK):
        chunk = [id_bytes(event_id) for event_id in unique[start : start + _ID_CHUNK]]
        statement = sql.events_by_id.format(marks=", ".join(["(?)"] * len(chunk)))
        for row in db.execute(statement, [*chunk, tenant_id]):
            event = stored_event(row)
            found[event.event_id] = event
    return found


def stream_head(db: sqlite3.Connection, tenant_id: str, stream_id: str) -> StreamHead:
    """A stream's head (version 0 and the genesis hash when it has no events)."""
    row = db.execute(statements().stream_head, (tenant_id, stream_id)).fetchone()
    if row is None:
        return StreamHead.empty(tenant_id, stream_id)
    return StreamHead(tenant_id, stream_id, row[0], row[1])


def stream_and_head(
    db: sqlite3.Connection, tenant_id: str, stream_id: str, from_version: int, head_of: str
) -> tuple[list[StoredEvent], StreamHead]:
    """A stream's events from ``from_version`` on and another stream's head (run it in one
    read transaction)."""
    head = stream_head(db, tenant_id, head_of)
    return fetch(db, statements().stream, (tenant_id, stream_id, from_version)), head


def tenant_position(db: sqlite3.Connection, tenant_id: str) -> int:
    """The tenant head's position (0 when the tenant has no events)."""
    row = db.execute(statements().tenant_position, (tenant_id,)).fetchone()
    return int(row[0]) if row else 0


def log_state(db: sqlite3.Connection, tenant_id: str, stream_id: str | None) -> LogState:
    """Heads and extents (run it in one read transaction)."""
    sql = statements()
    position = tenant_position(db, tenant_id)
    last_position = _as_int(db.execute(sql.last_position, (tenant_id,)).fetchone()[0])
    if stream_id is None:
        heads = {
            row[0]: StreamHead(tenant_id, row[0], row[1], row[2])
            for row in db.execute(sql.stream_heads, (tenant_id,))
        }
        return LogState(position, heads, last_position)
    head = db.execute(sql.stream_head, (tenant_id, stream_id)).fetchone()
    last_version = db.execute(sql.last_version, (tenant_id, stream_id)).fetchone()[0]
    found = {stream_id: StreamHead(tenant_id, stream_id, head[0], head[1])} if head else {}
    return LogState(position, found, last_position, _as_int(last_version))


def _as_int(value: object) -> int:
    # max() over a tampered column may return text; verification reports that row itself.
    return value if isinstance(value, int) else 0


def load_snapshots(
    db: sqlite3.Connection, tenant_id: str, stream_id: str, names: Sequence[str]
) -> list[SnapshotRecord]:
    """The stored snapshots of a stream with these names (the names passed as one JSON
    array, so that one precompiled statement serves any number)."""
    parameters = (tenant_id, stream_id, orjson.dumps(list(names)).decode())
    return [SnapshotRecord(*row) for row in db.execute(statements().load_snapshots, parameters)]


def append(
    db: sqlite3.Connection,
    tenant_id: str,
    stream_id: str,
    expected_version: int | None,
    pending: Sequence[PendingEvent],
) -> AppendOutcome:
    """An append inside the caller's ``BEGIN IMMEDIATE`` (which holds the write lock).

    The ids are looked up only when the version check or the insert says they may be
    recorded already (a retry, or a conflict), as in the PostgreSQL recorder: a new append,
    the common case, spends no query on them.
    """
    head = stream_head(db, tenant_id, stream_id)
    if expected_version is not None and expected_version != head.version:
        # A retry of an append that did commit, or a real conflict.
        retry = _retry(db, tenant_id, stream_id, pending)
        if retry is not None:
            return AppendOutcome(retry, written=False)
        raise ConcurrencyError(tenant_id, stream_id, expected_version, head.version)
    stored = chain_events(head, tenant_position(db, tenant_id), pending, timestamp_now())
    try:
        _write_rows(db, stored)
    except _RecordedId as recorded:
        # Undo the rows inserted before the duplicate and look the ids up under a fresh
        # write lock: the originals of a retry, or a conflict.
        db.execute("ROLLBACK")
        db.execute("BEGIN IMMEDIATE")
        retry = _retry(db, tenant_id, stream_id, pending)
        if retry is None:
            # Only a file keyed before schema 5 (event ids unique across tenants) gets here.
            raise IdempotencyConflict(
                recorded.event_id, "the id is recorded but not visible to this tenant"
            ) from recorded.__cause__
        return AppendOutcome(retry, written=False)
    return AppendOutcome(stored, written=True)


class _RecordedId(Exception):
    """An insert met an event id that is recorded already."""

    def __init__(self, event_id: str) -> None:
        super().__init__(event_id)
        self.event_id = event_id


def _retry(
    db: sqlite3.Connection, tenant_id: str, stream_id: str, pending: Sequence[PendingEvent]
) -> list[StoredEvent] | None:
    existing = events_by_id(db, tenant_id, [event.event_id for event in pending])
    return match_retry(tenant_id, stream_id, pending, existing)


def write_events(db: sqlite3.Connection, stored: Sequence[StoredEvent]) -> None:
    """Insert chained events with their payloads and move both heads.

    Raises:
        IdempotencyConflict: an event id is recorded already.
    """
    try:
        _write_rows(db, stored)
    except _RecordedId as recorded:
        raise IdempotencyConflict(
            recorded.event_id, "the id is recorded already"
        ) from recorded.__cause__


def _write_rows(db: sqlite3.Connection, stored: Sequence[StoredEvent]) -> None:
    sql = statements()
    first, last = stored[0], stored[-1]
    try:
        db.executemany(sql.insert_event, [event_row(event) for event in stored])
    except sqlite3.IntegrityError as error:
        if "events.event_id" in str(error):
            raise _RecordedId(first.event_id) from error
        # Otherwise only reachable if the heads disagree with the events table (a damaged
        # database): BEGIN IMMEDIATE holds the write lock, so no other writer moved the stream.
        actual = db.execute(sql.last_version, (first.tenant_id, first.stream_id)).fetchone()[0]
        raise ConcurrencyError(
            first.tenant_id, first.stream_id, first.version - 1, int(actual or 0)
        ) from error
    db.executemany(
        sql.insert_payload,
        [(id_bytes(e.event_id), e.tenant_id, e.salt, e.payload) for e in stored],
    )
    db.execute(sql.upsert_stream_head, (last.tenant_id, last.stream_id, last.version, last.hash))
    db.execute(sql.upsert_tenant_head, (last.tenant_id, last.position))
