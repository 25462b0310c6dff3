"""Read-model rows on PostgreSQL (the caller holds a connection, in a transaction to write)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eventstore.ids import id_bytes, id_text
from eventstore.recorder import Document, DocumentStats
from eventstore.sql.postgres.statements import statements

if TYPE_CHECKING:
    import asyncpg

__all__ = ["commit_documents", "document_stats", "read_documents", "search_documents"]

_NO_LIMIT = 2**62


async def commit_documents(
    db: asyncpg.Connection,
    tenant_id: str,
    name: str,
    expected: int,
    position: int,
    upserts: Sequence[Document],
    deletes: Sequence[str],
) -> bool:
    """Rows and checkpoint in the caller's transaction; False if the checkpoint moved."""
    sql = statements()
    if await db.fetchval(sql.lock_read_model, tenant_id, name) != expected:
        return False
    replaced = [*deletes, *(d.key for d in upserts)]
    if replaced:
        await db.execute(sql.delete_documents, tenant_id, name, replaced)
    if upserts:
        await db.execute(
            sql.insert_documents,
            tenant_id,
            name,
            [d.key for d in upserts],
            [d.scope for d in upserts],
            [id_bytes(d.event_id) for d in upserts],
            [d.position for d in upserts],
            [d.length for d in upserts],
            [d.terms for d in upserts],
            [d.data for d in upserts],
        )
    await db.execute(sql.save_read_model_position, tenant_id, name, position)
    return True


def _document(row: Any) -> Document:
    key, scope, event_id, position, terms, data = row
    return Document(key, scope, id_text(bytes(event_id)), position, terms, bytes(data))


def _query(terms: Sequence[str]) -> str:
    return " | ".join("'" + term.replace("'", "''") + "'" for term in dict.fromkeys(terms))


async def search_documents(
    db: asyncpg.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int | None,
) -> list[Document]:
    """Rows matching any term (through the GIN index), the newest first (a pre-filter)."""
    if not terms or (scopes is not None and not scopes):
        return []
    bound = _NO_LIMIT if max_position is None else max_position
    scope_list = list(scopes) if scopes is not None else None
    rows = await db.fetch(
        statements().search, tenant_id, name, _query(terms), bound, scope_list, limit
    )
    return [_document(row) for row in rows]


async def document_stats(
    db: asyncpg.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    max_position: int | None,
) -> DocumentStats:
    """Row count, total length and per-term row counts, within the scopes."""
    sql = statements()
    bound = _NO_LIMIT if max_position is None else max_position
    scope_list = list(scopes) if scopes is not None else None
    count, total = await db.fetchrow(sql.corpus, tenant_id, name, bound, scope_list)  # type: ignore[misc]
    asked = list(dict.fromkeys(terms))
    rows = await db.fetch(sql.frequency, tenant_id, name, asked, bound, scope_list) if asked else []
    frequencies = dict.fromkeys(asked, 0)
    frequencies.update({row[0]: int(row[1]) for row in rows})
    return DocumentStats(int(count), int(total), frequencies)


async def read_documents(
    db: asyncpg.Connection, tenant_id: str, name: str, keys: Sequence[str]
) -> list[Document]:
    """The rows with these keys, in the order asked."""
    unique = list(dict.fromkeys(keys))
    rows = await db.fetch(statements().documents_by_key, tenant_id, name, unique)
    found = {document.key: document for document in map(_document, rows)}
    return [found[key] for key in unique if key in found]
