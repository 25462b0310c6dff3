"""The schema set-up steps on SQLite (see :func:`eventstore.sql.setup.set_up_schema`)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from aiosqlite import Connection

import eventstore.sql.sqlite.worker as worker
from eventstore.sql.setup import HASH_SPEC
from eventstore.sql.sqlite.connection import run_in_worker
from eventstore.sql.sqlite.statements import DDL, statements
from eventstore.sql.version import SCHEMA_VERSION

__all__ = ["SqliteSchemaSteps"]


class SqliteSchemaSteps:
    """:class:`~eventstore.sql.setup.SchemaSteps` on the writer connection; the set-up lock is
    ``BEGIN IMMEDIATE`` (SQLite's database-wide write lock)."""

    def __init__(self, path: str, writer: Connection) -> None:
        self.path = path  # the database file, named in errors
        self.writer = writer
        self.where = path
        self._read_with_wal: int | Literal[False] | None = False

    async def use_wal(self) -> None:
        """Switch the database to the WAL journal (or refuse), and read the schema version in
        the same hop: the next :meth:`schema_version` answers from it (a hop to the worker
        thread costs about what the two statements do)."""
        self._read_with_wal = await run_in_worker(
            self.writer, self.path, _wal_and_version, self.path
        )

    async def schema_version(self) -> int | None:
        found, self._read_with_wal = self._read_with_wal, False
        if found is not False:
            return found
        return await run_in_worker(self.writer, self.path, _schema_version)

    async def has_foreign_tables(self) -> bool:
        return await run_in_worker(self.writer, self.path, _has_tables)

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        await run_in_worker(self.writer, self.path, worker.begin)
        try:
            yield
            await run_in_worker(self.writer, self.path, worker.commit)
        except BaseException:
            await run_in_worker(self.writer, self.path, worker.rollback)
            raise

    async def create_schema(self) -> None:
        await run_in_worker(self.writer, self.path, _run_all, DDL)

    async def record_version(self, *, fresh: bool) -> None:
        rows = [("schema_version", str(SCHEMA_VERSION))]
        if fresh:
            rows.append(("hash_spec", HASH_SPEC))
        await run_in_worker(self.writer, self.path, worker.executemany, statements().meta_put, rows)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _schema_version(db: sqlite3.Connection) -> int | None:
    if "ledger_meta" not in _tables(db):
        return None
    row = db.execute(statements().meta_get, ("schema_version",)).fetchone()
    return int(row[0]) if row else None


def _wal_and_version(db: sqlite3.Connection, path: str) -> int | None:
    worker.use_wal(db, path)
    return _schema_version(db)


def _has_tables(db: sqlite3.Connection) -> bool:
    return bool(_tables(db) - {"ledger_meta"})


def _run_all(db: sqlite3.Connection, ddl: tuple[str, ...]) -> None:
    for statement in ddl:
        db.execute(statement)
