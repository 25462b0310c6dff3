"""Read-model rows on SQLite: functions that run in the recorder's worker thread."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from eventstore.document_stats import StatChanges, rarest_terms, stat_changes, without_rows
from eventstore.ids import id_bytes, id_text
from eventstore.recorder import Document, DocumentStats
from eventstore.sql.sqlite.newest_matches import newest_matches, note_order, reset_order
from eventstore.sql.sqlite.statements import scope_clause, statements

__all__ = [
    "commit_documents",
    "document_stats",
    "drop_documents_of",
    "find_documents",
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
    note_order(db, tenant_id, name, upserts)
    replaced = [*deletes, *(document.key for document in upserts)]
    removed = _stat_rows_of_keys(db, tenant_id, name, replaced)
    added = [(document.scope, document.terms) for document in upserts]
    _apply(db, tenant_id, name, stat_changes(added, removed))
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


def _stat_rows_of_keys(
    db: sqlite3.Connection, tenant_id: str, name: str, keys: Sequence[str]
) -> list[tuple[str, str]]:
    return _rows_by_key(db, statements().stat_rows_of_keys, tenant_id, name, keys)


def _apply(db: sqlite3.Connection, tenant_id: str, name: str, changes: StatChanges) -> None:
    """The corpus figures changed in the caller's transaction; emptied rows deleted."""
    sql = statements()
    db.executemany(sql.add_scope_stats, [(tenant_id, name, *row) for row in changes.scopes])
    db.executemany(sql.add_term_stats, [(tenant_id, name, *row) for row in changes.terms])
    emptied = [(tenant_id, name, scope) for scope, rows, _ in changes.scopes if rows < 0]
    db.executemany(sql.drop_empty_scope, emptied)
    gone = [(tenant_id, name, scope, term) for scope, term, rows in changes.terms if rows < 0]
    db.executemany(sql.drop_empty_term, gone)


def drop_documents_of(db: sqlite3.Connection, tenant_id: str, event_ids: Sequence[str]) -> bool:
    """Every read-model row of the tenant derived from these events deleted (erasure), with
    the corpus figures; whether any was."""
    sql = statements()
    by_name: dict[str, list[tuple[str, str]]] = {}
    for event_id in event_ids:
        for name, scope, terms in db.execute(
            sql.stat_rows_of_events, (tenant_id, id_bytes(event_id))
        ):
            by_name.setdefault(name, []).append((scope, terms))
    for name, rows in sorted(by_name.items()):
        _apply(db, tenant_id, name, stat_changes((), rows))
    db.executemany(sql.drop_documents_of, [(tenant_id, id_bytes(i)) for i in event_ids])
    return bool(by_name)


def _document(row: tuple[str, str, bytes, int, str, bytes]) -> Document:
    key, scope, event_id, position, terms, data = row
    return Document(key, scope, id_text(event_id), position, terms, data)


def _match(terms: Sequence[str]) -> str:
    # Terms are letters and digits only (the read model's tokeniser), quoted all the same.
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in dict.fromkeys(terms))


def search_documents(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int | None,
) -> list[Document]:
    """Rows matching any term (through FTS5), the newest first (a pre-filter): walked off the
    full-text index newest first when that is short (:mod:`.newest_matches`), else looked up
    by rowid or found by walking the scope's rows, whichever the matches' count favours."""
    if not terms or (scopes is not None and not scopes):
        return []
    sql, match = statements(), _match(terms)
    bound = _NO_LIMIT if max_position is None else max_position
    walked = newest_matches(db, match, tenant_id, name, scopes, limit, bound)
    if walked is not None:
        return [_document(row) for row in walked]
    by_rows = _few_matches(db, match, tenant_id, name, scopes, limit)
    # The same rows either way: only the plan differs.
    clause, scope_args = scope_clause(scopes, alias="+" if by_rows else "")
    statement = (sql.search_by_rows if by_rows else sql.search).format(scopes=clause)
    rows = db.execute(statement, (match, tenant_id, name, bound, *scope_args, limit))
    return [_document(row) for row in rows]


def _few_matches(
    db: sqlite3.Connection,
    match: str,
    tenant_id: str,
    name: str,
    scopes: Sequence[str] | None,
    limit: int,
) -> bool:
    """Whether looking the matches up by rowid beats walking the scope's rows newest first:
    few matches for the rows asked (a walk stops early among many), and few for the scope's
    size (a small session's walk is short, whatever the rest of the tenant holds)."""
    few = _BY_ROWS_UP_TO * limit
    (matches,) = db.execute(statements().search_matches, (match, few + 1)).fetchone()
    if matches > few:
        return False
    clause, scope_args = scope_clause(scopes, alias="")
    statement = statements().scope_stats.format(scopes=clause)
    (rows, _) = db.execute(statement, (tenant_id, name, *scope_args)).fetchone()
    return bool(matches * _WALK_PER_LOOKUP <= rows)


# Up to this many matches per row asked for, a search may look its matches up by rowid; beyond,
# it walks the scope's rows newest first (measured crossover at 100k rows: 2,000-3,000
# matches for 500). A lookup costs about as much as walking this many rows (2.5 us against
# 0.25 us a row, measured on the same index).
_BY_ROWS_UP_TO = 4
_WALK_PER_LOOKUP = 10


def document_stats(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    max_position: int | None,
) -> DocumentStats:
    """Row count, total length and per-term row counts, within the scopes: read from the
    figures kept per scope, less the rows after ``max_position`` (if any)."""
    sql = statements()
    asked = list(dict.fromkeys(terms))
    if scopes is not None and not scopes:
        return DocumentStats(0, 0, dict.fromkeys(asked, 0))
    clause, scope_args = scope_clause(scopes, alias="")
    bounds = (tenant_id, name, *scope_args)
    count, total = db.execute(sql.scope_stats.format(scopes=clause), bounds).fetchone()
    frequencies = dict.fromkeys(asked, 0)
    for start in range(0, len(asked), _ID_CHUNK):
        chunk = asked[start : start + _ID_CHUNK]
        statement = sql.term_stats.format(scopes=clause, marks=",".join("?" * len(chunk)))
        frequencies.update({t: int(n) for t, n in db.execute(statement, (*bounds, *chunk))})
    stats = DocumentStats(int(count), int(total), frequencies)
    if max_position is None:
        return stats
    later = db.execute(
        sql.terms_after.format(scopes=clause), (tenant_id, name, max_position, *scope_args)
    )
    return without_rows(stats, [row[0] for row in later])


def find_documents(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    terms: Sequence[str],
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int | None,
) -> tuple[list[Document], DocumentStats]:
    """The figures for ``terms`` and the rows of the rarest of them that fit ``limit``, in
    the caller's read transaction (the recorder's ``find_documents``)."""
    stats = document_stats(db, tenant_id, name, terms, scopes, max_position)
    chosen = rarest_terms(terms, stats.frequencies, limit)
    if not chosen:
        return [], stats
    return search_documents(db, tenant_id, name, chosen, scopes, limit, max_position), stats


def read_documents(
    db: sqlite3.Connection, tenant_id: str, name: str, keys: Sequence[str]
) -> list[Document]:
    """The rows with these keys, in the order asked."""
    rows = _rows_by_key(db, statements().documents_by_key, tenant_id, name, keys)
    found = {document.key: document for document in map(_document, rows)}
    return [found[key] for key in dict.fromkeys(keys) if key in found]


def _rows_by_key(
    db: sqlite3.Connection, statement: str, tenant_id: str, name: str, keys: Sequence[str]
) -> list[Any]:
    """The rows ``statement`` (with ``{marks}`` for the keys) selects for these keys, read in
    chunks that stay under SQLite's limit on bound parameters."""
    rows: list[Any] = []
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), _ID_CHUNK):
        chunk = unique[start : start + _ID_CHUNK]
        marks = ",".join("?" * len(chunk))
        rows += db.execute(statement.format(marks=marks), (tenant_id, name, *chunk)).fetchall()
    return rows


def reset_read_model(db: sqlite3.Connection, tenant_id: str, name: str) -> None:
    """Every row and the checkpoint of one read model, gone."""
    sql = statements()
    db.execute(sql.reset_documents, (tenant_id, name))
    db.execute(sql.reset_scope_stats, (tenant_id, name))
    db.execute(sql.reset_term_stats, (tenant_id, name))
    db.execute(sql.reset_read_model, (tenant_id, name))
    reset_order(db, tenant_id, name)
