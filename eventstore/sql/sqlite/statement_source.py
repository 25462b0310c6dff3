"""Where the SQLite recorder's SQL comes from: the Core tables and statements, compiled for
SQLite. The recorder runs the compiled text kept in :mod:`eventstore.sql.sqlite.compiled`, so
opening a SQLite store imports no SQLAlchemy (about 0.2-0.4 s of CPU, most of a CLI read's
start-up); a test checks that module against this one. After a change here, regenerate it::

    python -m eventstore.sql.sqlite.statement_source > eventstore/sql/sqlite/compiled.py
"""

from __future__ import annotations

from sqlalchemy import func, select

from eventstore.sql.schema import (
    erasures,
    events,
    ledger_meta,
    payloads,
    snapshots,
    stream_heads,
    tenant_heads,
)
from eventstore.sql.select_events import SELECT_EVENTS
from eventstore.sql.sqlite.ddl import compile_sql as _sql
from eventstore.sql.sqlite.ddl import ddl_statements

__all__ = ["CoreStatements", "compiled_module", "compiled_sql"]


class CoreStatements:
    """Every statement, as SQL text with ``?`` parameters, compiled from Core."""

    def __init__(self) -> None:
        e, h, t, m = events.c, stream_heads.c, tenant_heads.c, ledger_meta.c
        self.insert_event = _sql(events.insert())
        self.insert_payload = _sql(payloads.insert())
        self.insert_erasure = _sql(erasures.insert())
        self.delete_payload = "DELETE FROM payloads WHERE tenant_id = ? AND event_id = ?"
        # The ids drive the loop (a VALUES list, CROSS JOIN keeps it outermost), each found by
        # (tenant_id, event_id): with "tenant_id = ? AND event_id IN (...)" SQLite chose the
        # primary key's tenant prefix and scanned the whole tenant on every append.
        columns, joins = _sql(SELECT_EVENTS).split("\nFROM events ", 1)
        self.events_by_id = (
            f"{columns}\nFROM (VALUES {{marks}}) AS ids CROSS JOIN events {joins} "
            "WHERE events.tenant_id = ? AND events.event_id = ids.column1"
        )
        where_stream = (e.tenant_id == "?", e.stream_id == "?", e.version >= "?")
        self.stream = _sql(SELECT_EVENTS.where(*where_stream).order_by(e.version))
        self.stream_upto = _sql(
            SELECT_EVENTS.where(*where_stream, e.version <= "?").order_by(e.version)
        )
        # LIMIT is appended by hand: SQLite's compiler would add an OFFSET parameter too.
        where_log = (e.tenant_id == "?", e.position > "?")
        self.log = _sql(SELECT_EVENTS.where(*where_log).order_by(e.position)) + " LIMIT ?"
        self.log_upto = (
            _sql(SELECT_EVENTS.where(*where_log, e.position <= "?").order_by(e.position))
            + " LIMIT ?"
        )
        self.stream_head = _sql(
            select(h.version, h.hash).where(h.tenant_id == "?", h.stream_id == "?")
        )
        self.stream_heads = _sql(select(h.stream_id, h.version, h.hash).where(h.tenant_id == "?"))
        self.upsert_stream_head = (
            "INSERT INTO stream_heads (tenant_id, stream_id, version, hash) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (tenant_id, stream_id) DO UPDATE SET version = excluded.version, "
            "hash = excluded.hash"
        )
        self.tenant_position = _sql(select(t.position).where(t.tenant_id == "?"))
        self.upsert_tenant_head = (
            "INSERT INTO tenant_heads (tenant_id, position) VALUES (?, ?) "
            "ON CONFLICT (tenant_id) DO UPDATE SET position = excluded.position"
        )
        self.last_position = _sql(select(func.max(e.position)).where(e.tenant_id == "?"))
        self.last_version = _sql(
            select(func.max(e.version)).where(e.tenant_id == "?", e.stream_id == "?")
        )
        self.tenants = _sql(select(t.tenant_id).order_by(t.tenant_id))
        self.save_snapshot = (
            "INSERT OR REPLACE INTO snapshots (tenant_id, name, stream_id, projection_version, "
            "version, position, state, state_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        # The names come as one JSON array: one statement for any number of them, each found
        # through the primary key.
        self.load_snapshots = (
            _sql(select(*snapshots.c).where(snapshots.c.tenant_id == "?"))
            + " AND stream_id = ? AND name IN (SELECT value FROM json_each(?))"
        )
        self.drop_snapshots = "DELETE FROM snapshots WHERE tenant_id = ? AND stream_id = ?"
        self.hashes = (
            "SELECT hash FROM events WHERE tenant_id = ? AND position >= ? AND position <= ? "
            "ORDER BY position"
        )
        self.merkle_nodes = (
            "SELECT idx, hash FROM merkle_nodes WHERE tenant_id = ? AND algorithm = ? AND "
            "level = ? AND idx >= ? AND idx <= ? ORDER BY idx"
        )
        self.merkle_extent = (
            "SELECT count(*) FROM merkle_nodes WHERE tenant_id = ? AND algorithm = ? AND level = ?"
        )
        self.delete_merkle = "DELETE FROM merkle_nodes WHERE tenant_id = ? AND algorithm = ?"
        self.save_merkle = (
            "INSERT OR IGNORE INTO merkle_nodes (tenant_id, algorithm, level, idx, hash) "
            "VALUES (?, ?, ?, ?, ?)"
        )
        self.meta_get = _sql(select(m.value).where(m.key == "?"))
        self.meta_put = (
            "INSERT INTO ledger_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        )
        self._documents()

    def _documents(self) -> None:
        columns = "key, scope, event_id, position, terms, data"
        self.read_model_position = (
            "SELECT position FROM read_models WHERE tenant_id = ? AND name = ?"
        )
        self.save_read_model_position = (
            "INSERT INTO read_models (tenant_id, name, position) VALUES (?, ?, ?) "
            "ON CONFLICT (tenant_id, name) DO UPDATE SET position = excluded.position"
        )
        self.delete_document = "DELETE FROM documents WHERE tenant_id = ? AND name = ? AND key = ?"
        self.insert_document = (
            "INSERT INTO documents (tenant_id, name, key, scope, event_id, position, length, "
            "terms, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        self.documents_by_key = (
            f"SELECT {columns} FROM documents WHERE tenant_id = ? AND name = ? "
            "AND key IN ({marks})"
        )
        # The MATCH finds rows of every tenant; the filter keeps this tenant's, in scope. As a
        # subquery, not a join: joined, the planner walks the scope index and runs the MATCH
        # once per row (80 ms instead of 5 ms for 4,000 matches). The newest rows come first:
        # an order that depends only on the rows within the bounds, so a search as of an
        # earlier position finds what it found then.
        self.search = _search(columns, indexed=True)
        # When the terms match few rows, the same search driven by them: the unary "+" keeps
        # the planner off the scope and position indexes (which it walks for the ORDER BY,
        # testing each row of the scope against the matches: 20-27 ms for a 100k-message
        # session however rare the terms), so it looks the matching rows up by rowid and
        # sorts them (about 1 ms for 500 matches; the walk wins past a few thousand).
        self.search_by_rows = _search(columns, indexed=False)
        self.search_matches = (
            "SELECT count(*) FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)"
        )
        self._newest_matches(columns)
        self.reset_documents = "DELETE FROM documents WHERE tenant_id = ? AND name = ?"
        self.reset_read_model = "DELETE FROM read_models WHERE tenant_id = ? AND name = ?"
        self.drop_documents_of = "DELETE FROM documents WHERE tenant_id = ? AND event_id = ?"
        self._document_stats()

    def _newest_matches(self, columns: str) -> None:
        # The matches newest first, driven by the full-text index itself: its rowids run in
        # the order rows were indexed, which is position order within a read model
        # (:mod:`eventstore.sql.sqlite.newest_matches`). CROSS JOIN keeps the index outside.
        self.newest_matches = (
            f"SELECT {', '.join('d.' + c.strip() for c in columns.split(','))} "
            "FROM documents_fts AS f CROSS JOIN documents AS d ON d.rowid = f.rowid "
            "WHERE documents_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND d.tenant_id = ? "
            "AND d.name = ? AND d.position <= ? {scopes} ORDER BY f.rowid DESC LIMIT ?"
        )
        self.nth_newest_match = (
            "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? "
            "AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
        )
        self.first_row_of_scope = (
            "SELECT rowid FROM documents WHERE tenant_id = ? AND name = ? AND scope = ? "
            "ORDER BY position LIMIT 1"
        )
        self.last_row_of_scope = (
            "SELECT rowid FROM documents WHERE tenant_id = ? AND name = ? AND scope = ? "
            "AND position <= ? ORDER BY position DESC LIMIT 1"
        )
        self.newest_position = (
            "SELECT max(position) FROM documents WHERE tenant_id = ? AND name = ?"
        )
        self.rows_out_of_order = (
            "SELECT count(*) FROM (SELECT position, lag(position) OVER (ORDER BY rowid) AS before "
            "FROM documents WHERE tenant_id = ? AND name = ?) WHERE before > position"
        )
        self.first_row = (
            "SELECT rowid FROM documents WHERE tenant_id = ? AND name = ? ORDER BY position LIMIT 1"
        )
        self.last_row = (
            "SELECT rowid FROM documents WHERE tenant_id = ? AND name = ? AND position <= ? "
            "ORDER BY position DESC LIMIT 1"
        )

    def _document_stats(self) -> None:
        self.scope_stats = (
            "SELECT coalesce(sum(row_count), 0), coalesce(sum(total_length), 0) "
            "FROM document_scopes WHERE tenant_id = ? AND name = ? {scopes}"
        )
        self.term_stats = (
            "SELECT term, sum(row_count) FROM document_terms WHERE tenant_id = ? AND name = ? "
            "{scopes} AND term IN ({marks}) GROUP BY term"
        )
        self.terms_after = (
            "SELECT terms FROM documents WHERE tenant_id = ? AND name = ? AND position > ? {scopes}"
        )
        self.stat_rows_of_keys = (
            "SELECT scope, terms FROM documents WHERE tenant_id = ? AND name = ? "
            "AND key IN ({marks})"
        )
        self.stat_rows_of_events = (
            "SELECT name, scope, terms FROM documents WHERE tenant_id = ? AND event_id = ?"
        )
        self.add_scope_stats = (
            "INSERT INTO document_scopes (tenant_id, name, scope, row_count, total_length) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, name, scope) DO UPDATE SET "
            "row_count = row_count + excluded.row_count, "
            "total_length = total_length + excluded.total_length"
        )
        self.add_term_stats = (
            "INSERT INTO document_terms (tenant_id, name, scope, term, row_count) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, name, scope, term) DO UPDATE SET "
            "row_count = row_count + excluded.row_count"
        )
        self.drop_empty_scope = (
            "DELETE FROM document_scopes WHERE tenant_id = ? AND name = ? AND scope = ? "
            "AND row_count <= 0"
        )
        self.drop_empty_term = (
            "DELETE FROM document_terms WHERE tenant_id = ? AND name = ? AND scope = ? "
            "AND term = ? AND row_count <= 0"
        )
        self.reset_scope_stats = "DELETE FROM document_scopes WHERE tenant_id = ? AND name = ?"
        self.reset_term_stats = "DELETE FROM document_terms WHERE tenant_id = ? AND name = ?"


def _search(columns: str, *, indexed: bool) -> str:
    """The rows matching a query, newest first; ``indexed=False`` keeps the filter columns off
    the indexes (SQLite's unary ``+``), and so does the ``{scopes}`` clause given to it."""
    plus = "" if indexed else "+"
    return (
        f"SELECT {columns} FROM documents WHERE rowid IN "
        "(SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?) "
        f"AND {plus}tenant_id = ? AND {plus}name = ? AND {plus}position <= ? "
        "{scopes} ORDER BY position DESC LIMIT ?"
    )


def compiled_sql() -> dict[str, str]:
    """Statement name -> SQL text, as compiled now."""
    return dict(vars(CoreStatements()))


def compiled_module() -> str:
    """The source of :mod:`eventstore.sql.sqlite.compiled` for the statements compiled now."""
    lines = [
        '"""GENERATED by ``python -m eventstore.sql.sqlite.statement_source``: the SQLite',
        "recorder's SQL compiled from the Core tables (see that module). Do not edit: a test",
        'compares this module with a fresh compilation."""',
        "",
        "# ruff: noqa: E501",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        '__all__ = ["DDL", "Statements"]',
        "",
        "#: Every statement of the schema, in order (each idempotent).",
        "DDL: Final = (",
        *(f"    {statement!r}," for statement in ddl_statements()),
        ")",
        "",
        "",
        "class Statements:",
        '    """Every statement, as SQL text with ``?`` parameters."""',
        "",
        *(f"    {name}: Final = {sql!r}" for name, sql in compiled_sql().items()),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(compiled_module(), end="")
