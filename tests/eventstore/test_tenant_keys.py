"""Every key and index leads with ``tenant_id`` (so the tables distribute by tenant: the Citus
plan in docs/operations-postgres.md holds), on a fresh SQLite file and a fresh PostgreSQL
database; a PostgreSQL database keyed before schema 5 is re-keyed when opened; a SQLite file
keyed before schema 5 refuses another tenant's id as a conflict, never as a race."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest

from eventstore import EventStore, IdempotencyConflict, NewEvent
from eventstore.sql.schema import SCHEMA_VERSION, metadata
from tests.conftest import ROOT
from tests.postgres import dsn, fresh_database

#: Tables without a tenant: one row per database (a Citus reference table).
GLOBAL_TABLES = {"ledger_meta"}
#: Indexes that need not lead with tenant_id: PostgreSQL's GIN index of the documents' terms
#: (a non-unique index is built per shard, and every search also filters by tenant_id).
NOT_LEADING = {"documents_tsv_idx"}
SCRIPT = ROOT / "docs" / "citus" / "distribute.sql"


def test_the_citus_script_distributes_every_table() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    for table in metadata.tables:
        if table in GLOBAL_TABLES:
            assert f"create_reference_table('{table}')" in script, table
        else:
            assert f"create_distributed_table('{table}', 'tenant_id'" in script, table


def sqlite_keys(path: Path) -> dict[str, list[str]]:
    """Every index of every ctxledger table (primary keys and unique constraints included),
    with its columns in order."""
    db = sqlite3.connect(path)
    try:
        keys = {}
        for table in metadata.tables:
            for _, name, *_ in db.execute(f"PRAGMA index_list('{table}')"):
                columns = [row[2] for row in db.execute(f"PRAGMA index_info('{name}')")]
                keys[f"{table}.{name}"] = columns
            # A WITHOUT ROWID table's key is its clustered index, listed with origin 'pk'
            # above; a rowid table's INTEGER PRIMARY KEY would be the rowid (none here).
        return keys
    finally:
        db.close()


async def test_every_sqlite_key_leads_with_tenant_id(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path):
        pass
    keys = sqlite_keys(path)
    assert len(keys) >= 12  # the primary keys, unique constraints and indexes were all seen
    for name, columns in keys.items():
        if name.split(".")[0] in GLOBAL_TABLES:
            continue
        assert columns[0] == "tenant_id", (name, columns)


_PG_KEYS = """
SELECT t.relname, i.relname, array_agg(a.attname ORDER BY k.ordinality)
FROM pg_index x
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_class i ON i.oid = x.indexrelid
CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ordinality)
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE t.relnamespace = current_schema()::regnamespace
GROUP BY t.relname, i.relname
"""


async def pg_keys(url: str) -> dict[str, list[str]]:
    import asyncpg

    db = await asyncpg.connect(dsn(url))
    try:
        return {f"{t}.{i}": list(columns) for t, i, columns in await db.fetch(_PG_KEYS)}
    finally:
        await db.close()


async def test_every_postgres_key_leads_with_tenant_id() -> None:
    async with fresh_database() as url:
        async with EventStore.open(url):
            pass
        keys = await pg_keys(url)
    assert len(keys) >= 12
    for name, columns in keys.items():
        table, index = name.split(".")
        if table in GLOBAL_TABLES or index in NOT_LEADING:
            continue
        assert columns[0] == "tenant_id", (name, columns)


_UNKEY = """
ALTER TABLE events DROP CONSTRAINT events_event_id_uq,
    ADD CONSTRAINT events_event_id_uq UNIQUE (event_id);
ALTER TABLE payloads DROP CONSTRAINT payloads_pk,
    ADD CONSTRAINT payloads_pkey PRIMARY KEY (event_id);
ALTER TABLE erasures DROP CONSTRAINT erasures_pk,
    ADD CONSTRAINT erasures_pkey PRIMARY KEY (event_id);
UPDATE ledger_meta SET value = '4' WHERE key = 'schema_version';
"""


async def test_a_postgres_database_keyed_before_schema_5_is_rekeyed() -> None:
    import asyncpg

    event_id = uuid.uuid4()
    async with fresh_database() as url:
        async with EventStore.open(url) as store:
            await store.append("acme", "s", [NewEvent(type="T", data={"n": 1}, event_id=event_id)])
        db = await asyncpg.connect(dsn(url))
        try:
            await db.execute(_UNKEY)
        finally:
            await db.close()
        old = await pg_keys(url)
        assert old["payloads.payloads_pkey"] == ["event_id"]
        async with EventStore.open(url, create=True) as store:
            # Re-keyed: another tenant may now use the same id, and the first one verifies.
            await store.append("evil", "s", [NewEvent(type="T", data={"n": 2}, event_id=event_id)])
            assert (await store.verify("acme")).ok
        keys = await pg_keys(url)
    assert keys["payloads.payloads_pk"] == ["tenant_id", "event_id"]
    assert keys["erasures.erasures_pk"] == ["tenant_id", "event_id"]
    assert keys["events.events_event_id_uq"] == ["tenant_id", "event_id"]


async def test_an_old_sqlite_file_refuses_another_tenants_id_as_a_conflict(
    tmp_path: Path,
) -> None:
    path = tmp_path / "demo.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "v0_1" / "demo.db", path)
    async with EventStore.open(path) as store:  # upgraded to the current schema version
        first = (await store.read_batch("acme", after_position=0, limit=1))[0]
        with pytest.raises(IdempotencyConflict, match="not visible to this tenant"):
            await store.append("evil", "s", [NewEvent(type="T", data={}, event_id=first.event_id)])
        assert await store.tenant_position("evil") == 0
    db = sqlite3.connect(path)
    try:
        (version,) = db.execute("SELECT value FROM ledger_meta WHERE key = 'schema_version'")
    finally:
        db.close()
    assert int(version[0]) == SCHEMA_VERSION


async def test_an_id_lookup_searches_by_tenant_and_id(tmp_path: Path) -> None:
    """The lookup every append makes for its ids must use the (tenant_id, event_id) key, not
    scan the tenant (with ``IN`` SQLite picked the primary key's tenant prefix: appends grew
    linearly with the tenant)."""
    from eventstore.sql.sqlite.statements import statements

    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={"n": n}) for n in range(50)])
    query = statements().events_by_id.format(marks="(?), (?)")
    db = sqlite3.connect(path)
    try:
        plan = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {query}", [b"a", b"b", "acme"])]
    finally:
        db.close()
    events = [step for step in plan if "events" in step]
    assert events, plan
    assert all("tenant_id=? AND event_id=?" in step for step in events), plan


async def test_postgres_id_lookup_uses_the_tenant_and_id_key() -> None:
    import asyncpg

    from eventstore.sql.postgres.statements import statements

    async with fresh_database() as url:
        async with EventStore.open(url) as store:
            for start in range(0, 2000, 500):
                batch = [NewEvent(type="T", data={"n": n}) for n in range(start, start + 500)]
                await store.append("acme", "s", batch)
        db = await asyncpg.connect(dsn(url))
        try:
            await db.execute("ANALYZE")
            rows = await db.fetch(
                f"EXPLAIN {statements().events_by_id}", "acme", [uuid.uuid4().bytes]
            )
        finally:
            await db.close()
    plan = "\n".join(row[0] for row in rows)
    assert "events_event_id_uq" in plan, plan
