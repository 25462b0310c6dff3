-- Distribute a ctxledger PostgreSQL database by tenant with Citus.
-- The plan and its checks: docs/operations-postgres.md, "Scaling out".
--
-- Run once on the coordinator as the schema owner, after ctxledger has created or upgraded
-- the schema there (schema 5 or later: every key and index leads with tenant_id), with the
-- citus extension created and the workers added (citus_add_node):
--
--     psql "$OWNER_URL" -v ON_ERROR_STOP=1 -f docs/citus/distribute.sql
--
-- Existing rows move to the workers as each table is distributed; on a large database do it
-- in a maintenance window (appends wait on the tables' locks meanwhile).

\set ON_ERROR_STOP on

BEGIN;

DO $$
BEGIN
    IF (SELECT value::int FROM ledger_meta WHERE key = 'schema_version') < 5 THEN
        RAISE EXCEPTION 'ctxledger schema older than 5: open the database once with this '
            'ctxledger release (it re-keys event ids by tenant), then run this script again';
    END IF;
END $$;

-- The append-only triggers: BEFORE UPDATE/DELETE/TRUNCATE refusals, and the payload-delete
-- check, which reads erasures by (tenant_id, event_id), a row of the same co-located shard
-- group. Citus runs triggers of distributed tables on their shards only with this setting.
SET LOCAL citus.enable_unsafe_triggers TO on;

-- One row per database (the schema and hash-spec versions): replicated to every node.
SELECT create_reference_table('ledger_meta');

-- A tenant's head row is the lock every append of that tenant takes; it anchors the
-- co-location group, so all of one tenant's rows, in every table, live on one node and an
-- append or a read is a single-node transaction.
SELECT create_distributed_table('tenant_heads', 'tenant_id');
SELECT create_distributed_table('events', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('payloads', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('erasures', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('stream_heads', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('snapshots', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('merkle_nodes', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('read_models', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('documents', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('document_scopes', 'tenant_id', colocate_with => 'tenant_heads');
SELECT create_distributed_table('document_terms', 'tenant_id', colocate_with => 'tenant_heads');

-- The lock function reads and locks the tenant's head row: run it on the node holding the
-- tenant (delegated by its first argument) instead of as a distributed query.
SELECT create_distributed_function(
    'ctxledger_lock(text, text, text, boolean)', 'p_tenant', colocate_with => 'tenant_heads'
);

COMMIT;
