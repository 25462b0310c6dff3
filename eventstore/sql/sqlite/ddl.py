"""SQLite's DDL: the Core tables compiled, the triggers that refuse edits of the log, and the
FTS5 index of read-model rows (external content: it stores terms' positions, not a copy of the
rows, and triggers keep it in step with ``documents``)."""

from __future__ import annotations

from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlalchemy.sql.elements import ClauseElement

from eventstore.sql.schema import metadata

__all__ = ["DIALECT", "FULL_TEXT", "TRIGGERS", "compile_sql", "ddl_statements"]

DIALECT = sqlite_dialect.dialect(paramstyle="qmark")


def compile_sql(statement: ClauseElement) -> str:
    """A Core statement as SQLite SQL with ``?`` parameters."""
    return str(statement.compile(dialect=DIALECT))


def _refuse(name: str, when: str, table: str, message: str, condition: str = "") -> str:
    guard = f" WHEN {condition}" if condition else ""
    return (
        f"CREATE TRIGGER IF NOT EXISTS {name} BEFORE {when} ON {table}{guard} "
        f"BEGIN SELECT RAISE(ABORT, 'ctxledger: {message}'); END"
    )


#: Triggers that make the database itself refuse edits of the log.
TRIGGERS: tuple[str, ...] = (
    _refuse("events_no_update", "UPDATE", "events", "events are append-only (UPDATE refused)"),
    _refuse("events_no_delete", "DELETE", "events", "events are append-only (DELETE refused)"),
    _refuse("payloads_no_update", "UPDATE", "payloads", "payloads are immutable (UPDATE refused)"),
    _refuse(
        "payloads_delete_only_erased",
        "DELETE",
        "payloads",
        "a payload may be deleted only by a recorded erasure",
        "NOT EXISTS (SELECT 1 FROM erasures WHERE erasures.tenant_id = OLD.tenant_id "
        "AND erasures.event_id = OLD.event_id)",
    ),
    _refuse("erasures_no_update", "UPDATE", "erasures", "erasures are append-only"),
    _refuse("erasures_no_delete", "DELETE", "erasures", "erasures are append-only"),
    _refuse(
        "stream_heads_forward_only",
        "UPDATE",
        "stream_heads",
        "stream heads only move forward",
        "NEW.version <= OLD.version OR NEW.tenant_id IS NOT OLD.tenant_id "
        "OR NEW.stream_id IS NOT OLD.stream_id",
    ),
    _refuse("stream_heads_no_delete", "DELETE", "stream_heads", "stream heads are kept"),
    _refuse(
        "tenant_heads_forward_only",
        "UPDATE",
        "tenant_heads",
        "tenant heads only move forward",
        "NEW.position <= OLD.position OR NEW.tenant_id IS NOT OLD.tenant_id",
    ),
    _refuse("tenant_heads_no_delete", "DELETE", "tenant_heads", "tenant heads are kept"),
)

#: The FTS5 index of ``documents.terms``. The read model tokenises (words, digits, CJK
#: bigrams, all lower case, separated by spaces); ``unicode61`` with diacritics kept then
#: indexes exactly those terms.
FULL_TEXT: tuple[str, ...] = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(terms, content='documents', "
    "content_rowid='rowid', tokenize='unicode61 remove_diacritics 0')",
    "CREATE TRIGGER IF NOT EXISTS documents_fts_insert AFTER INSERT ON documents BEGIN "
    "INSERT INTO documents_fts (rowid, terms) VALUES (new.rowid, new.terms); END",
    "CREATE TRIGGER IF NOT EXISTS documents_fts_delete AFTER DELETE ON documents BEGIN "
    "INSERT INTO documents_fts (documents_fts, rowid, terms) "
    "VALUES ('delete', old.rowid, old.terms); END",
    "CREATE TRIGGER IF NOT EXISTS documents_fts_update AFTER UPDATE ON documents BEGIN "
    "INSERT INTO documents_fts (documents_fts, rowid, terms) "
    "VALUES ('delete', old.rowid, old.terms); "
    "INSERT INTO documents_fts (rowid, terms) VALUES (new.rowid, new.terms); END",
)


def ddl_statements() -> list[str]:
    """Every statement of the schema, in order (each idempotent)."""
    statements = [
        compile_sql(CreateTable(table, if_not_exists=True)) for table in metadata.sorted_tables
    ]
    statements += [
        compile_sql(CreateIndex(index, if_not_exists=True))
        for table in metadata.sorted_tables
        for index in sorted(table.indexes, key=lambda index: str(index.name))  # a set: by name
    ]
    return [*statements, *TRIGGERS, *FULL_TEXT]
