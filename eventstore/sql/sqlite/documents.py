"""Read-model rows on SQLite: functions that run in the recorder's worker thread."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from eventstore.ids import id_bytes, id_text
from eventstore.recorder import Document, DocumentStats
from eventstore.sql.sqlite.statements import statements

__all__ = [
    "commit_documents",
    "document_stats",
    "read_documents",
    "read_model_position",
    "search_documents",
]

_NO_LIMIT = 2**62
_ID_CHUNK = 500


def read_model_position(db: sqlite3.Connection, tenant_id: str, name: str) -> int:
    """The read model's checkpoint (0 when it has none)."""
    row = db.execute(statements().read_model_position, (tenant_id, name)).fetchone()
    return int(row[0]) if row else 0


def commit_documents(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    expected: int,
    position: int,
    upserts: Sequence[Document],
    deletes: Sequence[str],
) -> bool:
    """Rows and checkpoint in the caller's transaction; False if the checkpoint moved."""
    sql = statements()
    if read_model_position(db, tenant_id, name) != expected:
        return False
    replaced = [*deletes, *(document.key for document in upserts)]
    db.executemany(sql.delete_document, [(tenant_id, name, key) for key in replaced])
    db.executemany(
        sql.insert_document,
        [
            (
                tenant_id,
                name,
                d.key,
                d.scope,
                id_bytes(d.event_id),
                d.position,
                d.length,
                d.terms,
                d.data,
            )
            for d in upserts
        ],
    )
    db.execute(sql.save_read_model_position, (tenant_id, name, position))
    return True


def _document(row: tuple[str, str, bytes, int, str, bytes]) -> Document:
    key, scope, event_id, position, terms, data = row
    return Document(key, scope, id_text(event_id), position, terms, data)


def _match(terms: Sequence[str]) -> str:
    # Terms are letters and digits only (the read model's tokeniser), quoted all the same.
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in dict.fromkeys(terms))


def _scopes(scopes: Sequence[str] | None, alias: str = "d.") -> tuple[str, list[str]]:
    if scopes is None:
        return "", []
    return f"AND {alias}scope IN ({','.join('?' * len(scopes))})", list(scopes)


def search_documents(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int | None,
) -> list[Document]:
    """Rows matching any term (through FTS5), the newest first (a pre-filter)."""
    if not terms or (scopes is not None and not scopes):
        return []
    clause, scope_args = _scopes(scopes, alias="")
    statement = statements().search.format(scopes=clause)
    bound = _NO_LIMIT if max_position is None else max_position
    rows = db.execute(statement, (_match(terms), tenant_id, name, bound, *scope_args, limit))
    return [_document(row) for row in rows]


def document_stats(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    max_position: int | None,
) -> DocumentStats:
    """Row count, total length and per-term row counts, within the scopes."""
    sql = statements()
    bound = _NO_LIMIT if max_position is None else max_position
    if scopes is not None and not scopes:
        return DocumentStats(0, 0, dict.fromkeys(terms, 0))
    clause, scope_args = _scopes(scopes, alias="")
    count, total = db.execute(
        sql.corpus.format(scopes=clause), (tenant_id, name, bound, *scope_args)
    ).fetchone()
    joined, joined_args = _scopes(scopes, alias="")
    frequency = sql.frequency.format(scopes=joined)
    frequencies = {
        term: int(
            db.execute(
                frequency, (_match([term]), tenant_id, name, bound, *joined_args)
            ).fetchone()[0]
        )
        for term in dict.fromkeys(terms)
    }
    return DocumentStats(int(count), int(total), frequencies)


def read_documents(
    db: sqlite3.Connection, tenant_id: str, name: str, keys: Sequence[str]
) -> list[Document]:
    """The rows with these keys, in the order asked."""
    sql = statements()
    found: dict[str, Document] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), _ID_CHUNK):
        chunk = unique[start : start + _ID_CHUNK]
        statement = sql.documents_by_key.format(marks=",".join("?" * len(chunk)))
        for row in db.execute(statement, (tenant_id, name, *chunk)):
            document = _document(row)
            found[document.key] = document
    return [found[key] for key in unique if key in found]


def reset_read_model(db: sqlite3.Connection, tenant_id: str, name: str) -> None:
    """Every row and the checkpoint of one read model, gone."""
    db.execute(statements().reset_documents, (tenant_id, name))
    db.execute(statements().reset_read_model, (tenant_id, name))
