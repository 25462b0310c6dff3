"""The relational schema's version, apart from its tables: reading it imports no SQLAlchemy
(a SQLite store never does; see ``eventstore/sql/sqlite/compiled.py``)."""

from __future__ import annotations

__all__ = ["SCHEMA_VERSION"]

#: Version of this relational schema, recorded in ``ledger_meta``. Every step is additive and
#: idempotent (``IF NOT EXISTS``), so an upgrade re-runs the DDL and records the new version:
#: 1 the log; 2 adds ``snapshots``; 3 adds ``merkle_nodes``; 4 adds ``read_models`` and
#: ``documents`` (with each backend's full-text index); 5 scopes event ids to their tenant:
#: ``(tenant_id, event_id)`` keys ``events``, ``payloads`` and ``erasures``, so every key leads
#: with ``tenant_id`` (PostgreSQL re-keys in place; a SQLite file keeps its older, global
#: event-id keys, which are stricter and never distributed); 6 adds ``document_scopes`` and
#: ``document_terms``, the corpus figures kept per scope (read models built before it are
#: rebuilt under a new read-model version, which fills them).
SCHEMA_VERSION = 6
