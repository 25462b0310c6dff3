"""Worker processes for the multi-process tests: ``python -m tests.eventstore.workers ...``.

``append DB INDEX COUNT GO_FILE [MAX_DELAY_MS [PROTOCOL]]``  append COUNT events to own streams
    and, every fifth one, to a shared stream with optimistic concurrency; print a JSON summary.
    On PostgreSQL, random delays of up to MAX_DELAY_MS are injected into every append: while
    it holds its tenant's turn before writing, and between its write and its commit.
    PROTOCOL: ``handoff`` (default), ``transaction``, or ``mixed`` (even workers hand off).
``crash DB BATCH_SIZE``  append batches forever (batch numbers continue from the file); print
    ``ready`` once appending starts. The parent kills it with SIGKILL.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
import uuid
from pathlib import Path

from eventstore import ConcurrencyError, EventStore, NewEvent

TENANT = "acme"
CRASH_NAMESPACE = uuid.UUID("6f0c1f6e-8a53-4c39-9a57-2a4f1a1d3b10")


def crash_event_id(batch: int, index: int) -> uuid.UUID:
    return uuid.uuid5(CRASH_NAMESPACE, f"{batch}/{index}")


def wait_for_file(path: str) -> None:
    """Block until ``path`` exists: the start signal that makes all writers overlap."""
    while not Path(path).exists():
        time.sleep(0.002)


def open_store(database: str, max_delay_ms: float, handoff: bool = True) -> EventStore:
    if not database.startswith("postgresql") or max_delay_ms <= 0:
        return EventStore.open(database, busy_timeout=30)
    from eventstore.sql.postgres.recorder import PostgresRecorder

    async def before_write() -> None:
        await asyncio.sleep(random.uniform(0, max_delay_ms) / 2000)

    def commit_delay() -> float:
        return random.uniform(0, max_delay_ms) / 1000

    recorder = PostgresRecorder(
        database,
        lock_timeout=60,
        lock_handoff=handoff,
        before_write=before_write,
        commit_delay=commit_delay,
    )
    return EventStore(recorder)


async def append_worker(
    database: str, index: int, count: int, max_delay_ms: float, protocol: str = "handoff"
) -> None:
    written: list[str] = []
    conflicts = 0
    handoff = protocol == "handoff" or (protocol == "mixed" and index % 2 == 0)
    async with open_store(database, max_delay_ms, handoff) as store:
        for i in range(count):
            if i % 5 == 4:
                while True:
                    head = await store.stream_head(TENANT, "shared")
                    try:
                        recorded = await store.append(
                            TENANT,
                            "shared",
                            [NewEvent(type="Shared", data={"worker": index, "i": i})],
                            expected_version=head.version,
                        )
                        break
                    except ConcurrencyError:
                        conflicts += 1
            else:
                recorded = await store.append(
                    TENANT,
                    f"worker/{index}",
                    [NewEvent(type="Own", data={"worker": index, "i": i, "text": "x" * 200})],
                )
            written.extend(str(event.event_id) for event in recorded)
    print(json.dumps({"written": written, "conflicts": conflicts}))


async def crash_worker(database: str, batch_size: int) -> None:
    async with EventStore.open(database) as store:
        batch = await _next_batch(store)
        print("ready", flush=True)
        while True:
            await store.append(
                TENANT,
                f"batches/{batch % 4}",
                [
                    NewEvent(
                        type="Part",
                        data={"batch": batch, "k": k, "of": batch_size, "pad": "y" * 300},
                        event_id=crash_event_id(batch, k),
                    )
                    for k in range(batch_size)
                ],
            )
            batch += 1


async def _next_batch(store: EventStore) -> int:
    """One past the highest batch recorded (the last event of each batch stream says)."""
    following = 0
    for head in await store.streams(TENANT):
        (last,) = await store.read_stream(TENANT, head.stream_id, from_version=head.version)
        assert last.data is not None
        following = max(following, int(last.data["batch"]) + 1)
    return following


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "append":
        wait_for_file(args[3])
        delay = float(args[4]) if len(args) > 4 else 0.0
        protocol = args[5] if len(args) > 5 else "handoff"
        asyncio.run(append_worker(args[0], int(args[1]), int(args[2]), delay, protocol))
    elif command == "crash":
        asyncio.run(crash_worker(args[0], int(args[1])))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
