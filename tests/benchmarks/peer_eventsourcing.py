"""The peer in the PostgreSQL benchmark: pyeventsourcing's application recorder, which also
gives gap-free notification ids. Runs in an environment with ``eventsourcing[postgres]``
installed (it imports nothing from ctxledger):

    python tests/benchmarks/peer_eventsourcing.py setup  DSN
    python tests/benchmarks/peer_eventsourcing.py worker DSN INDEX COUNT GO_FILE PAYLOAD_FILE
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from urllib.parse import urlparse


def recorder(dsn: str):  # type: ignore[no-untyped-def]
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    url = urlparse(dsn)
    datastore = PostgresDatastore(
        dbname=url.path.lstrip("/"),
        host=url.hostname or "127.0.0.1",
        port=url.port or 5432,
        user=url.username or "",
        password=url.password or "",
        pool_size=1,
    )
    return PostgresApplicationRecorder(datastore)


def main(argv: list[str]) -> None:
    command, dsn, *rest = argv
    if command == "setup":
        recorder(dsn).create_table()
        return
    from eventsourcing.persistence import StoredEvent

    index, count, go_file, payload_file = int(rest[0]), int(rest[1]), rest[2], rest[3]
    with open(payload_file, "rb") as handle:
        payloads = [line.rstrip(b"\n") for line in handle]
    store = recorder(dsn)
    originator = uuid.uuid4()
    while not os.path.exists(go_file):
        time.sleep(0.002)
    latencies = []
    started = time.time()
    for version in range(1, count + 1):
        event = StoredEvent(
            originator_id=originator,
            originator_version=version,
            topic="MessageAppended",
            state=payloads[(index * count + version) % len(payloads)],
        )
        began = time.perf_counter()
        store.insert_events([event])
        latencies.append(time.perf_counter() - began)
    print(json.dumps({"latencies": latencies, "started": started, "finished": time.time()}))


if __name__ == "__main__":
    main(sys.argv[1:])
