"""The PostgreSQL recorder's tenant-scoped connections, and the rows it keeps beside the log:
projection snapshots, the Merkle tree's nodes and read-model rows. Each is derived from the
log (rebuilt from it when missing) and written in its own transaction, never in an append's;
:class:`~eventstore.sql.postgres.recorder.PostgresRecorder` adds the log itself."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import eventstore.sql.postgres.documents as docs
from eventstore.recorder import Document, DocumentStats
from eventstore.records import SnapshotRecord
from eventstore.sql.postgres.connection import Connections
from eventstore.sql.postgres.statements import statements
from eventstore.sql.rows import contiguous

if TYPE_CHECKING:
    import asyncpg

__all__ = ["DerivedRows", "TenantConnections"]


class TenantConnections:
    """Connections and transactions scoped to a tenant (with row-level security, the tenant is
    set in every transaction, so the server hides other tenants' rows)."""

    _connections: Connections
    row_level_security: bool

    @asynccontextmanager
    async def _transaction(
        self, tenant_id: str, isolation: str = "read_committed"
    ) -> AsyncIterator[asyncpg.Connection]:
        connection = self._connections.connection(tenant_id)
        async with connection as db, db.transaction(isolation=isolation):  # type: ignore[arg-type]
            if self.row_level_security:
                await db.execute("SELECT set_config('ctxledger.tenant', $1, true)", tenant_id)
            yield db

    @asynccontextmanager
    async def _reader(self, tenant_id: str) -> AsyncIterator[asyncpg.Connection]:
        if not self.row_level_security:
            async with self._connections.connection(tenant_id) as db:
                yield db
            return
        async with self._transaction(tenant_id) as db:
            yield db


class DerivedRows(TenantConnections):
    """Snapshots, Merkle nodes and read-model rows (see the module docstring)."""

    async def save_snapshots(self, snapshots: Sequence[SnapshotRecord]) -> None:
        async with self._transaction(snapshots[0].tenant_id) as db:  # one tenant's (derived.py)
            await db.executemany(statements().save_snapshot, [tuple(s) for s in snapshots])

    async def load_snapshots(
        self, tenant_id: str, stream_id: str, names: Sequence[str]
    ) -> list[SnapshotRecord]:
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(statements().load_snapshots, tenant_id, stream_id, list(names))
        return [SnapshotRecord(*row) for row in rows]

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        async with self._reader(tenant_id) as db:
            rows = await db.fetch(
                statements().merkle_nodes, tenant_id, algorithm, level, first, last
            )
        return contiguous([(row[0], row[1]) for row in rows], first)

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        async with self._reader(tenant_id) as db:
            count = await db.fetchval(statements().merkle_extent, tenant_id, algorithm, level)
        return int(count)

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        if not nodes:
            return
        async with self._transaction(tenant_id) as db:
            await db.execute(
                statements().save_merkle,
                tenant_id,
                algorithm,
                [level for level, _, _ in nodes],
                [index for _, index, _ in nodes],
                [digest for _, _, digest in nodes],
            )

    async def delete_merkle_nodes(self, tenant_id: str, algorithm: str) -> None:
        async with self._transaction(tenant_id) as db:
            await db.execute(statements().delete_merkle, tenant_id, algorithm)

    # -- read models -------------------------------------------------------------------------

    async def read_model_position(self, tenant_id: str, name: str) -> int:
        async with self._reader(tenant_id) as db:
            position = await db.fetchval(statements().read_model_position, tenant_id, name)
        return int(position or 0)

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
        async with self._transaction(tenant_id) as db:
            return await docs.commit_documents(
                db, tenant_id, name, expected_position, position, upserts, deletes
            )

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
        async with self._reader(tenant_id) as db:
            return await docs.search_documents(
                db, tenant_id, name, terms, scopes, limit, max_position
            )

    async def document_stats(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        max_position: int | None = None,
    ) -> DocumentStats:
        async with self._transaction(tenant_id, isolation="repeatable_read") as db:
            return await docs.document_stats(db, tenant_id, name, terms, scopes, max_position)

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
        async with self._transaction(tenant_id, isolation="repeatable_read") as db:
            arguments = (tenant_id, name, terms, scopes, limit, max_position)
            return await docs.find_documents(db, *arguments)

    async def read_documents(
        self, tenant_id: str, name: str, keys: Sequence[str]
    ) -> list[Document]:
        async with self._reader(tenant_id) as db:
            return await docs.read_documents(db, tenant_id, name, keys)

    async def reset_read_model(self, tenant_id: str, name: str) -> None:
        async with self._transaction(tenant_id) as db:
            await docs.reset_documents(db, tenant_id, name)
