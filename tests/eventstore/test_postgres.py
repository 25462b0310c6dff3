"""PostgreSQL specifics on a real server: triggers, tampering as superuser, roles and grants,
row-level security, schema versions, lock isolation between tenants, and lost connections."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from eventstore import (
    EventStore,
    LockTimeoutError,
    NewEvent,
    SchemaVersionError,
    StorageError,
)
from eventstore.sql.postgres.recorder import PostgresRecorder
from tests.conftest import ROOT
from tests.postgres import dsn


def message(text: str) -> NewEvent:
    return NewEvent(type="MessageAppended", data={"role": "user", "content": text})


async def filled(url: str, tenant: str = "acme", count: int = 9) -> None:
    async with EventStore.open(url) as store:
        for i in range(count):
            await store.append(tenant, f"session/{i % 3}", [message(f"m{i}")])
        await store.append("globex", "session/0", [message("other")])


async def superuser(url: str) -> Any:
    return await asyncpg.connect(dsn(url))


async def verify(url: str, tenant: str = "acme") -> Any:
    async with EventStore.open(url, create=False) as store:
        return await store.verify(tenant)


async def test_triggers_refuse_edits(pg_url: str) -> None:
    await filled(pg_url)
    db = await superuser(pg_url)
    try:
        for statement in (
            "UPDATE events SET actor = 'x' WHERE position = 1",
            "DELETE FROM events WHERE position = 9",
            "TRUNCATE events CASCADE",
            "UPDATE payloads SET payload = '\\x7b7d'",
            "DELETE FROM payloads",
            "DELETE FROM stream_heads",
            "UPDATE tenant_heads SET position = 1",
        ):
            with pytest.raises(asyncpg.RestrictViolationError, match="ctxledger:"):
                await db.execute(statement)
    finally:
        await db.close()
    assert (await verify(pg_url)).ok


@pytest.mark.parametrize(
    ("tamper", "position", "fragment"),
    [
        (
            "UPDATE payloads SET payload = convert_to('{\"x\":1}', 'UTF8') WHERE event_id = "
            "(SELECT event_id FROM events WHERE tenant_id = 'acme' AND position = 4)",
            4,
            "payload does not match",
        ),
        (
            "UPDATE events SET type = 'Forged' WHERE tenant_id = 'acme' AND position = 5",
            5,
            "envelope field was edited",
        ),
        ("DELETE FROM events WHERE tenant_id = 'acme' AND position = 3", 4, "positions 3"),
        (
            "UPDATE events SET tenant_id = 'globex', position = 99 WHERE tenant_id = 'acme' "
            "AND position = 2",
            3,
            "positions 2",
        ),
        ("DELETE FROM events WHERE tenant_id = 'acme' AND position = 9", 9, "last events"),
    ],
)
async def test_tampering_as_superuser_is_caught(
    pg_url: str, tamper: str, position: int | None, fragment: str
) -> None:
    await filled(pg_url)
    db = await superuser(pg_url)
    try:
        await db.execute("SET session_replication_role = replica")  # triggers off
        await db.execute(tamper)
    finally:
        await db.close()
    report = await verify(pg_url)
    assert not report.ok
    assert report.failures[0].position == position
    assert any(fragment in failure.reason for failure in report.failures)


def grants_from_docs() -> str:
    """The role and grant SQL of docs/operations-postgres.md, executed as written."""
    page = (ROOT / "docs" / "operations-postgres.md").read_text(encoding="utf-8")
    match = re.search(r"```sql\n(.*?)```", page, re.S)
    assert match, "docs/operations-postgres.md lost its roles block"
    return match.group(1)


async def create_roles(url: str) -> tuple[str, str]:
    """The documented least-privilege roles, named for this test database; their URLs."""
    database = make_url(url).database or ""
    suffix = database.rsplit("_", 1)[-1]
    app, eraser = f"app_{suffix}", f"eraser_{suffix}"
    script = (
        grants_from_docs()
        .replace("ctxledger_app", app)
        .replace("ctxledger_eraser", eraser)
        .replace("DATABASE ledger", f'DATABASE "{database}"')
        .replace("'change-me'", "'pw'")
    )
    db = await superuser(url)
    try:
        await db.execute(script)
    finally:
        await db.close()
    base = make_url(url)
    return (
        base.set(username=app, password="pw").render_as_string(hide_password=False),
        base.set(username=eraser, password="pw").render_as_string(hide_password=False),
    )


async def drop_roles(url: str, *roles: str) -> None:
    db = await superuser(url)
    try:
        for role in roles:
            await db.execute(f"DROP OWNED BY {role}")
            await db.execute(f"DROP ROLE {role}")
    finally:
        await db.close()


async def test_least_privilege_roles(pg_url: str) -> None:
    await filled(pg_url)
    app_url, eraser_url = await create_roles(pg_url)
    try:
        async with EventStore.open(app_url, create=False) as app:
            (event,) = await app.append("acme", "session/9", [message("from the app role")])
            assert (await app.verify("acme")).ok
            with pytest.raises(StorageError, match="may not do this"):
                await app.erase("acme", [event.event_id], reason="r", requested_by="app")
            assert (await app.read_events("acme", [event.event_id]))[0].data is not None
        app_db = await asyncpg.connect(dsn(app_url))
        try:
            for statement in (
                "UPDATE events SET actor = 'x'",
                "DELETE FROM events",
                "DELETE FROM payloads",
                "ALTER TABLE events DISABLE TRIGGER ALL",
            ):
                with pytest.raises(asyncpg.PostgresError):
                    await app_db.execute(statement)
        finally:
            await app_db.close()
        async with EventStore.open(eraser_url, create=False) as eraser:
            receipt = await eraser.erase(
                "acme", [event.event_id], reason="GDPR", requested_by="dpo"
            )
            assert receipt.erased == [event.event_id]
            report = await eraser.verify("acme")
            assert report.ok
            assert report.erased == 1
    finally:
        await drop_roles(pg_url, *(make_url(u).username or "" for u in (app_url, eraser_url)))


async def test_row_level_security(pg_url: str) -> None:
    await filled(pg_url)
    async with EventStore.open(pg_url, row_level_security=True):  # the owner enables it
        pass
    app_url, eraser_url = await create_roles(pg_url)
    try:
        async with EventStore.open(app_url, create=False, row_level_security=True) as app:
            assert [e.tenant_id async for e in app.read_log("globex")] == ["globex"]
            await app.append("globex", "session/1", [message("rls append")])
            assert (await app.verify("acme")).ok
            assert (await app.verify("globex")).checked == 2
        db = await asyncpg.connect(dsn(app_url))
        try:
            assert await db.fetchval("SELECT count(*) FROM events") == 0  # no tenant set
            async with db.transaction():
                await db.execute("SELECT set_config('ctxledger.tenant', 'globex', true)")
                assert await db.fetchval("SELECT count(*) FROM events") == 2
                assert (
                    await db.fetchval("SELECT count(*) FROM events WHERE tenant_id = 'acme'") == 0
                )
                with pytest.raises(asyncpg.PostgresError, match="row-level security"):
                    await db.execute(
                        "INSERT INTO tenant_heads (tenant_id, position) VALUES ('acme2', 0)"
                    )
        finally:
            await db.close()
    finally:
        await drop_roles(pg_url, *(make_url(u).username or "" for u in (app_url, eraser_url)))


async def test_newer_schema_is_refused(pg_url: str) -> None:
    await filled(pg_url, count=1)
    db = await superuser(pg_url)
    try:
        await db.execute("UPDATE ledger_meta SET value = '7' WHERE key = 'schema_version'")
    finally:
        await db.close()
    with pytest.raises(SchemaVersionError, match="schema version 7"):
        async with EventStore.open(pg_url):
            pass


async def test_missing_schema_without_create(pg_url: str) -> None:
    with pytest.raises(StorageError, match="no ctxledger schema"):
        async with EventStore.open(pg_url, create=False):
            pass


async def test_bad_server_gives_a_typed_error() -> None:
    with pytest.raises(StorageError, match="cannot"):
        async with EventStore.open("postgresql+asyncpg://nobody:pw@127.0.0.1:1/none"):
            pass


async def hold_tenant_lock(url: str, tenant: str) -> Any:
    db = await superuser(url)
    await db.execute("BEGIN")
    await db.execute("SELECT 1 FROM tenant_heads WHERE tenant_id = $1 FOR UPDATE", tenant)
    return db


async def test_a_held_lock_on_one_tenant_does_not_delay_another(pg_url: str) -> None:
    await filled(pg_url, count=1)
    holder = await hold_tenant_lock(pg_url, "acme")
    try:
        async with EventStore.open(pg_url, lock_timeout=30) as store:
            blocked = asyncio.create_task(store.append("acme", "s", [message("waits")]))
            # globex appends complete while acme's lock is held and acme's append waits.
            for i in range(5):
                await asyncio.wait_for(store.append("globex", "s", [message(str(i))]), timeout=10)
            assert not blocked.done()
            await holder.execute("ROLLBACK")
            (event,) = await asyncio.wait_for(blocked, timeout=10)
            assert event.position == 2
    finally:
        await holder.close()


async def test_lock_timeout_names_the_tenant(pg_url: str) -> None:
    await filled(pg_url, count=1)
    holder = await hold_tenant_lock(pg_url, "acme")
    try:
        async with EventStore.open(pg_url, lock_timeout=0.2) as store:
            with pytest.raises(LockTimeoutError, match="tenant acme") as caught:
                await store.append("acme", "s", [message("x")])
            assert caught.value.tenant_id == "acme"
            assert await store.tenant_position("acme") == 1
    finally:
        await holder.execute("ROLLBACK")
        await holder.close()


@pytest.mark.parametrize("handoff", [True, False], ids=["handoff", "transaction"])
async def test_connection_killed_mid_append_then_idempotent_retry(
    pg_url: str, handoff: bool
) -> None:
    # Killed between its write and its commit: inside the one write statement of the hand-off
    # (its commit delay is a server-side sleep), or idle in the open transaction.
    await filled(pg_url, count=1)
    # The server-side sleep ends with the kill; a client-side one runs its course first.
    delay = 60.0 if handoff else 3.0
    recorder = PostgresRecorder(pg_url, lock_handoff=handoff, commit_delay=lambda: delay)
    batch = [message("a"), message("b"), message("c")]
    waiting = (
        "wait_event = 'PgSleep' AND query LIKE '%ctxledger_write%'"
        if handoff
        else "state = 'idle in transaction'"
    )
    async with EventStore(recorder) as store:
        append = asyncio.create_task(store.append("acme", "s", batch))
        db = await superuser(pg_url)
        try:
            for _ in range(500):
                killed = await db.fetchval(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    f"AND {waiting}"
                )
                if killed:
                    break
                await asyncio.sleep(0.01)
        finally:
            await db.close()
        assert killed == 1
        with pytest.raises(StorageError, match=r"connection .* was lost"):
            await append
        assert await store.tenant_position("acme") == 1  # nothing partial
        recorder.commit_delay = None
        retried = await store.append("acme", "s", batch)
        assert [e.position for e in retried] == [2, 3, 4]
        assert await store.append("acme", "s", batch) == retried  # and idempotent
        assert (await store.verify("acme")).ok


async def app_backends(url: str) -> list[int]:
    """The server processes of ctxledger's connections to this test's database."""
    db = await superuser(url)
    try:
        rows = await db.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
    finally:
        await db.close()
    return [row[0] for row in rows]


async def test_sequential_operations_reuse_one_connection(pg_url: str) -> None:
    async with EventStore(PostgresRecorder(pg_url, pool_size=2)) as store:
        for i in range(20):
            await store.append("acme", "s", [message(f"m{i}")])
            await store.read_stream("acme", "s")
        assert len(await app_backends(pg_url)) == 1
        # Concurrent operations take more connections; afterwards the recorder keeps
        # pool_size and SQLAlchemy's pool at most as many again.
        await asyncio.gather(*(store.append("acme", f"c/{i}", [message("x")]) for i in range(6)))
        assert len(await app_backends(pg_url)) <= 4
        assert await store.tenant_position("acme") == 26
    assert await app_backends(pg_url) == []  # closing the store closes what it kept


async def test_a_kept_connection_closed_by_the_server_is_replaced(pg_url: str) -> None:
    async with EventStore.open(pg_url) as store:
        await store.append("acme", "s", [message("before")])
        (kept,) = await app_backends(pg_url)
        db = await superuser(pg_url)
        try:
            assert await db.fetchval("SELECT pg_terminate_backend($1)", kept)
        finally:
            await db.close()
        await asyncio.sleep(0.2)  # the client sees the server close the idle connection
        await store.append("acme", "s", [message("after")])
        assert [e.data["content"] for e in await store.read_stream("acme", "s")] == [
            "before",
            "after",
        ]
        assert kept not in await app_backends(pg_url)
        assert (await store.verify("acme")).ok
