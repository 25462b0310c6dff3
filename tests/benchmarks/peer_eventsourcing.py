"""The peer in the PostgreSQL benchmark: pyeventsourcing's application recorder, which also
gives gap-free notification ids. Runs in an environment with ``eventsourcing[postgres]``
installed (it imports nothing from ctxledger):

    python tests/benchmarks/peer_eventsourcing.py setup  DSN
    python tests/benchmarks/peer_eventsourcing.py worker DSN INDEX COUNT GO_FILE PAYLOAD_FILE
"""

from __future__ import annotations

import json
import os
import resource
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
    before = resource.getrusage(resource.RUSAGE_SELF)
    busy_started = busy_cpu_seconds()
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
    finished = time.time()
    busy_finished = busy_cpu_seconds()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    figures = {"latencies": latencies, "started": started, "finished": finished, "cpu_s": cpu}
    print(json.dumps({**figures, "busy": [busy_started, busy_finished]}))


def busy_cpu_seconds() -> float:
    """CPU time the whole machine spent busy so far (a copy: this file imports no ctxledger)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main(sys.argv[1:])
