"""The SQLite recorder: SQLAlchemy 2 async engine over aiosqlite, one thread hop per operation.

Each operation runs whole in the connection's worker thread (see ``connection``); the SQL is
compiled once from the SQLAlchemy Core tables (see ``statements``), so the schema has a single
definition. Durability and isolation: WAL journal, ``synchronous=FULL`` by default, a busy
timeout, and ``BEGIN IMMEDIATE`` for every writer, which serialises writers across processes
so positions are assigned in commit order without gaps.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final
from urllib.parse import quote

from aiosqlite import Connection

import eventstore.sql.sqlite.documents as docs
import eventstore.sql.sqlite.worker as worker
from eventstore.erasure import run_erasure
from eventstore.recorder import (
    AppendOutcome,
    Document,
    DocumentStats,
    ErasureOutcome,
    LogState,
    MakeErasure,
)
from eventstore.records import PendingEvent, SnapshotRecord, StoredEvent, StreamHead
from eventstore.sql.rows import contiguous
from eventstore.sql.setup import refuse_missing_schema, refuse_old_schema, set_up_schema
from eventstore.sql.sqlite.connection import check_path, connect
from eventstore.sql.sqlite.connections import SqliteConnections
from eventstore.sql.sqlite.erasure import SqliteErasure
from eventstore.sql.sqlite.schema_steps import SqliteSchemaSteps
from eventstore.sql.sqlite.statements import statements
from eventstore.timestamps import timestamp_now

__all__ = ["SYNCHRONOUS_MODES", "SqliteRecorder"]

SYNCHRONOUS_MODES: Final = ("OFF", "NORMAL", "FULL", "EXTRA")


class SqliteRecorder:
    """A :class:`~eventstore.recorder.Recorder` on one SQLite database file.

    Args:
        path: the database file (created if missing) or ``":memory:"``.
        synchronous: SQLite's ``synchronous`` pragma; ``FULL`` (default) survives power loss.
        busy_timeout: seconds a writer waits for another process's write lock.
        journal_wal: use the WAL journal (default); readers then never block the writer.
        create: create the database file and schema if missing (default); when False, a
            missing file or schema is an error (for tools that only read or verify).
        read_only: open the file with ``mode=ro`` (implies ``create=False``): nothing is ever
            written, not even the journal mode, so an auditor's copy on read-only media can be
            read and verified. In a directory nobody can write, the file is also opened
            ``immutable`` (no process can be changing it there).
    """

    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        journal_wal: bool = True,
        create: bool = True,
        read_only: bool = False,
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
        self.read_only = read_only and path != ":memory:"
        self.create = create and not self.read_only
        unsynced = self.journal_wal and self.synchronous in ("FULL", "EXTRA")
        self._pool = SqliteConnections(
            path, self._connect, unsynced_commits=unsynced, synchronous=self.synchronous
        )

    # -- lifecycle ---------------------------------------------------------------------------

    async def initialize(self) -> None:
        if self._pool.opened:
            return
        check_path(self.path, create=self.create)
        await self._pool.open(self._set_up)

    async def _set_up(self, connection: Connection) -> None:
        steps = SqliteSchemaSteps(self.path, connection)
        if not self.create:
            await refuse_missing_schema(steps)  # before the journal mode writes a header
        if self.read_only:
            await refuse_old_schema(steps)
            return
        if self.journal_wal:
            await steps.use_wal()
        await set_up_schema(steps, create=self.create)

    async def _connect(self) -> Connection:
        return await connect(
            self._database(),
            self.path,
            busy_timeout=self.busy_timeout,
            synchronous=self.synchronous,
            uri=self.read_only,
        )

    def _database(self) -> str:
        """The path, or a read-only ``file:`` URI (SQLite's URI filenames)."""
        if not self.read_only:
            return self.path
        target = Path(self.path).expanduser().resolve()
        immutable = "&immutable=1" if not os.access(target.parent, os.W_OK) else ""
        return f"file:{quote(str(target))}?mode=ro{immutable}"

    async def close(self) -> None:
        await self._pool.close()

    # -- the log -----------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        return await self._pool.write(
            worker.append, tenant_id, stream_id, expected_version, pending
        )

    async def erase(
        self,
        tenant_id: str,
        event_ids: Sequence[str],
        make_erasure: MakeErasure,
        expected_position: int | None = None,
    ) -> ErasureOutcome:
        async with self._pool.write_lock:
            writer = await self._pool.writer()
            await self._pool.run(writer, worker.begin)
            try:
                steps = SqliteErasure(self.path, writer, tenant_id)
                outcome = await run_erasure(
                    steps, tenant_id, event_ids, make_erasure, timestamp_now(), expected_position
                )
                await self._pool.run(writer, worker.commit)
            except BaseException:
                await self._pool.run(writer, worker.rollback)
                raise
            # Also when every id was erased before: running the erasure again finishes a
            # flush that a reader held up.
            if await self._pool.run(writer, worker.flush_wal):
                return outcome
            return replace(outcome, residue=self._residue())

    def _residue(self) -> str:
        return (
            f"another connection to {self.path} held a read transaction open for longer than "
            f"the busy timeout ({self.busy_timeout:g} s), so the pages and WAL frames that held "
            f"the erased payloads could not be overwritten yet: they stay in {self.path} and "
            f"its -wal file until that reader ends and the WAL is checkpointed; run the same "
            f"erasure again then (it only flushes), or open the store with a longer "
            f"busy_timeout"
        )

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        sql = statements()
        if to_version is None:
            return await self._pool.read(
                worker.fetch, sql.stream, (tenant_id, stream_id, from_version)
            )
        arguments = (tenant_id, stream_id, from_version, to_version)
        return await self._pool.read(worker.fetch, sql.stream_upto, arguments)

    async def read_stream_and_head(
        self, tenant_id: str, stream_id: str, from_version: int, head_of: str
    ) -> tuple[list[StoredEvent], StreamHead]:
        read = worker.in_read_transaction(worker.stream_and_head)
        return await self._pool.read(read, tenant_id, stream_id, from_version, head_of)

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        sql = statements()
        if to_position is None:
            return await self._pool.read(worker.fetch, sql.log, (tenant_id, after_position, limit))
        arguments = (tenant_id, after_position, to_position, limit)
        return await self._pool.read(worker.fetch, sql.log_upto, arguments)

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        found = await self._pool.read(worker.events_by_id, tenant_id, list(event_ids))
        return [event for event in found.values() if event.tenant_id == tenant_id]

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        return await self._pool.read(worker.column, statements().hashes, (tenant_id, first, last))

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        return await self._pool.read(worker.stream_head, tenant_id, stream_id)

    async def log_state(self, tenant_id: str, stream_id: str | None = None) -> LogState:
        return await self._pool.read(
            worker.in_read_transaction(worker.log_state), tenant_id, stream_id
        )

    async def tenants(self) -> list[str]:
        return await self._pool.read(worker.column, statements().tenants, ())

    # -- snapshots and the Merkle tree ---------------------------------------------------------

    async def save_snapshots(self, snapshots: Sequence[SnapshotRecord]) -> None:
        rows = [tuple(snapshot) for snapshot in snapshots]
        await self._pool.write(worker.executemany, statements().save_snapshot, rows)

    async def load_snapshots(
        self, tenant_id: str, stream_id: str, names: Sequence[str]
    ) -> list[SnapshotRecord]:
        return await self._pool.read(worker.load_snapshots, tenant_id, stream_id, names)

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        arguments = (tenant_id, algorithm, level, first, last)
        return contiguous(
            await self._pool.read(worker.rows, statements().merkle_nodes, arguments), first
        )

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        arguments = (tenant_id, algorithm, level)
        (count,) = await self._pool.read(worker.column, statements().merkle_extent, arguments)
        return int(count)

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        rows = [(tenant_id, algorithm, level, index, digest) for level, index, digest in nodes]
        await self._pool.write(worker.executemany, statements().save_merkle, rows)

    async def delete_merkle_nodes(self, tenant_id: str, algorithm: str) -> None:
        await self._pool.write(
            worker.executemany, statements().delete_merkle, [(tenant_id, algorithm)]
        )

    # -- read models -------------------------------------------------------------------------

    async def read_model_position(self, tenant_id: str, name: str) -> int:
        return await self._pool.read(docs.read_model_position, tenant_id, name)

    async def commit_documents(
        self,
        tenant_id: str,
        name: str,
        *,
        expected_position: int,
        position: int,
        upserts: Sequence[Document],
        deletes: Sequence[str] = (),
    ) -> bool:
        arguments = (tenant_id, name, expected_position, position, upserts, deletes)
        return await self._pool.write_derived(docs.commit_documents, *arguments)

    async def search_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> list[Document]:
        arguments = (tenant_id, name, list(terms), scopes, limit, max_position)
        return await self._pool.read(docs.search_documents, *arguments)

    async def document_stats(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        max_position: int | None = None,
    ) -> DocumentStats:
        arguments = (tenant_id, name, list(terms), scopes, max_position)
        return await self._pool.read(worker.in_read_transaction(docs.document_stats), *arguments)

    async def find_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> tuple[list[Document], DocumentStats]:
        arguments = (tenant_id, name, list(terms), scopes, limit, max_position)
        return await self._pool.read(worker.in_read_transaction(docs.find_documents), *arguments)

    async def read_documents(
        self, tenant_id: str, name: str, keys: Sequence[str]
    ) -> list[Document]:
        return await self._pool.read(docs.read_documents, tenant_id, name, list(keys))

    async def reset_read_model(self, tenant_id: str, name: str) -> None:
        await self._pool.write(docs.reset_read_model, tenant_id, name)
