"""PostgreSQL's DDL: the Core tables compiled, the lock function, the triggers that refuse
edits of the log, the row-level-security policies, and the full-text index of read-model rows
(a generated ``tsvector`` with a GIN index)."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlalchemy.sql.elements import ClauseElement

from eventstore.sql.schema import TENANT_TABLES, metadata

__all__ = ["DIALECT", "POSTGRES_DDL", "compile_sql", "ddl_statements"]

DIALECT = postgresql.dialect(paramstyle="numeric_dollar")  # type: ignore[no-untyped-call]


def compile_sql(statement: ClauseElement) -> str:
    """A Core statement as PostgreSQL SQL with ``$n`` parameters."""
    return str(statement.compile(dialect=DIALECT))


# Schema 5: event ids are unique within their tenant. A database made before keyed them alone;
# re-key it in place (each ALTER rebuilds one index, once: the check finds the new key after).
_REKEY_BY_TENANT = """DO $$
DECLARE
    rekey record;
BEGIN
    FOR rekey IN
        SELECT t.relname AS tbl, c.conname AS old, c.contype AS kind
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE t.relnamespace = current_schema()::regnamespace
          AND t.relname IN ('events', 'payloads', 'erasures')
          AND c.contype IN ('p', 'u') AND cardinality(c.conkey) = 1
          AND (SELECT attname FROM pg_attribute
               WHERE attrelid = t.oid AND attnum = c.conkey[1]) = 'event_id'
    LOOP
        IF rekey.kind = 'u' THEN
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I '
                           'UNIQUE (tenant_id, event_id)', rekey.tbl, rekey.old, rekey.old);
        ELSE
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I '
                           'PRIMARY KEY (tenant_id, event_id)', rekey.tbl, rekey.old,
                           rekey.tbl || '_pk');
        END IF;
    END LOOP;
END $$"""


def _pg_refuse(name: str, table: str, when: str, message: str) -> str:
    return (
        f"DROP TRIGGER IF EXISTS {name} ON {table};\n"
        f"CREATE TRIGGER {name} {when} ON {table} FOR EACH "
        f"{'STATEMENT' if 'TRUNCATE' in when else 'ROW'} "
        f"EXECUTE FUNCTION ctxledger_refuse('{message}')"
    )


_TURN, _COMMIT = 0x7475726E, 0x636F6D6D  # hashtextextended seeds ("turn", "comm")

# The statement's lock timeout and, with row-level security, its tenant, set where an append
# starts (transaction-local: for an autocommit statement, that statement), so that an append
# needs no separate round trip for them.
_SETTINGS = """        IF p_lock_timeout IS NOT NULL THEN
            PERFORM set_config('lock_timeout', p_lock_timeout, true);
        END IF;
        IF p_row_security THEN
            PERFORM set_config('ctxledger.tenant', p_tenant, true);
        END IF;
"""

#: The lock hand-off's two functions (see ``handoff``: the turn and the commit lock).
HANDOFF_DDL: tuple[str, ...] = (
    f"""CREATE OR REPLACE FUNCTION ctxledger_enter(p_tenant text, p_stream text,
        p_lock_timeout text, p_row_security boolean, OUT backend integer,
        OUT tenant_position bigint, OUT stream_version bigint, OUT stream_hash bytea)
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
{_SETTINGS}        PERFORM pg_advisory_lock(hashtextextended(p_tenant, {_TURN}));
        PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_tenant, {_COMMIT}));
        backend := pg_backend_pid();
        SELECT position INTO tenant_position FROM tenant_heads WHERE tenant_id = p_tenant;
        tenant_position := coalesce(tenant_position, 0);
        SELECT version, hash INTO stream_version, stream_hash FROM stream_heads
            WHERE tenant_id = p_tenant AND stream_id = p_stream;
    END $$""",
    f"""CREATE OR REPLACE FUNCTION ctxledger_write(p_backend integer, p_tenant text,
        p_stream text, p_lock_timeout text, p_row_security boolean, p_recorded_at bigint,
        p_positions bigint[], p_versions bigint[], p_ids bytea[], p_types text[],
        p_schema_versions int[], p_actors text[], p_payload_hashes bytea[],
        p_prev_hashes bytea[], p_hashes bytea[], p_salts bytea[], p_payloads bytea[],
        p_delay double precision)
    RETURNS void LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
        n integer := cardinality(p_positions);
    BEGIN
        IF pg_backend_pid() <> p_backend THEN
            RAISE EXCEPTION 'ctxledger: the lock hand-off ran in two server sessions'
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
{_SETTINGS}        PERFORM pg_advisory_xact_lock(hashtextextended(p_tenant, {_COMMIT}));
        PERFORM pg_advisory_unlock(hashtextextended(p_tenant, {_TURN}));
        -- Move the tenant head only from where enter read it: the row lock waits for a
        -- writer of the transaction protocol, and its re-checked condition sees its commit.
        UPDATE tenant_heads SET position = p_positions[n]
            WHERE tenant_id = p_tenant AND position = p_positions[1] - 1;
        IF NOT FOUND THEN
            INSERT INTO tenant_heads (tenant_id, position)
                SELECT p_tenant, p_positions[n] WHERE p_positions[1] = 1
                ON CONFLICT (tenant_id) DO NOTHING;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'ctxledger: the tenant head moved' USING ERRCODE = '40001';
            END IF;
        END IF;
        INSERT INTO events (tenant_id, position, stream_id, version, event_id, type,
                schema_version, recorded_at, actor, payload_hash, prev_hash, hash)
            SELECT p_tenant, x.position, p_stream, x.version, x.event_id, x.type,
                x.schema_version, p_recorded_at, x.actor, x.payload_hash, x.prev_hash, x.hash
            FROM unnest(p_positions, p_versions, p_ids, p_types, p_schema_versions, p_actors,
                p_payload_hashes, p_prev_hashes, p_hashes) AS x(position, version, event_id,
                type, schema_version, actor, payload_hash, prev_hash, hash);
        INSERT INTO payloads (event_id, tenant_id, salt, payload)
            SELECT y.event_id, p_tenant, y.salt, y.payload
            FROM unnest(p_ids, p_salts, p_payloads) AS y(event_id, salt, payload);
        INSERT INTO stream_heads (tenant_id, stream_id, version, hash)
            VALUES (p_tenant, p_stream, p_versions[n], p_hashes[n])
            ON CONFLICT (tenant_id, stream_id)
            DO UPDATE SET version = EXCLUDED.version, hash = EXCLUDED.hash;
        IF p_delay > 0 THEN
            PERFORM pg_sleep(p_delay);
        END IF;
    END $$""",
)


#: PostgreSQL functions, triggers, row-level-security policies and the full-text index
#: (run after the tables).
POSTGRES_DDL: tuple[str, ...] = (
    # Locks the tenant's head row, then reads the stream head. Separate statements on purpose:
    # in READ COMMITTED a statement that waited for a row lock re-checks only the locked row,
    # so a stream head joined into the locking statement could be stale (the 8-writer test
    # caught exactly that). A VOLATILE function takes a fresh snapshot per statement.
    # It also applies the transaction's lock timeout and, with row-level security, its tenant,
    # so that an append needs no separate round trip for them.
    f"""CREATE OR REPLACE FUNCTION ctxledger_lock(p_tenant text, p_stream text,
        p_lock_timeout text, p_row_security boolean,
        OUT tenant_position bigint, OUT stream_version bigint, OUT stream_hash bytea)
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
{_SETTINGS}        SELECT position INTO tenant_position FROM tenant_heads
            WHERE tenant_id = p_tenant FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO tenant_heads (tenant_id, position) VALUES (p_tenant, 0)
                ON CONFLICT (tenant_id) DO NOTHING;
            SELECT position INTO tenant_position FROM tenant_heads
                WHERE tenant_id = p_tenant FOR UPDATE;
        END IF;
        SELECT version, hash INTO stream_version, stream_hash FROM stream_heads
            WHERE tenant_id = p_tenant AND stream_id = p_stream;
    END $$""",
    *HANDOFF_DDL,
    _REKEY_BY_TENANT,
    """CREATE OR REPLACE FUNCTION ctxledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'ctxledger: %', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
    END $$""",
    """CREATE OR REPLACE FUNCTION ctxledger_payload_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM erasures
                WHERE erasures.tenant_id = OLD.tenant_id AND erasures.event_id = OLD.event_id) THEN
            RAISE EXCEPTION 'ctxledger: a payload may be deleted only by a recorded erasure'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END $$""",
    _pg_refuse("events_append_only", "events", "BEFORE UPDATE OR DELETE", "events are append-only"),
    _pg_refuse("events_no_truncate", "events", "BEFORE TRUNCATE", "events are append-only"),
    _pg_refuse("payloads_no_update", "payloads", "BEFORE UPDATE", "payloads are immutable"),
    _pg_refuse("payloads_no_truncate", "payloads", "BEFORE TRUNCATE", "payloads are immutable"),
    "DROP TRIGGER IF EXISTS payloads_delete_only_erased ON payloads;\n"
    "CREATE TRIGGER payloads_delete_only_erased BEFORE DELETE ON payloads FOR EACH ROW "
    "EXECUTE FUNCTION ctxledger_payload_delete()",
    _pg_refuse(
        "erasures_append_only", "erasures", "BEFORE UPDATE OR DELETE", "erasures are append-only"
    ),
    _pg_refuse("erasures_no_truncate", "erasures", "BEFORE TRUNCATE", "erasures are append-only"),
    "DROP TRIGGER IF EXISTS stream_heads_forward_only ON stream_heads;\n"
    "CREATE TRIGGER stream_heads_forward_only BEFORE UPDATE ON stream_heads FOR EACH ROW "
    "WHEN (NEW.version <= OLD.version OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id "
    "OR NEW.stream_id IS DISTINCT FROM OLD.stream_id) "
    "EXECUTE FUNCTION ctxledger_refuse('stream heads only move forward')",
    _pg_refuse("stream_heads_no_delete", "stream_heads", "BEFORE DELETE", "stream heads are kept"),
    "DROP TRIGGER IF EXISTS tenant_heads_forward_only ON tenant_heads;\n"
    "CREATE TRIGGER tenant_heads_forward_only BEFORE UPDATE ON tenant_heads FOR EACH ROW "
    "WHEN (NEW.position <= OLD.position OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id) "
    "EXECUTE FUNCTION ctxledger_refuse('tenant heads only move forward')",
    _pg_refuse("tenant_heads_no_delete", "tenant_heads", "BEFORE DELETE", "tenant heads are kept"),
    *(
        f"DROP POLICY IF EXISTS {table}_tenant ON {table};\n"
        f"CREATE POLICY {table}_tenant ON {table} "
        f"USING (tenant_id = current_setting('ctxledger.tenant', true)) "
        f"WITH CHECK (tenant_id = current_setting('ctxledger.tenant', true))"
        for table in TENANT_TABLES
    ),
    # Read-model rows: their terms as a tsvector (the read model tokenises; the simple
    # configuration only lower-cases), searched through a GIN index.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS tsv tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED",
    "CREATE INDEX IF NOT EXISTS documents_tsv_idx ON documents USING gin (tsv)",
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
    return [*statements, *POSTGRES_DDL]
