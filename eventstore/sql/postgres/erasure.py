"""The erasure steps on PostgreSQL, inside the recorder's transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from eventstore.ids import id_bytes
from eventstore.records import ERASURE_STREAM, StoredEvent, StreamHead
from eventstore.sql.postgres.documents import drop_documents_of
from eventstore.sql.postgres.log import events_by_id, lock, write
from eventstore.sql.postgres.statements import statements

if TYPE_CHECKING:
    import asyncpg

__all__ = ["PostgresErasure"]


class PostgresErasure:
    """:class:`~eventstore.erasure.ErasureSteps` on one asyncpg connection in a transaction."""

    def __init__(
        self,
        db: asyncpg.Connection,
        tenant_id: str,
        lock_timeout: str | None,
        row_level_security: bool,
    ) -> None:
        self.db = db
        self.tenant_id = tenant_id
        self.lock_timeout = lock_timeout
        self.row_level_security = row_level_security

    async def lock(self) -> tuple[int, StreamHead]:
        return await lock(
            self.db, self.tenant_id, ERASURE_STREAM, self.lock_timeout, self.row_level_security
        )

    async def find(self, event_ids: Sequence[str]) -> Mapping[str, StoredEvent]:
        found = await events_by_id(self.db, self.tenant_id, event_ids)
        return {i: e for i, e in found.items() if e.tenant_id == self.tenant_id}

    async def write(self, erasure: StoredEvent) -> None:
        await write(self.db, [erasure])

    async def mark_erased(self, event_ids: Sequence[str], erased_by: int) -> None:
        ids = [id_bytes(i) for i in event_ids]
        await self.db.execute(statements().mark_erased, self.tenant_id, ids, erased_by)

    async def delete_payloads(self, event_ids: Sequence[str]) -> None:
        ids = [id_bytes(i) for i in event_ids]
        await self.db.execute(statements().delete_payloads, self.tenant_id, ids)

    async def drop_derived(self, streams: Sequence[str], event_ids: Sequence[str]) -> None:
        sql = statements()
        await self.db.execute(sql.drop_snapshots, self.tenant_id, list(streams))
        await drop_documents_of(self.db, self.tenant_id, event_ids)
