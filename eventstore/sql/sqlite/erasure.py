"""The erasure steps on SQLite: one worker-thread hop each, on the writer connection, inside
the ``BEGIN IMMEDIATE`` the recorder holds around :func:`eventstore.erasure.run_erasure`."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

from aiosqlite import Connection

import eventstore.sql.sqlite.worker as worker
from eventstore.ids import id_bytes
from eventstore.records import ERASURE_STREAM, StoredEvent, StreamHead
from eventstore.sql.sqlite.connection import run_in_worker
from eventstore.sql.sqlite.documents import drop_documents_of
from eventstore.sql.sqlite.statements import statements

__all__ = ["SqliteErasure"]


class SqliteErasure:
    """:class:`~eventstore.erasure.ErasureSteps` on the SQLite writer connection."""

    def __init__(self, path: str, writer: Connection, tenant_id: str) -> None:
        self.path = path  # the database file, named in errors
        self.writer = writer
        self.tenant_id = tenant_id

    async def lock(self) -> tuple[int, StreamHead]:
        # BEGIN IMMEDIATE already holds the database's write lock.
        position = await run_in_worker(
            self.writer, self.path, worker.tenant_position, self.tenant_id
        )
        head = await run_in_worker(
            self.writer, self.path, worker.stream_head, self.tenant_id, ERASURE_STREAM
        )
        return position, head

    async def find(self, event_ids: Sequence[str]) -> Mapping[str, StoredEvent]:
        found = await run_in_worker(
            self.writer, self.path, worker.events_by_id, self.tenant_id, list(event_ids)
        )
        return {i: e for i, e in found.items() if e.tenant_id == self.tenant_id}

    async def write(self, erasure: StoredEvent) -> None:
        await run_in_worker(self.writer, self.path, worker.write_events, [erasure])

    async def mark_erased(self, event_ids: Sequence[str], erased_by: int) -> None:
        rows = [(id_bytes(i), self.tenant_id, erased_by) for i in event_ids]
        await run_in_worker(
            self.writer, self.path, worker.executemany, statements().insert_erasure, rows
        )

    async def delete_payloads(self, event_ids: Sequence[str]) -> None:
        rows = [(self.tenant_id, id_bytes(i)) for i in event_ids]
        await run_in_worker(
            self.writer, self.path, worker.executemany, statements().delete_payload, rows
        )

    async def drop_derived(self, streams: Sequence[str], event_ids: Sequence[str]) -> None:
        await run_in_worker(
            self.writer, self.path, _drop_derived, self.tenant_id, streams, event_ids
        )


def _drop_derived(
    db: sqlite3.Connection, tenant_id: str, streams: Sequence[str], event_ids: Sequence[str]
) -> None:
    sql = statements()
    db.executemany(sql.drop_snapshots, [(tenant_id, stream) for stream in streams])
    if drop_documents_of(db, tenant_id, event_ids):
        # FTS5 records a delete as a marker; the erased rows' terms stay in older segments
        # until they are merged. Merging now leaves no term of an erased message behind.
        db.execute("INSERT INTO documents_fts (documents_fts) VALUES ('optimize')")
