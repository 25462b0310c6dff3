"""The schema set-up steps on PostgreSQL (see :func:`eventstore.sql.setup.set_up_schema`).

The set-up lock is a transaction-level advisory lock, so any number of processes opening a
fresh database together serialise: the first creates the schema, the others find it made.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from eventstore.backends import safe_url
from eventstore.sql.postgres.statements import statements
from eventstore.sql.schema import SCHEMA_VERSION
from eventstore.sql.setup import HASH_SPEC

if TYPE_CHECKING:
    import asyncpg

__all__ = ["SETUP_LOCK", "PostgresSchemaSteps"]

SETUP_LOCK = 0x637478_6C6564  # advisory lock id for schema set-up ("ctxled")


class PostgresSchemaSteps:
    """:class:`~eventstore.sql.setup.SchemaSteps` on one asyncpg connection."""

    def __init__(self, url: str, db: asyncpg.Connection) -> None:
        self.db = db
        self.where = f"at {safe_url(url)}"

    async def schema_version(self) -> int | None:
        # pg_tables is read with the statement's own snapshot. to_regclass() would consult the
        # backend's relation cache, which keeps a stale "no such table" after waiting for the
        # set-up lock (advisory locks process no invalidations): then every process that
        # waited would create the schema again.
        exists = await self.db.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename = 'ledger_meta')"
        )
        if not exists:
            return None
        value = await self.db.fetchval(statements().meta_version)
        return int(value) if value is not None else None

    async def has_foreign_tables(self) -> bool:
        count = await self.db.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename <> 'ledger_meta'"
        )
        return bool(count)

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        async with self.db.transaction():
            await self.db.execute("SELECT pg_advisory_xact_lock($1)", SETUP_LOCK)
            yield

    async def create_schema(self) -> None:
        for statement in statements().ddl:
            await self.db.execute(statement)

    async def record_version(self, *, fresh: bool) -> None:
        await self.db.execute(statements().meta_put, "schema_version", str(SCHEMA_VERSION))
        if fresh:
            await self.db.execute(statements().meta_put, "hash_spec", HASH_SPEC)
