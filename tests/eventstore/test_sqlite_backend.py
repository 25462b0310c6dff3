"""SQLite specifics: pragmas, schema versioning, opening errors, busy writers."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from eventstore import (
    EventStore,
    NewEvent,
    SchemaVersionError,
    StorageError,
    UnsupportedDatabaseError,
)
from eventstore.recorder import Document
from eventstore.sql.schema import SCHEMA_VERSION
from eventstore.sql.sqlite.recorder import SqliteRecorder


async def test_wal_and_full_synchronous_by_default(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
        recorder = store.recorder
        assert isinstance(recorder, SqliteRecorder)
        assert recorder.synchronous == "FULL"
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert connection.execute(
        "SELECT value FROM ledger_meta WHERE key = 'schema_version'"
    ).fetchone() == (str(SCHEMA_VERSION),)


async def test_synchronous_is_configurable_and_checked(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "a.db", synchronous="normal") as store:
        assert isinstance(store.recorder, SqliteRecorder)
        assert store.recorder.synchronous == "NORMAL"
    with pytest.raises(UnsupportedDatabaseError, match="synchronous must be one of"):
        EventStore.open(tmp_path / "b.db", synchronous="sometimes")


@pytest.mark.parametrize(
    "url",
    ["{dir}/plain.db", "sqlite:///{dir}/a.db", "sqlite+aiosqlite:///{dir}/b.db"],
)
async def test_url_forms(tmp_path: Path, url: str) -> None:
    async with EventStore.open(url.format(dir=tmp_path)) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
        assert (await store.verify("acme")).ok


async def test_in_memory_sqlite(tmp_path: Path) -> None:
    async with EventStore.open("sqlite+aiosqlite:///:memory:") as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
        assert (await store.stream_head("acme", "s")).version == 1


async def test_newer_database_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("UPDATE ledger_meta SET value = '99' WHERE key = 'schema_version'")
    connection.close()
    with pytest.raises(SchemaVersionError, match=r"schema version 99.*upgrade ctxledger"):
        async with EventStore.open(path):
            pass


async def test_opening_errors(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        async with EventStore.open(tmp_path / "missing" / "ledger.db"):
            pass
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database, just some bytes" * 100)
    with pytest.raises(StorageError, match="not a SQLite database"):
        async with EventStore.open(junk):
            pass
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE events (x)").connection.commit()
    with pytest.raises(StorageError, match="holds tables of another program"):
        async with EventStore.open(foreign):
            pass
    with pytest.raises(UnsupportedDatabaseError, match="no 'mysql' backend"):
        EventStore.open("mysql://user:secret@db/x")
    with pytest.raises(UnsupportedDatabaseError) as caught:
        EventStore.open("oracle://user:secret@db/x")
    assert "secret" not in str(caught.value)
    # not a string or a path: named, with what it is (was a bare TypeError from os.fspath)
    for wrong, found in ((123, "found int"), (None, "found NoneType"), (b"x.db", "found bytes")):
        with pytest.raises(UnsupportedDatabaseError, match=f"str or os.PathLike.*{found}"):
            EventStore.open(wrong)  # type: ignore[arg-type]


async def test_busy_writer_gives_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        async with EventStore.open(path, busy_timeout=0.05) as store:
            blocker.execute("BEGIN IMMEDIATE")
            with pytest.raises(StorageError, match="busy timeout"):
                await store.append("acme", "s", [NewEvent(type="T", data={})])
            assert (await store.stream_head("acme", "s")).version == 1  # readers still read
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


async def test_failure_inside_the_transaction_writes_nothing(tmp_path: Path) -> None:
    """A database error part-way through a batch (injected by a trigger) rolls back it all."""
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(
        "CREATE TRIGGER fail_payload BEFORE INSERT ON payloads WHEN "
        "(SELECT count(*) FROM payloads) >= 2 BEGIN SELECT RAISE(ABORT, 'injected'); END"
    )
    connection.close()
    async with EventStore.open(path) as store:
        with pytest.raises(StorageError, match="injected"):
            await store.append("acme", "s", [NewEvent(type="T", data={"n": n}) for n in range(3)])
        assert len(await store.read_stream("acme", "s")) == 1
        assert await store.tenant_position("acme") == 1
        assert (await store.verify("acme")).ok


async def test_store_used_before_open_opens_itself(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path / "ledger.db")
    try:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
        assert await store.tenant_position("acme") == 1
    finally:
        await store.close()


async def test_schema_upgrade_from_version_1(tmp_path: Path) -> None:
    """A version-1 database (no snapshots, no Merkle nodes) is upgraded in place when opened."""
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="T", data={})])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("DROP TABLE snapshots")
    connection.execute("DROP TABLE merkle_nodes")
    connection.execute("UPDATE ledger_meta SET value = '1' WHERE key = 'schema_version'")
    connection.close()
    async with EventStore.open(path) as store:
        assert (await store.verify("acme")).ok
        assert await store.load_snapshot("acme", "view", "s") is None
        assert await store.tree("acme").sync() == 0
        assert len(await store.tree("acme").root(1)) == 32
    connection = sqlite3.connect(path)
    assert connection.execute(
        "SELECT value FROM ledger_meta WHERE key = 'schema_version'"
    ).fetchone() == (str(SCHEMA_VERSION),)
    connection.close()


async def _traced(recorder: SqliteRecorder, seen: list[str]) -> None:
    """Record every statement the writer's connection runs."""
    async with recorder._pool.write_lock:
        writer = await recorder._pool.writer()
    await writer.set_trace_callback(seen.append)


@pytest.mark.parametrize(
    ("level", "switched"), [("FULL", True), ("EXTRA", True), ("NORMAL", False)]
)
async def test_read_model_commits_are_not_synced_alone_and_the_log_keeps_its_level(
    tmp_path: Path, level: str, switched: bool
) -> None:
    # A read model's rows derive from the log: their commit need not wait for a sync (the
    # next append's synced commit makes it durable). The log's own commits keep the level.
    async with EventStore.open(tmp_path / "a.db", synchronous=level) as store:
        recorder = store.recorder
        assert isinstance(recorder, SqliteRecorder)
        seen: list[str] = []
        await _traced(recorder, seen)
        row = Document(
            key="k", scope="s", event_id=str(uuid.UUID(int=1)), position=1, terms="a", data=b"{}"
        )
        await store.read_models.commit("acme", "m", expected_position=0, position=1, upserts=[row])
        await store.append("acme", "s", [NewEvent(type="T", data={})])
    pragmas = [s for s in seen if s.upper().startswith("PRAGMA SYNCHRONOUS")]
    assert pragmas == (
        ["PRAGMA synchronous=NORMAL", f"PRAGMA synchronous={level}"] if switched else []
    )
    commits = [i for i, s in enumerate(seen) if s == "COMMIT"]
    assert len(commits) == 2
    if switched:  # the read model's commit between the two pragmas, the log's after both
        first, last = (seen.index(p) for p in pragmas)
        assert first < commits[0] < last < commits[1]
