"""The lock hand-off's failure paths on a real server: a turn is never left held, a write in
another session is refused, and a writer of the transaction protocol in between is noticed.
(Ordering under load is in ``test_processes``: 8 processes per protocol and both at once.)"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from eventstore import (
    ConcurrencyError,
    EventStore,
    LockTimeoutError,
    StorageError,
    UnsupportedDatabaseError,
)
from eventstore.records import PendingEvent, chain_events
from eventstore.sql.postgres import handoff
from eventstore.sql.postgres.recorder import PostgresRecorder
from eventstore.testing.log import message
from tests.postgres import dsn


async def advisory_locks(url: str) -> int:
    db = await asyncpg.connect(dsn(url))
    try:
        # This test's database only: other tests (pytest-xdist workers) share the server.
        count: int = await db.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
            "AND pid <> pg_backend_pid() "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return count
    finally:
        await db.close()


async def test_a_cancelled_append_gives_the_turn_back(pg_url: str) -> None:
    inside, never = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        inside.set()
        await never.wait()

    async with (
        EventStore(PostgresRecorder(pg_url, before_write=hold)) as stuck,
        EventStore.open(pg_url, lock_timeout=5) as other,
    ):
        append = asyncio.create_task(stuck.append("acme", "s", [message("a")]))
        await asyncio.wait_for(inside.wait(), timeout=10)
        assert await advisory_locks(pg_url) == 1  # the turn, held while it waits
        append.cancel()
        with pytest.raises(asyncio.CancelledError):
            await append
        (recorded,) = await other.append("acme", "s", [message("b")])
        assert recorded.position == 1
        assert await advisory_locks(pg_url) == 0
        assert (await other.verify("acme")).ok


async def test_a_failed_version_check_gives_the_turn_back(pg_url: str) -> None:
    async with EventStore.open(pg_url, lock_timeout=5) as store:
        await store.append("acme", "s", [message("a")])
        with pytest.raises(ConcurrencyError, match="at version 0, found 1"):
            await store.append("acme", "s", [message("b")], expected_version=0)
        assert await advisory_locks(pg_url) == 0
        (recorded,) = await store.append("acme", "s", [message("c")], expected_version=1)
        assert recorded.version == 2


async def test_a_write_in_another_session_is_refused(pg_url: str) -> None:
    # What a pooler in transaction mode would do: enter in one session, write in another.
    async with EventStore.open(pg_url) as store:
        await store.tenant_position("acme")  # the schema
    first = await asyncpg.connect(dsn(pg_url))
    second = await asyncpg.connect(dsn(pg_url))
    try:
        backend, position, head = await handoff.enter(first, "acme", "s", None, False)
        pending = PendingEvent(
            "0190f2c4-6a7e-7c3b-9d2e-5f1a2b3c4d5e", "T", 1, None, b"{}", b"s" * 16, b"h" * 32
        )
        stored = chain_events(head, position, [pending], "2026-12-01T00:00:00.000000Z")
        with pytest.raises(StorageError, match="lock_handoff=False"):
            await handoff.write(second, backend, stored, None, False)
        await handoff.leave(first)
        assert await second.fetchval("SELECT count(*) FROM events") == 0
    finally:
        for db in (first, second):
            await db.close()


async def test_a_transaction_writer_in_between_makes_the_append_enter_again(
    pg_url: str,
) -> None:
    entered = 0

    async def after_enter() -> None:
        # Once: a writer of the transaction protocol commits after this append read the
        # heads and before it writes.
        nonlocal entered
        entered += 1
        if entered == 1:
            await transaction_writer.append("acme", "other", [message("between")])

    transaction_writer = EventStore(PostgresRecorder(pg_url, lock_handoff=False))
    handing_off = EventStore(PostgresRecorder(pg_url, before_write=after_enter))
    async with transaction_writer, handing_off:
        await transaction_writer.append("acme", "s", [message("first")])
        (recorded,) = await handing_off.append("acme", "s", [message("second")])
        assert entered == 2
        assert (recorded.position, recorded.version) == (3, 2)
        assert (await handing_off.verify("acme")).ok


async def test_a_head_that_keeps_moving_ends_in_a_clear_error(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handoff, "_MAX_ENTRIES", 3)

    async def interpose() -> None:
        await transaction_writer.append("acme", "other", [message("between")])

    transaction_writer = EventStore(PostgresRecorder(pg_url, lock_handoff=False))
    handing_off = EventStore(PostgresRecorder(pg_url, before_write=interpose))
    async with transaction_writer, handing_off:
        with pytest.raises(StorageError, match="moved 3 times"):
            await handing_off.append("acme", "s", [message("never")])
        assert await advisory_locks(pg_url) == 0
        assert [e.stream_id for e in await handing_off.read_stream("acme", "s")] == []
        assert await handing_off.tenant_position("acme") == 3
        assert (await handing_off.verify("acme")).ok


async def test_options_in_the_url_are_ctxledgers_or_asyncpgs(pg_url: str) -> None:
    # ctxledger's options may sit in the query string (the keyword wins); the rest goes to
    # asyncpg's connect, and a parameter neither knows is a clear error, not a TypeError.
    url = f"{pg_url}?lock_handoff=false&lock_timeout=3&ssl=disable"
    async with EventStore.open(url) as store:
        recorder = store.recorder
        assert isinstance(recorder, PostgresRecorder)
        assert (recorder.lock_handoff, recorder.lock_timeout) == (False, 3.0)
        assert "lock_handoff" not in recorder.url
        assert "ssl=disable" in recorder.url
        (recorded,) = await store.append("acme", "s", [message("a")])
        assert recorded.position == 1
    async with EventStore.open(url, lock_handoff=True) as store:
        assert isinstance(store.recorder, PostgresRecorder)
        assert store.recorder.lock_handoff is True
    with pytest.raises(UnsupportedDatabaseError, match=r"lock_handoff.*cannot be 'maybe'"):
        EventStore.open(f"{pg_url}?lock_handoff=maybe")
    with pytest.raises(StorageError, match=r"neither a ctxledger option .* nor an asyncpg"):
        async with EventStore.open(f"{pg_url}?bogus=1") as store:
            await store.tenant_position("acme")


async def test_waiting_for_the_turn_ends_at_the_lock_timeout(pg_url: str) -> None:
    inside, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        inside.set()
        await release.wait()

    async with (
        EventStore(PostgresRecorder(pg_url, before_write=hold)) as holder,
        EventStore.open(pg_url, lock_timeout=0.3) as waiter,
    ):
        held = asyncio.create_task(holder.append("acme", "s", [message("first")]))
        await asyncio.wait_for(inside.wait(), timeout=10)
        with pytest.raises(LockTimeoutError, match="tenant acme") as caught:
            await waiter.append("acme", "s", [message("second")])
        assert caught.value.tenant_id == "acme"
        (other,) = await waiter.append("globex", "s", [message("elsewhere")])  # not queued
        assert other.position == 1
        release.set()
        (first,) = await held
        assert first.position == 1
        assert await advisory_locks(pg_url) == 0
        (second,) = await waiter.append("acme", "s", [message("second")])
        assert second.position == 2


LEASE_HOLDER = """
import asyncio, sys
from eventstore.sql.postgres import handoff
from eventstore.sql.postgres.recorder import PostgresRecorder

async def main() -> None:
    recorder = PostgresRecorder(sys.argv[1])
    await recorder.initialize()
    async with recorder._connections.connection("acme") as db:
        await handoff.enter(db, "acme", "s", None, False, sys.argv[2])
        print("holding the turn", flush=True)
        await asyncio.sleep(120)

asyncio.run(main())
"""


async def test_a_stalled_client_loses_its_turn_after_the_lease(pg_url: str) -> None:
    """A client that took its tenant's turn and then stopped (SIGSTOP: no statement, no
    disconnect) is disconnected by the server once the lease runs out; the next writer then
    gets the turn. Without a lease it would wait until its lock timeout, every time."""
    import os
    import signal
    import sys

    async with EventStore.open(pg_url) as store:
        await store.append("acme", "s", [message("before")])
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LEASE_HOLDER, pg_url, "1500ms", stdout=asyncio.subprocess.PIPE
    )
    try:
        assert holder.stdout is not None
        assert (await holder.stdout.readline()).strip() == b"holding the turn"
        os.kill(holder.pid, signal.SIGSTOP)
        async with EventStore.open(pg_url, lock_timeout=30) as waiter:
            (after,) = await waiter.append("acme", "s", [message("after the lease")])
        assert after.position == 2
        assert await advisory_locks(pg_url) == 0
    finally:
        holder.kill()
        await holder.wait()


async def test_without_a_lease_a_stalled_turn_holds_until_the_lock_timeout(pg_url: str) -> None:
    async with EventStore.open(pg_url, turn_timeout=None) as store:
        recorder = store.recorder
        assert isinstance(recorder, PostgresRecorder)
        async with recorder._connections.connection("acme") as db:
            await handoff.enter(db, "acme", "s", None, False)
            async with EventStore.open(pg_url, lock_timeout=0.5) as waiter:
                with pytest.raises(LockTimeoutError):
                    await waiter.append("acme", "s", [message("blocked")])
            await handoff.leave(db)
            idle = await db.fetchval("SHOW idle_session_timeout")
            assert idle == "0"  # the lease, had there been one, is given back with the turn
