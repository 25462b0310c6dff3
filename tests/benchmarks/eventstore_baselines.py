"""The event-store benchmark's baselines, measured beside ctxledger in the same run: raw
sqlite3 tables, the same schema written raw (with and without token counting),
pyeventsourcing's SQLite recorder, and one-message session appends."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from uuid_utils.compat import uuid7

from eventstore import EventStore
from eventstore.encoding import canonical_json
from tests.benchmarks.payloads import timed

__all__ = [
    "chat_messages",
    "file_bytes",
    "peer_appends",
    "raw_connection",
    "same_schema_batches",
    "session_appends",
    "session_batches",
]


def raw_connection(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE raw_events (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
    return connection


async def session_appends(path: Path, messages: list[dict[str, Any]]) -> list[float]:
    """One message per append through a ledger session: token counting, the protocol check,
    the typed event, the hash, the durable insert and the fold of the cached state (the same
    texts; tool calls left out, as a call without its result is a protocol issue)."""
    from projections import Ledger

    async with EventStore.open(path) as store:
        ledger = Ledger(store)
        sessions = [ledger.session("acme", f"s{index}") for index in range(20)]
        for session in sessions:
            await session.latest()
        calls = [
            lambda m=message, i=index: sessions[i % 20].append(
                [{"id": f"m{i}", "role": m["role"], "content": m["content"]}]
            )
            for index, message in enumerate(messages)
        ]
        return await timed(calls)


def peer_appends(path: Path, payloads: list[bytes]) -> list[float]:
    """pyeventsourcing's SQLite application recorder (WAL, SQLite's default synchronous=FULL,
    gap-free notification ids) inserting the same payloads, one event per transaction; empty
    when ``eventsourcing`` is not installed (``pip install eventsourcing==9.5.6``)."""
    try:
        from eventsourcing.persistence import StoredEvent as PeerEvent
        from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore
    except ImportError:
        return []
    import uuid

    datastore = SQLiteDatastore(str(path))
    recorder = SQLiteApplicationRecorder(datastore)
    recorder.create_table()
    streams = [uuid.uuid4() for _ in range(20)]
    versions = [0] * 20
    samples = []
    for index, data in enumerate(payloads):
        stream = index % 20
        versions[stream] += 1
        event = PeerEvent(streams[stream], versions[stream], "MessageAppended", data)
        start = time.perf_counter()
        recorder.insert_events([event])
        samples.append(time.perf_counter() - start)
    datastore.close()
    return samples


def chat_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The benchmark's texts as session messages (tool calls left out: a call without its
    result would be a protocol issue)."""
    return [
        {"id": f"m{index}", "role": m["role"], "content": m["content"]}
        for index, m in enumerate(messages)
    ]


async def session_batches(
    folder: Path, messages: list[dict[str, Any]], size: int
) -> tuple[list[float], list[float]]:
    """Batches of ``size`` messages through a ledger session (parsing, token counting, the
    protocol check, typed events, hashing, the durable write, the fold), and the same schema
    written raw with the same token counting, canonical JSON and hashing per message."""
    from projections import Ledger
    from projections.context.tokens import TOKENS_PER_MESSAGE, TiktokenCounter

    chats = chat_messages(messages)
    batches = [chats[start : start + size] for start in range(0, len(chats) - size + 1, size)]
    counter = TiktokenCounter()
    async with EventStore.open(folder / "ledger-session-batch.db") as store:
        ledger = Ledger(store, counter=counter)
        sessions = [ledger.session("acme", f"s{index}") for index in range(len(batches))]
        for session in sessions:
            await session.latest()
        session_samples = await timed(
            [
                lambda b=batch, s=session: s.append(b)
                for batch, s in zip(batches, sessions, strict=True)
            ]
        )

    def payload(message: dict[str, Any]) -> bytes:
        # The same count as count_message gives a plain chat message, on the caller's dict
        # (a raw writer validates nothing), and the payload written from that dict as it is.
        role, content = message["role"], message["content"]
        tokens = TOKENS_PER_MESSAGE + counter.count_text(role) + counter.count_text(content)
        data = {"message": message, "tokens": tokens, "encoding": counter.encoding_name}
        return canonical_json({**data, "flags": []})

    counted = same_schema_batches(
        folder / "raw-schema-counted.db", [b"" for _ in chats], size, encode=payload, source=chats
    )
    return session_samples, counted


def same_schema_batches(
    path: Path,
    payloads: list[bytes],
    size: int,
    *,
    encode: Callable[[dict[str, Any]], bytes] | None = None,
    source: list[dict[str, Any]] | None = None,
) -> list[float]:
    """Raw sqlite3 writing what ctxledger writes: the same tables, indexes, triggers and
    hashes, without the store around it (no validation, no models, no id lookup). With
    ``encode``, each payload is made from ``source`` inside the timed batch."""
    from eventstore.hashing import new_salt, payload_hash
    from eventstore.ids import id_bytes
    from eventstore.records import PendingEvent, StreamHead, chain_events
    from eventstore.sql.rows import event_row
    from eventstore.sql.sqlite.ddl import ddl_statements
    from eventstore.sql.sqlite.statements import statements
    from eventstore.timestamps import timestamp_now

    sql = statements()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    for statement in ddl_statements():
        connection.execute(statement)
    samples, position = [], 0
    for index, start in enumerate(range(0, len(payloads) - size + 1, size)):
        began = time.perf_counter()
        pending = []
        batch = payloads[start : start + size]
        if encode is not None and source is not None:
            batch = [encode(message) for message in source[start : start + size]]
        for data in batch:
            salt = new_salt()
            pending.append(
                PendingEvent(
                    str(uuid7()), "MessageAppended", 1, None, data, salt, payload_hash(salt, data)
                )
            )
        stored = chain_events(
            StreamHead.empty("acme", f"session/{index}"), position, pending, timestamp_now()
        )
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(sql.insert_event, [event_row(e) for e in stored])
        connection.executemany(
            sql.insert_payload, [(id_bytes(e.event_id), "acme", e.salt, e.payload) for e in stored]
        )
        last = stored[-1]
        connection.execute(
            sql.upsert_stream_head, ("acme", last.stream_id, last.version, last.hash)
        )
        connection.execute(sql.upsert_tenant_head, ("acme", last.position))
        connection.execute("COMMIT")
        position = last.position
        samples.append(time.perf_counter() - began)
    connection.close()
    return samples


def file_bytes(path: Path) -> int:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.execute("VACUUM")
    connection.close()
    return path.stat().st_size
