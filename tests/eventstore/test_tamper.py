"""Adversarial tests: edit the SQLite file behind the API's back; ``verify`` must name the first
bad event. The triggers are dropped first, as an attacker with file access would."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from eventstore import EventStore, NewEvent, StorageError, TamperedLogError
from tests.eventstore.tamper import TENANT, build_log, raw, verify


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    asyncio.run(build_log(path))
    return path


def first(path: Path, tenant: str = TENANT) -> tuple[int | None, int | None, str, str]:
    report = verify(path, tenant)
    assert not report.ok
    failure = report.failures[0]
    return failure.position, failure.version, failure.stream, failure.reason


def test_untouched_log_verifies(log: Path) -> None:
    report = verify(log)
    assert report.ok
    assert report.checked == 12


def test_triggers_refuse_edits(log: Path) -> None:
    connection = sqlite3.connect(log, isolation_level=None)
    for statement in (
        "UPDATE events SET actor = 'x' WHERE position = 1",
        "DELETE FROM events WHERE position = 12",
        "UPDATE payloads SET payload = x'7b7d'",
        "DELETE FROM payloads",
        "DELETE FROM stream_heads",
        "UPDATE stream_heads SET version = 1",
        "UPDATE tenant_heads SET position = 1",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="ctxledger:"):
            connection.execute(statement)
    connection.close()
    assert verify(log).ok


def test_edited_payload_byte(log: Path) -> None:
    connection = raw(log)
    (event_id, payload) = connection.execute(
        "SELECT e.event_id, p.payload FROM events e JOIN payloads p USING (event_id) "
        "WHERE e.tenant_id = ? AND e.position = 5",
        (TENANT,),
    ).fetchone()
    edited = payload.replace(b"message 4", b"message 9")
    connection.execute("UPDATE payloads SET payload = ? WHERE event_id = ?", (edited, event_id))
    assert first(log) == (
        5,
        2,
        "session/1",
        "payload does not match its payload_hash: the payload or salt was edited",
    )


def test_edited_envelope_field(log: Path) -> None:
    raw(log).execute(
        "UPDATE events SET actor = 'admin' WHERE tenant_id = ? AND position = 7", (TENANT,)
    )
    position, version, stream, reason = first(log)
    assert (position, version, stream) == (7, 3, "session/0")
    assert "an envelope field was edited" in reason


def test_deleted_middle_event(log: Path) -> None:
    connection = raw(log)
    connection.execute("DELETE FROM events WHERE tenant_id = ? AND position = 6", (TENANT,))
    report = verify(log)
    assert not report.ok
    assert (report.failures[0].position, report.failures[0].stream) == (7, "session/0")
    assert "positions 6 are missing" in report.failures[0].reason
    # The chain of the stream that lost version 2 breaks at its next event.
    stream_failure = next(f for f in report.failures if f.stream == "session/2")
    assert stream_failure.position == 9
    assert "version 3 follows version 1" in stream_failure.reason


def test_swapped_events(log: Path) -> None:
    connection = raw(log)
    connection.execute(
        "UPDATE events SET position = -1 WHERE tenant_id = ? AND position = 4", (TENANT,)
    )
    connection.execute(
        "UPDATE events SET position = 4 WHERE tenant_id = ? AND position = 7", (TENANT,)
    )
    connection.execute(
        "UPDATE events SET position = 7 WHERE tenant_id = ? AND position = -1", (TENANT,)
    )
    position, _, stream, reason = first(log)
    assert (position, stream) == (4, "session/0")
    assert "version 3 follows version 1" in reason


def test_swapped_payloads(log: Path) -> None:
    connection = raw(log)
    rows = connection.execute(
        "SELECT e.event_id, p.payload, p.salt FROM events e JOIN payloads p USING (event_id) "
        "WHERE e.tenant_id = ? AND e.position IN (2, 3) ORDER BY e.position",
        (TENANT,),
    ).fetchall()
    for (event_id, _, _), (_, payload, salt) in zip(rows, reversed(rows), strict=True):
        connection.execute(
            "UPDATE payloads SET payload = ?, salt = ? WHERE event_id = ?",
            (payload, salt, event_id),
        )
    assert first(log)[0] == 2


def test_event_moved_to_another_tenant(log: Path) -> None:
    raw(log).execute(
        "UPDATE events SET tenant_id = 'globex' WHERE tenant_id = ? AND position = 5", (TENANT,)
    )
    position, _, _, reason = first(log, TENANT)
    assert position == 6
    assert "positions 5 are missing" in reason
    report = verify(log, "globex")
    assert not report.ok
    moved = " | ".join(f.reason for f in report.failures if f.position == 5)
    assert "positions 2..4 are missing" in moved
    assert "version 2 follows version 0" in moved


def test_deleted_last_event(log: Path) -> None:
    raw(log).execute("DELETE FROM events WHERE tenant_id = ? AND position = 12", (TENANT,))
    report = verify(log)
    assert not report.ok
    reasons = " | ".join(f.reason for f in report.failures)
    assert "stream head says version 4 but the log ends at version 3" in reasons
    assert "tenant head says position 12 but the log ends at position 11" in reasons
    assert any(f.stream == "session/2" and f.version == 4 for f in report.failures)


def test_deleted_last_event_and_heads_rewound(log: Path) -> None:
    """A consistent rewrite of the tail (event, payload and both heads) is invisible to the hash
    chain alone. This pins down the limit stated in docs/hash-spec.md §6, which signed
    checkpoints (an outside anchor) are planned to close."""
    connection = raw(log)
    (event_id, prev_hash) = connection.execute(
        "SELECT event_id, prev_hash FROM events WHERE tenant_id = ? AND position = 12", (TENANT,)
    ).fetchone()
    connection.execute("DELETE FROM events WHERE event_id = ?", (event_id,))
    connection.execute("DELETE FROM payloads WHERE event_id = ?", (event_id,))
    connection.execute(
        "UPDATE stream_heads SET version = 3, hash = ? WHERE tenant_id = ? AND "
        "stream_id = 'session/2'",
        (prev_hash, TENANT),
    )
    connection.execute("UPDATE tenant_heads SET position = 11 WHERE tenant_id = ?", (TENANT,))
    assert verify(log).ok  # consistent rewrite of the tail: invisible without an outside anchor


def test_deleted_heads_are_reported(log: Path) -> None:
    connection = raw(log)
    connection.execute(
        "DELETE FROM stream_heads WHERE tenant_id = ? AND stream_id = 'session/1'", (TENANT,)
    )
    connection.execute("DELETE FROM tenant_heads WHERE tenant_id = ?", (TENANT,))
    report = verify(log)
    reasons = " | ".join(f.reason for f in report.failures)
    assert "no stream head: the head was deleted" in reasons
    assert "tenant head says position 0 but the log ends at position 12" in reasons
    assert report.checked == 12


def test_deleted_payload_without_erasure(log: Path) -> None:
    connection = raw(log)
    connection.execute(
        "DELETE FROM payloads WHERE event_id = (SELECT event_id FROM events "
        "WHERE tenant_id = ? AND position = 3)",
        (TENANT,),
    )
    position, _, _, reason = first(log)
    assert position == 3
    assert "no PayloadErased event names it" in reason


def test_forged_erasure_record_is_not_enough(log: Path) -> None:
    """Inserting an erasures row lets the trigger allow the delete, but no PayloadErased event
    names the payload, so verification still fails."""
    connection = sqlite3.connect(log, isolation_level=None)
    (event_id,) = connection.execute(
        "SELECT event_id FROM events WHERE tenant_id = ? AND position = 3", (TENANT,)
    ).fetchone()
    connection.execute("INSERT INTO erasures VALUES (?, ?, 99)", (event_id, TENANT))
    connection.execute("DELETE FROM payloads WHERE event_id = ?", (event_id,))
    position, _, _, reason = first(log)
    assert position == 3
    assert "no PayloadErased" in reason or "erasure records" in reason


def test_erased_payload_cannot_be_confirmed_by_guessing(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"

    async def erase_one() -> str:
        async with EventStore.open(path) as store:
            (event,) = await store.append(TENANT, "s", [NewEvent(type="Answer", data={"v": "yes"})])
            await store.erase(TENANT, [event.event_id], reason="r", requested_by="dpo")
            return str(event.event_id)

    event_id = asyncio.run(erase_one())
    from uuid import UUID

    from eventstore.encoding import canonical_json
    from eventstore.hashing import payload_hash

    connection = sqlite3.connect(path)
    (stored_hash,) = connection.execute(
        "SELECT payload_hash FROM events WHERE event_id = ?", (UUID(event_id).bytes,)
    ).fetchone()
    assert connection.execute(
        "SELECT count(*) FROM payloads WHERE event_id = ?", (UUID(event_id).bytes,)
    ).fetchone() == (0,)
    # Without the erased salt, neither guess reproduces the commitment (an unsalted hash would).
    for guess in ({"v": "yes"}, {"v": "no"}):
        assert payload_hash(b"", canonical_json(guess)) != stored_hash
        assert payload_hash(b"\x00" * 16, canonical_json(guess)) != stored_hash
    report = verify(path)
    assert report.ok
    assert report.erased == 1


def test_reading_a_corrupt_payload_names_the_event(log: Path) -> None:
    raw(log).execute(
        "UPDATE payloads SET payload = x'7b7b' WHERE event_id = (SELECT event_id "
        "FROM events WHERE tenant_id = ? AND position = 2)",
        (TENANT,),
    )

    async def read(verify_reads: bool) -> None:
        async with EventStore.open(log, verify_reads=verify_reads) as store:
            await store.read_stream(TENANT, "session/1")

    with pytest.raises(TamperedLogError, match=r"session/1 v1 \(position 2\).*ctxledger verify"):
        asyncio.run(read(True))
    # The degraded mode trusts the database: the damage shows only when the payload is decoded.
    with pytest.raises(StorageError, match=r"is not valid JSON.*ctxledger verify"):
        asyncio.run(read(False))


def test_single_stream_verify_sees_tampering(log: Path) -> None:
    raw(log).execute(
        "UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' "
        "WHERE tenant_id = ? AND position = 8",
        (TENANT,),
    )
    assert not verify(log, stream="session/1").ok
    assert verify(log, stream="session/0").ok


def test_reads_refuse_what_verify_would_refuse(log: Path) -> None:
    """Verify on read: an edited payload, an envelope edit, a rehashed event whose successor
    still links to the old hash, and a removed middle event are refused as they are read."""
    connection = raw(log)
    connection.execute(
        "UPDATE events SET actor = 'mallory' WHERE tenant_id = ? AND position = 4", (TENANT,)
    )
    connection.close()

    async def read(stream: str) -> list[object]:
        async with EventStore.open(log) as store:
            events: list[object] = list(await store.read_stream(TENANT, stream))
            events += await store.read_batch(TENANT, after_position=0, limit=100)
            return events

    with pytest.raises(TamperedLogError, match="an envelope field was edited"):
        asyncio.run(read("session/0"))
    assert len(asyncio.run(read_untouched(log))) == 4  # other streams still read


async def read_untouched(path: Path) -> list[object]:
    async with EventStore.open(path) as store:
        return list(await store.read_stream(TENANT, "session/1"))


def test_a_removed_middle_event_is_refused_on_read(log: Path) -> None:
    connection = raw(log)
    connection.execute("DELETE FROM events WHERE tenant_id = ? AND position = 4", (TENANT,))
    connection.close()

    async def read() -> None:
        async with EventStore.open(log) as store:
            await store.read_stream(TENANT, "session/0")

    with pytest.raises(TamperedLogError, match="events are missing"):
        asyncio.run(read())


def test_edits_past_the_first_read_batch_are_found(tmp_path: Path) -> None:
    # verify reads 5,000 events at a time, the next batch while it checks this one: a deleted
    # event in the second batch and an edited byte in the third are reported all the same.
    path = tmp_path / "long.db"

    async def fill() -> None:
        async with EventStore.open(path, synchronous="OFF") as store:
            for start in range(0, 12_000, 1_000):
                batch = [
                    NewEvent(type="T", data={"n": n, "text": "行程"})
                    for n in range(start, start + 1_000)
                ]
                await store.append(TENANT, f"s/{start % 3000}", batch)

    asyncio.run(fill())
    assert verify(path).checked == 12_000
    connection = raw(path)
    connection.execute(
        "UPDATE payloads SET payload = replace(payload, '11000', '11001') WHERE event_id = "
        "(SELECT event_id FROM events WHERE tenant_id = ? AND position = 11001)",
        (TENANT,),
    )
    connection.execute("DELETE FROM events WHERE tenant_id = ? AND position = 7000", (TENANT,))
    connection.close()
    report = verify(path)
    assert not report.ok
    positions = [failure.position for failure in report.failures]
    assert 7001 in positions or 7000 in positions
    assert 11001 in positions
