"""The relational schema shared by the SQL backends, and the append-only triggers.

``tenant_id`` leads every key and index, so a tenant's rows are contiguous and the tables can be
distributed by tenant. Event ids are stored as 16 raw bytes and hashes as 32 raw bytes; the text
forms that the hash spec uses are derived from them losslessly.

Tables:
    events        one row per event: the hashed envelope (never updated, never deleted)
    payloads      canonical payload bytes and salt, keyed by event id (deleted only on erasure)
    erasures      which event's payload was erased by which ``PayloadErased`` position
    stream_heads  last version and hash per stream (moves forward only)
    tenant_heads  last position per tenant (moves forward only)
    merkle_nodes  perfect subtrees of each tenant's Merkle tree (derived, insert-only)
    ledger_meta   schema version and other facts about the database itself
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "BIG",
    "POSTGRES_DDL",
    "SCHEMA_VERSION",
    "SQLITE_TRIGGERS",
    "TENANT_TABLES",
    "erasures",
    "events",
    "ledger_meta",
    "merkle_nodes",
    "metadata",
    "payloads",
    "snapshots",
    "stream_heads",
    "tenant_heads",
]

#: Version of this relational schema, recorded in ``ledger_meta``. Every step is additive and
#: idempotent (``IF NOT EXISTS``), so an upgrade re-runs the DDL and records the new version:
#: 1 the log; 2 adds ``snapshots``; 3 adds ``merkle_nodes``.
SCHEMA_VERSION = 3

metadata = MetaData()

#: 64-bit integers; SQLite's INTEGER already is one (and keeps its rowid semantics).
BIG = BigInteger().with_variant(Integer, "sqlite")

events = Table(
    "events",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("position", BIG, nullable=False),
    Column("stream_id", Text, nullable=False),
    Column("version", BIG, nullable=False),
    Column("event_id", LargeBinary, nullable=False),
    Column("type", Text, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("recorded_at", BIG, nullable=False),  # microseconds since the epoch, UTC
    Column("actor", Text, nullable=True),
    Column("payload_hash", LargeBinary, nullable=False),
    Column("prev_hash", LargeBinary, nullable=False),
    Column("hash", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "position", name="events_pk"),
    UniqueConstraint("tenant_id", "stream_id", "version", name="events_stream_version_uq"),
    UniqueConstraint("event_id", name="events_event_id_uq"),
    sqlite_with_rowid=False,
)

# A rowid table on purpose: payloads are 1-2 KB, and SQLite's WITHOUT ROWID b-trees spill rows
# over about 1 KB into overflow pages, which more than doubled the file size in the benchmark.
payloads = Table(
    "payloads",
    metadata,
    Column("event_id", LargeBinary, primary_key=True),
    Column("tenant_id", Text, nullable=False),
    Column("salt", LargeBinary, nullable=False),
    Column("payload", LargeBinary, nullable=False),
)

erasures = Table(
    "erasures",
    metadata,
    Column("event_id", LargeBinary, primary_key=True),
    Column("tenant_id", Text, nullable=False),
    Column("erased_by", BIG, nullable=False),
    sqlite_with_rowid=False,
)

stream_heads = Table(
    "stream_heads",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("stream_id", Text, nullable=False),
    Column("version", BIG, nullable=False),
    Column("hash", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "stream_id", name="stream_heads_pk"),
    sqlite_with_rowid=False,
)

tenant_heads = Table(
    "tenant_heads",
    metadata,
    Column("tenant_id", Text, primary_key=True),
    Column("position", BIG, nullable=False),
    sqlite_with_rowid=False,
)

# Projection snapshots: derived data, replaceable and deletable; tenant_id leads the key.
snapshots = Table(
    "snapshots",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("stream_id", Text, nullable=False),
    Column("projection_version", Integer, nullable=False),
    Column("version", BIG, nullable=False),
    Column("position", BIG, nullable=False),
    Column("state", LargeBinary, nullable=False),
    Column("state_hash", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "name", "stream_id", name="snapshots_pk"),
)

# Perfect subtrees of each tenant's Merkle tree (derived from the events, insert-only):
# ``level`` 8 and up, so a node covers 256 leaves or more and a proof reads O(log n) rows.
merkle_nodes = Table(
    "merkle_nodes",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("algorithm", Text, nullable=False),
    Column("level", Integer, nullable=False),
    Column("idx", BIG, nullable=False),
    Column("hash", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "algorithm", "level", "idx", name="merkle_nodes_pk"),
    sqlite_with_rowid=False,
)

ledger_meta = Table(
    "ledger_meta",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)

Index("erasures_tenant_idx", erasures.c.tenant_id, erasures.c.erased_by)


def _refuse(name: str, when: str, table: str, message: str, condition: str = "") -> str:
    guard = f" WHEN {condition}" if condition else ""
    return (
        f"CREATE TRIGGER IF NOT EXISTS {name} BEFORE {when} ON {table}{guard} "
        f"BEGIN SELECT RAISE(ABORT, 'ctxledger: {message}'); END"
    )


#: SQLite triggers that make the database itself refuse edits of the log.
SQLITE_TRIGGERS: tuple[str, ...] = (
    _refuse("events_no_update", "UPDATE", "events", "events are append-only (UPDATE refused)"),
    _refuse("events_no_delete", "DELETE", "events", "events are append-only (DELETE refused)"),
    _refuse("payloads_no_update", "UPDATE", "payloads", "payloads are immutable (UPDATE refused)"),
    _refuse(
        "payloads_delete_only_erased",
        "DELETE",
        "payloads",
        "a payload may be deleted only by a recorded erasure",
        "NOT EXISTS (SELECT 1 FROM erasures WHERE erasures.event_id = OLD.event_id)",
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


def _pg_refuse(name: str, table: str, when: str, message: str) -> str:
    return (
        f"DROP TRIGGER IF EXISTS {name} ON {table};\n"
        f"CREATE TRIGGER {name} {when} ON {table} FOR EACH "
        f"{'STATEMENT' if 'TRUNCATE' in when else 'ROW'} "
        f"EXECUTE FUNCTION ctxledger_refuse('{message}')"
    )


#: PostgreSQL functions, triggers and row-level-security policies (run after the tables).
#: Every table keyed by tenant: row-level security covers exactly these.
TENANT_TABLES = (
    "events",
    "payloads",
    "erasures",
    "stream_heads",
    "tenant_heads",
    "snapshots",
    "merkle_nodes",
)

POSTGRES_DDL: tuple[str, ...] = (
    # Locks the tenant's head row, then reads the stream head. Separate statements on purpose:
    # in READ COMMITTED a statement that waited for a row lock re-checks only the locked row,
    # so a stream head joined into the locking statement could be stale (the 8-writer test
    # caught exactly that). A VOLATILE function takes a fresh snapshot per statement.
    # It also applies the transaction's lock timeout and, with row-level security, its tenant,
    # so that an append needs no separate round trip for them.
    """CREATE OR REPLACE FUNCTION ctxledger_lock(p_tenant text, p_stream text,
        p_lock_timeout text, p_row_security boolean,
        OUT tenant_position bigint, OUT stream_version bigint, OUT stream_hash bytea)
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
        IF p_lock_timeout IS NOT NULL THEN
            PERFORM set_config('lock_timeout', p_lock_timeout, true);
        END IF;
        IF p_row_security THEN
            PERFORM set_config('ctxledger.tenant', p_tenant, true);
        END IF;
        SELECT position INTO tenant_position FROM tenant_heads
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
    """CREATE OR REPLACE FUNCTION ctxledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'ctxledger: %', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
    END $$""",
    """CREATE OR REPLACE FUNCTION ctxledger_payload_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM erasures WHERE erasures.event_id = OLD.event_id) THEN
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
)
