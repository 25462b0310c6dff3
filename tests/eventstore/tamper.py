"""Helpers to build a SQLite log and edit it behind the store's back (triggers dropped)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from eventstore import EventStore, NewEvent, VerificationReport
from eventstore.envelope_checks import recomputed_hash
from eventstore.hashing import payload_hash
from eventstore.records import StoredEvent

TENANT = "acme"


async def build_log(path: Path, events: int = 12, streams: int = 3) -> None:
    """``events`` single-event appends spread over ``streams`` streams, plus another tenant."""
    async with EventStore.open(path) as store:
        for i in range(events):
            await store.append(
                TENANT,
                f"session/{i % streams}",
                [
                    NewEvent(
                        type="MessageAppended",
                        data={"role": "user", "content": f"message {i} 内容", "n": i},
                        actor="agent" if i % 2 else None,
                    )
                ],
            )
        await store.append("globex", "session/0", [NewEvent(type="T", data={"x": 1})])


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection with every ctxledger trigger dropped."""
    connection = sqlite3.connect(path, isolation_level=None)
    names = [
        row[0]
        for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    ]
    for name in names:
        connection.execute(f"DROP TRIGGER {name}")
    return connection


def verify(path: Path, tenant: str = TENANT, stream: str | None = None) -> VerificationReport:
    async def run() -> VerificationReport:
        async with EventStore.open(path) as store:
            return await store.verify(tenant, stream=stream)

    return asyncio.run(run())


def stored_log(path: Path, tenant: str = TENANT) -> list[StoredEvent]:
    """Every stored event of ``tenant``, as the recorder reads them."""

    async def run() -> list[StoredEvent]:
        async with EventStore.open(path) as store:
            await store.initialize()
            return await store.recorder.read_log(tenant, 0, 1_000_000)

    return asyncio.run(run())


def rehash_from_spec(path: Path, position: int, old: bytes, new: bytes) -> None:
    """The attack the hash chain alone cannot see: rewrite one payload and recompute, with the
    public hash spec only, its payload hash, its event hash, every later event of its stream
    (``prev_hash`` and ``hash``) and the stream head. Triggers are dropped first."""
    target = next(e for e in stored_log(path) if e.position == position)
    assert target.payload is not None
    assert old in target.payload
    rewrite_payload(path, position, target.payload.replace(old, new))


def rewrite_payload(path: Path, position: int, payload: bytes) -> None:
    """Replace one payload and recompute every hash after it from the public spec."""
    events = stored_log(path)
    target = next(e for e in events if e.position == position)
    assert target.salt is not None
    prev = target.prev_hash
    rows = []
    for event in [e for e in events if e.stream_id == target.stream_id]:
        if event.version < target.version:
            continue
        commitment = payload_hash(target.salt, payload) if event is target else event.payload_hash
        digest = recomputed_hash(event, payload_hash=commitment, prev_hash=prev)
        rows.append((commitment, prev, digest, event.tenant_id, event.position))
        prev = digest
    connection = raw(path)
    connection.executemany(
        "UPDATE events SET payload_hash = ?, prev_hash = ?, hash = ? "
        "WHERE tenant_id = ? AND position = ?",
        rows,
    )
    connection.execute(
        "UPDATE payloads SET payload = ? WHERE event_id = "
        "(SELECT event_id FROM events WHERE tenant_id = ? AND position = ?)",
        (payload, TENANT, position),
    )
    connection.execute(
        "UPDATE stream_heads SET hash = ? WHERE tenant_id = ? AND stream_id = ?",
        (prev, TENANT, target.stream_id),
    )
    connection.close()


def truncate_with_fixed_heads(path: Path, keep: int) -> None:
    """Delete every event after position ``keep`` and rewind both heads to match."""
    events = stored_log(path)
    connection = raw(path)
    for event in [e for e in events if e.position > keep]:
        connection.execute(
            "DELETE FROM payloads WHERE event_id = (SELECT event_id FROM events "
            "WHERE tenant_id = ? AND position = ?)",
            (TENANT, event.position),
        )
        connection.execute(
            "DELETE FROM events WHERE tenant_id = ? AND position = ?", (TENANT, event.position)
        )
    heads: dict[str, tuple[int, bytes]] = {}
    for event in [e for e in events if e.position <= keep]:
        heads[event.stream_id] = (event.version, event.hash)
    connection.execute("DELETE FROM stream_heads WHERE tenant_id = ?", (TENANT,))
    connection.executemany(
        "INSERT INTO stream_heads (tenant_id, stream_id, version, hash) VALUES (?, ?, ?, ?)",
        [(TENANT, stream, version, digest) for stream, (version, digest) in heads.items()],
    )
    connection.execute("UPDATE tenant_heads SET position = ? WHERE tenant_id = ?", (keep, TENANT))
    connection.close()
