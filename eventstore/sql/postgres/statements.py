"""The statements the PostgreSQL recorder runs, compiled once from the Core tables (lazily:
nothing happens at import)."""

from __future__ import annotations

from functools import cache

from sqlalchemy import bindparam, select
from sqlalchemy.sql.elements import BindParameter

from eventstore.sql.postgres.ddl import compile_sql as _sql
from eventstore.sql.postgres.ddl import ddl_statements
from eventstore.sql.schema import events, ledger_meta, stream_heads, tenant_heads
from eventstore.sql.select_events import SELECT_EVENTS

__all__ = ["Statements", "statements"]

_DOCUMENT_COLUMNS = "key, scope, event_id, position, terms, data"


class Statements:
    """Every statement, as SQL text with ``$n`` parameters."""

    def __init__(self) -> None:
        e, h, t = events.c, stream_heads.c, tenant_heads.c
        self.events_by_id = (
            _sql(SELECT_EVENTS)
            + " WHERE events.tenant_id = $1 AND events.event_id = ANY($2::bytea[])"
        )
        tenant: BindParameter[str] = bindparam("tenant")
        stream: BindParameter[str] = bindparam("stream")
        self.stream = _sql(
            SELECT_EVENTS.where(
                e.tenant_id == tenant,
                e.stream_id == stream,
                e.version >= bindparam("from_version"),
                e.version <= bindparam("to_version"),
            ).order_by(e.version)
        )
        self.log = (
            _sql(
                SELECT_EVENTS.where(
                    e.tenant_id == tenant,
                    e.position > bindparam("after"),
                    e.position <= bindparam("upto"),
                ).order_by(e.position)
            )
            + " LIMIT $4"
        )
        # Locks the tenant's head row and then reads the stream head, in one round trip.
        self.lock = "SELECT * FROM ctxledger_lock($1, $2, $3, $4)"
        self.write = (
            "WITH new_events AS ("
            " INSERT INTO events (tenant_id, position, stream_id, version, event_id, type,"
            " schema_version, recorded_at, actor, payload_hash, prev_hash, hash)"
            " SELECT $1, x.position, $2, x.version, x.event_id, x.type, x.schema_version, $3,"
            " x.actor, x.payload_hash, x.prev_hash, x.hash FROM unnest($4::bigint[],"
            " $5::bigint[], $6::bytea[], $7::text[], $8::int[], $9::text[], $10::bytea[],"
            " $11::bytea[], $12::bytea[]) AS x(position, version, event_id, type,"
            " schema_version, actor, payload_hash, prev_hash, hash)"
            "), new_payloads AS ("
            " INSERT INTO payloads (event_id, tenant_id, salt, payload)"
            " SELECT y.event_id, $1, y.salt, y.payload"
            " FROM unnest($6::bytea[], $13::bytea[], $14::bytea[]) AS y(event_id, salt, payload)"
            "), new_head AS ("
            " INSERT INTO stream_heads (tenant_id, stream_id, version, hash)"
            " VALUES ($1, $2, $15, $16) ON CONFLICT (tenant_id, stream_id)"
            " DO UPDATE SET version = EXCLUDED.version, hash = EXCLUDED.hash"
            ") UPDATE tenant_heads SET position = $17 WHERE tenant_id = $1"
        )
        # Two statements: the delete trigger must see the erasure rows, and the parts of one
        # statement (CTEs) share a snapshot.
        self.mark_erased = (
            "INSERT INTO erasures (event_id, tenant_id, erased_by)"
            " SELECT unnest($2::bytea[]), $1, $3"
        )
        self.delete_payloads = (
            "DELETE FROM payloads WHERE tenant_id = $1 AND event_id = ANY($2::bytea[])"
        )
        self.drop_snapshots = (
            "DELETE FROM snapshots WHERE tenant_id = $1 AND stream_id = ANY($2::text[])"
        )
        self.drop_documents_of = (
            "DELETE FROM documents WHERE tenant_id = $1 AND event_id = ANY($2::bytea[])"
        )
        self.log_state = (
            "SELECT (SELECT position FROM tenant_heads WHERE tenant_id = $1),"
            " (SELECT max(position) FROM events WHERE tenant_id = $1),"
            " (SELECT max(version) FROM events WHERE tenant_id = $1 AND stream_id = $2)"
        )
        self.stream_heads = _sql(
            select(h.stream_id, h.version, h.hash).where(h.tenant_id == tenant)
        )
        self.stream_head = _sql(
            select(h.stream_id, h.version, h.hash).where(
                h.tenant_id == tenant, h.stream_id == stream
            )
        )
        self.tenants = _sql(select(t.tenant_id).order_by(t.tenant_id))
        self.meta_version = "SELECT value FROM ledger_meta WHERE key = 'schema_version'"
        self.ddl = ddl_statements()
        self.save_snapshot = (
            "INSERT INTO snapshots (tenant_id, name, stream_id, projection_version, version,"
            " position, state, state_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            " ON CONFLICT (tenant_id, name, stream_id) DO UPDATE SET"
            " projection_version = EXCLUDED.projection_version, version = EXCLUDED.version,"
            " position = EXCLUDED.position, state = EXCLUDED.state,"
            " state_hash = EXCLUDED.state_hash"
        )
        self.load_snapshots = (
            "SELECT tenant_id, name, stream_id, projection_version, version, position, state,"
            " state_hash FROM snapshots WHERE tenant_id = $1 AND stream_id = $2"
            " AND name = ANY($3::text[])"
        )
        self.meta_put = (
            _sql(ledger_meta.insert().values(key=bindparam("k"), value=bindparam("v")))
            + " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
        )
        self.hashes = (
            "SELECT hash FROM events WHERE tenant_id = $1 AND position >= $2 AND position <= $3"
            " ORDER BY position"
        )
        self.merkle_nodes = (
            "SELECT idx, hash FROM merkle_nodes WHERE tenant_id = $1 AND algorithm = $2 AND"
            " level = $3 AND idx >= $4 AND idx <= $5 ORDER BY idx"
        )
        self.merkle_extent = (
            "SELECT count(*) FROM merkle_nodes WHERE tenant_id = $1 AND algorithm = $2"
            " AND level = $3"
        )
        self.delete_merkle = "DELETE FROM merkle_nodes WHERE tenant_id = $1 AND algorithm = $2"
        self.save_merkle = (
            "INSERT INTO merkle_nodes (tenant_id, algorithm, level, idx, hash)"
            " SELECT $1, $2, unnest($3::int[]), unnest($4::bigint[]), unnest($5::bytea[])"
            " ON CONFLICT DO NOTHING"
        )
        self._documents()

    def _documents(self) -> None:
        columns = _DOCUMENT_COLUMNS
        self.read_model_position = (
            "SELECT position FROM read_models WHERE tenant_id = $1 AND name = $2"
        )
        # Locks the checkpoint row (creating it at 0), so two committers serialise.
        self.lock_read_model = (
            "INSERT INTO read_models (tenant_id, name, position) VALUES ($1, $2, 0)"
            " ON CONFLICT (tenant_id, name) DO UPDATE SET position = read_models.position"
            " RETURNING position"
        )
        self.save_read_model_position = (
            "UPDATE read_models SET position = $3 WHERE tenant_id = $1 AND name = $2"
        )
        self.delete_documents = (
            "DELETE FROM documents WHERE tenant_id = $1 AND name = $2 AND key = ANY($3::text[])"
        )
        self.insert_documents = (
            "INSERT INTO documents (tenant_id, name, key, scope, event_id, position, length,"
            " terms, data) SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::bytea[],"
            " $6::bigint[], $7::int[], $8::text[], $9::bytea[])"
        )
        self.documents_by_key = (
            f"SELECT {columns} FROM documents WHERE tenant_id = $1 AND name = $2"
            " AND key = ANY($3::text[])"
        )
        scope = " AND ($5::text[] IS NULL OR scope = ANY($5::text[]))"
        self.search = (
            f"SELECT {columns} FROM documents, to_tsquery('simple', $3) AS query"
            " WHERE tenant_id = $1 AND name = $2 AND tsv @@ query AND position <= $4"
            f"{scope} ORDER BY position DESC LIMIT $6"
        )
        self.reset_documents = "DELETE FROM documents WHERE tenant_id = $1 AND name = $2"
        self.reset_read_model = "DELETE FROM read_models WHERE tenant_id = $1 AND name = $2"
        self._document_stats()

    def _document_stats(self) -> None:
        in_scope = " AND ($3::text[] IS NULL OR scope = ANY($3::text[]))"
        self.scope_stats = (
            "SELECT coalesce(sum(row_count), 0), coalesce(sum(total_length), 0)"
            f" FROM document_scopes WHERE tenant_id = $1 AND name = $2{in_scope}"
        )
        self.term_stats = (
            "SELECT term, sum(row_count) FROM document_terms WHERE tenant_id = $1"
            f" AND name = $2{in_scope} AND term = ANY($4::text[]) GROUP BY term"
        )
        self.terms_after = (
            "SELECT terms FROM documents WHERE tenant_id = $1 AND name = $2"
            f"{in_scope} AND position > $4"
        )
        self.stat_rows_of_keys = (
            "SELECT scope, terms FROM documents WHERE tenant_id = $1 AND name = $2"
            " AND key = ANY($3::text[])"
        )
        self.stat_rows_of_events = (
            "SELECT name, scope, terms FROM documents WHERE tenant_id = $1"
            " AND event_id = ANY($2::bytea[])"
        )
        # Erasure takes the read models' checkpoint rows first, as a commit does, so the two
        # never wait on each other's figures in opposite orders.
        self.lock_read_models = (
            "SELECT name FROM read_models WHERE tenant_id = $1 ORDER BY name FOR UPDATE"
        )
        self.add_scope_stats = (
            "INSERT INTO document_scopes (tenant_id, name, scope, row_count, total_length)"
            " SELECT $1, $2, * FROM unnest($3::text[], $4::bigint[], $5::bigint[])"
            " ON CONFLICT (tenant_id, name, scope) DO UPDATE SET"
            " row_count = document_scopes.row_count + excluded.row_count,"
            " total_length = document_scopes.total_length + excluded.total_length"
        )
        self.add_term_stats = (
            "INSERT INTO document_terms (tenant_id, name, scope, term, row_count)"
            " SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::bigint[])"
            " ON CONFLICT (tenant_id, name, scope, term) DO UPDATE SET"
            " row_count = document_terms.row_count + excluded.row_count"
        )
        self.drop_empty_scopes = (
            "DELETE FROM document_scopes WHERE tenant_id = $1 AND name = $2"
            " AND scope = ANY($3::text[]) AND row_count <= 0"
        )
        self.drop_empty_terms = (
            "DELETE FROM document_terms AS t USING unnest($3::text[], $4::text[]) AS g(scope, term)"
            " WHERE t.tenant_id = $1 AND t.name = $2 AND t.scope = g.scope AND t.term = g.term"
            " AND t.row_count <= 0"
        )
        self.reset_scope_stats = "DELETE FROM document_scopes WHERE tenant_id = $1 AND name = $2"
        self.reset_term_stats = "DELETE FROM document_terms WHERE tenant_id = $1 AND name = $2"


@cache
def statements() -> Statements:
    """The compiled statements (built on first use)."""
    return Statements()
