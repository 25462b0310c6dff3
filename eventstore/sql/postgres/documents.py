"""Read-model rows on PostgreSQL (the caller holds a connection, in a transaction to write)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eventstore.document_stats import StatChanges, rarest_terms, stat_changes, without_rows
from eventstore.ids import id_bytes, id_text
from eventstore.recorder import Document, DocumentStats
from eventstore.sql.postgres.statements import statements

if TYPE_CHECKING:
    import asyncpg

__all__ = [
    "commit_documents",
    "document_stats",
    "drop_documents_of",
    "find_documents",
    "read_documents",
    "reset_documents",
    "search_documents",
]

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
    """Rows and checkpoint in the caller's transaction; False if the checkpoint moved.

    The commit does not wait for its WAL flush (``synchronous_commit`` off for this
    transaction only): the rows derive from the log, and a commit lost to a crash is redone
    from the checkpoint, which moves in the same transaction. The log's commits keep the
    server's setting."""
    sql = statements()
    await db.execute("SET LOCAL synchronous_commit TO OFF")
    if await db.fetchval(sql.lock_read_model, tenant_id, name) != expected:
        return False
    replaced = [*deletes, *(d.key for d in upserts)]
    removed = await db.fetch(sql.stat_rows_of_keys, tenant_id, name, replaced) if replaced else []
    added = [(d.scope, d.terms) for d in upserts]
    await _apply(db, tenant_id, name, stat_changes(added, [(r[0], r[1]) for r in removed]))
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


async def _apply(db: asyncpg.Connection, tenant_id: str, name: str, changes: StatChanges) -> None:
    """The corpus figures changed in the caller's transaction; emptied rows deleted."""
    sql = statements()
    if changes.scopes:
        scopes, rows, lengths = (list(column) for column in zip(*changes.scopes, strict=True))
        await db.execute(sql.add_scope_stats, tenant_id, name, scopes, rows, lengths)
        emptied = [scope for scope, count, _ in changes.scopes if count < 0]
        if emptied:  # only rows that lost documents can have emptied (not on every commit)
            await db.execute(sql.drop_empty_scopes, tenant_id, name, emptied)
    if changes.terms:
        in_scope, terms, counts = (list(column) for column in zip(*changes.terms, strict=True))
        await db.execute(sql.add_term_stats, tenant_id, name, in_scope, terms, counts)
        gone = [(s, t) for s, t, n in changes.terms if n < 0]
        if gone:
            gone_scopes, gone_terms = (list(column) for column in zip(*gone, strict=True))
            await db.execute(sql.drop_empty_terms, tenant_id, name, gone_scopes, gone_terms)


async def drop_documents_of(
    db: asyncpg.Connection, tenant_id: str, event_ids: Sequence[str]
) -> None:
    """Every read-model row of the tenant derived from these events deleted (erasure), with
    the corpus figures, in the caller's transaction."""
    sql = statements()
    await db.execute(sql.lock_read_models, tenant_id)
    ids = [id_bytes(i) for i in event_ids]
    by_name: dict[str, list[tuple[str, str]]] = {}
    for name, scope, terms in await db.fetch(sql.stat_rows_of_events, tenant_id, ids):
        by_name.setdefault(name, []).append((scope, terms))
    for name, rows in sorted(by_name.items()):
        await _apply(db, tenant_id, name, stat_changes((), rows))
    await db.execute(sql.drop_documents_of, tenant_id, ids)


async def reset_documents(db: asyncpg.Connection, tenant_id: str, name: str) -> None:
    """Every row, figure and the checkpoint of one read model, gone."""
    sql = statements()
    for statement in (
        sql.reset_documents,
        sql.reset_scope_stats,
        sql.reset_term_stats,
        sql.reset_read_model,
    ):
        await db.execute(statement, tenant_id, name)


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
    """Row count, total length and per-term row counts, within the scopes: read from the
    figures kept per scope, less the rows after ``max_position`` (if any)."""
    sql = statements()
    scope_list = list(scopes) if scopes is not None else None
    count, total = await db.fetchrow(sql.scope_stats, tenant_id, name, scope_list)  # type: ignore[misc]
    asked = list(dict.fromkeys(terms))
    frequencies = dict.fromkeys(asked, 0)
    if asked:
        rows = await db.fetch(sql.term_stats, tenant_id, name, scope_list, asked)
        frequencies.update({row[0]: int(row[1]) for row in rows})
    stats = DocumentStats(int(count), int(total), frequencies)
    if max_position is None:
        return stats
    later = await db.fetch(sql.terms_after, tenant_id, name, scope_list, max_position)
    return without_rows(stats, [row[0] for row in later])


async def find_documents(
    db: asyncpg.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int | None,
) -> tuple[list[Document], DocumentStats]:
    """The figures for ``terms`` and the rows of the rarest of them that fit ``limit``, in
    the caller's (repeatable-read) transaction."""
    stats = await document_stats(db, tenant_id, name, terms, scopes, max_position)
    chosen = rarest_terms(terms, stats.frequencies, limit)
    if not chosen:
        return [], stats
    found = await search_documents(db, tenant_id, name, chosen, scopes, limit, max_position)
    return found, stats


async def read_documents(
    db: asyncpg.Connection, tenant_id: str, name: str, keys: Sequence[str]
) -> list[Document]:
    """The rows with these keys, in the order asked."""
    unique = list(dict.fromkeys(keys))
    rows = await db.fetch(statements().documents_by_key, tenant_id, name, unique)
    found = {document.key: document for document in map(_document, rows)}
    return [found[key] for key in unique if key in found]
