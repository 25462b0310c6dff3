"""The relational schema shared by the SQL backends, and the append-only triggers.

``tenant_id`` leads every key and index, so a tenant's rows are contiguous and the tables can be
distributed by tenant (docs/operations-postgres.md, "Scaling out"); an event id is unique
within its tenant, so no tenant can learn another's ids. Event ids are stored as 16 raw bytes
and hashes as 32 raw bytes; the text forms that the hash spec uses are derived from them
losslessly.

Tables:
    events        one row per event: the hashed envelope (never updated, never deleted)
    payloads      canonical payload bytes and salt, keyed by event id (deleted only on erasure)
    erasures      which event's payload was erased by which ``PayloadErased`` position
    stream_heads  last version and hash per stream (moves forward only)
    tenant_heads  last position per tenant (moves forward only)
    merkle_nodes  perfect subtrees of each tenant's Merkle tree (derived, insert-only)
    read_models   the checkpoint (tenant position folded up to) of each read model
    documents     rows of read models: searchable terms and data, each from one event
    ledger_meta   schema version and other facts about the database itself

The triggers that make the database refuse edits of the log, and the full-text indexes of
``documents``, are each backend's own (``sqlite/ddl.py``, ``postgres/ddl.py``).
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

from eventstore.sql.version import SCHEMA_VERSION

__all__ = [
    "BIG",
    "SCHEMA_VERSION",
    "TENANT_TABLES",
    "document_scopes",
    "document_terms",
    "documents",
    "erasures",
    "events",
    "ledger_meta",
    "merkle_nodes",
    "metadata",
    "payloads",
    "read_models",
    "snapshots",
    "stream_heads",
    "tenant_heads",
]

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
    UniqueConstraint("tenant_id", "event_id", name="events_event_id_uq"),
    sqlite_with_rowid=False,
)

# A rowid table on purpose: payloads are 1-2 KB, and SQLite's WITHOUT ROWID b-trees spill rows
# over about 1 KB into overflow pages, which more than doubled the file size in the benchmark.
payloads = Table(
    "payloads",
    metadata,
    Column("event_id", LargeBinary, nullable=False),
    Column("tenant_id", Text, nullable=False),
    Column("salt", LargeBinary, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "event_id", name="payloads_pk"),
)

erasures = Table(
    "erasures",
    metadata,
    Column("event_id", LargeBinary, nullable=False),
    Column("tenant_id", Text, nullable=False),
    Column("erased_by", BIG, nullable=False),
    PrimaryKeyConstraint("tenant_id", "event_id", name="erasures_pk"),
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

# Read models with rows of their own (derived data, like snapshots): a checkpoint each ...
read_models = Table(
    "read_models",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("position", BIG, nullable=False),
    PrimaryKeyConstraint("tenant_id", "name", name="read_models_pk"),
    sqlite_with_rowid=False,
)

# ... and their rows. A rowid table on SQLite: the FTS5 index refers to rows by rowid.
documents = Table(
    "documents",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("scope", Text, nullable=False),
    Column("event_id", LargeBinary, nullable=False),
    Column("position", BIG, nullable=False),
    Column("length", Integer, nullable=False),
    Column("terms", Text, nullable=False),
    Column("data", LargeBinary, nullable=False),
    PrimaryKeyConstraint("tenant_id", "name", "key", name="documents_pk"),
)

# The corpus figures of the rows, per scope (eventstore/document_stats.py): kept as the rows
# change, so a search reads one row per scope and asked term instead of counting the index.
document_scopes = Table(
    "document_scopes",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("scope", Text, nullable=False),
    Column("row_count", BIG, nullable=False),
    Column("total_length", BIG, nullable=False),
    PrimaryKeyConstraint("tenant_id", "name", "scope", name="document_scopes_pk"),
    sqlite_with_rowid=False,
)

document_terms = Table(
    "document_terms",
    metadata,
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("scope", Text, nullable=False),
    Column("term", Text, nullable=False),
    Column("row_count", BIG, nullable=False),
    PrimaryKeyConstraint("tenant_id", "name", "scope", "term", name="document_terms_pk"),
    sqlite_with_rowid=False,
)

Index("erasures_tenant_idx", erasures.c.tenant_id, erasures.c.erased_by)
Index("documents_scope_idx", documents.c.tenant_id, documents.c.name, documents.c.scope)
# The rows after a position, within a scope or the whole read model (searches as of then).
Index(
    "documents_scope_position_idx",
    documents.c.tenant_id,
    documents.c.name,
    documents.c.scope,
    documents.c.position,
)
Index("documents_position_idx", documents.c.tenant_id, documents.c.name, documents.c.position)
# A term's figures over every scope of a tenant's read model (cross-session searches).
Index(
    "document_terms_term_idx",
    document_terms.c.tenant_id,
    document_terms.c.name,
    document_terms.c.term,
)
Index("documents_event_idx", documents.c.tenant_id, documents.c.event_id)

#: Every table keyed by tenant: PostgreSQL's row-level security covers exactly these.
TENANT_TABLES = (
    "events",
    "payloads",
    "erasures",
    "stream_heads",
    "tenant_heads",
    "snapshots",
    "merkle_nodes",
    "read_models",
    "documents",
    "document_scopes",
    "document_terms",
)
