"""Benchmark of growth: the costs of a SQLite tenant at 1,000 events and again at 1,000,000,
in the same run, each as a ratio with whether its target (issue #20) holds.

    python -m tests.benchmarks.bench_growth            # 1k, 100k and 1M events (about 5 min)
    python -m tests.benchmarks.bench_growth --quick    # 1k and 20k (a smoke run)

The tenant is filled with the event-store benchmark's 1-2 KB messages in batches of 1,000
(built here, never committed); a raw SQLite table of the same canonical JSON rows is filled
alongside for the baselines. At each size, in the same process:

- single durable append p50 (one event per transaction, synchronous=FULL), 200 samples, and
  a batch of 100 events p50, 20 samples;
- warm render p50 of a 1,000-message session in the tenant (one message appended before each,
  its state cached) and time travel p50 (renders at random earlier versions of it), both in
  the process that filled the tenant and in a fresh one (a server started on the big file).
  Each size gets two new sessions of the same 1,000 messages, one for each process: a render
  costs what its window holds, and the short turns appended while measuring would otherwise
  pile up in the window of one session measured at every size;
- verify of the whole tenant against a raw read-all of the same rows with ``json.loads``
  (each row decoded and dropped, per event);
- file bytes per event against the raw table's (both checkpointed and vacuumed).

Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eventstore import EventStore, NewEvent
from eventstore.encoding import canonical_json
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from tests.benchmarks.bench_context import conversation, time_travel
from tests.benchmarks.eventstore_baselines import file_bytes, raw_connection
from tests.benchmarks.payloads import make_messages

TENANT = "growth"
BUDGET = Budget(context_limit=32_000, max_output_tokens=4_000)
TARGETS = {
    "append": 1.2,
    "batch": 1.2,
    "render": 1.2,
    "time_travel": 1.2,
    "verify": 1.5,
    "bytes": 1.15,
}


class Tenant:
    """The growing tenant (through the store) and its raw twin (plain sqlite3)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "growth.db"
        self.raw_path = folder / "raw.db"
        self.raw = raw_connection(self.raw_path)
        self.messages = make_messages(2000)
        self.rows = [canonical_json(m) for m in self.messages]
        self.filled = 0

    async def fill_to(self, store: EventStore, total: int) -> float:
        """Append filler events until the tenant holds ``total``; returns events per second."""
        began, start = time.perf_counter(), self.filled
        while (await store.tenant_position(TENANT)) < total:
            size = min(1000, total - await store.tenant_position(TENANT))
            picked = [self.messages[(self.filled + k) % 2000] for k in range(size)]
            stream = f"fill/{self.filled // 10_000}"
            await store.append(
                TENANT, stream, [NewEvent(type="BenchEvent", data=m) for m in picked]
            )
            self.raw.execute("BEGIN")
            self.raw.executemany(
                "INSERT INTO raw_events (data) VALUES (?)",
                [(canonical_json(m).decode("utf-8"),) for m in picked],
            )
            self.raw.execute("COMMIT")
            self.filled += size
        elapsed = time.perf_counter() - began
        return (self.filled - start) / elapsed if elapsed else 0.0


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


async def single_appends(store: EventStore, size: int, count: int = 200) -> float:
    samples = []
    for index in range(count):
        event = NewEvent(type="BenchEvent", data=make_messages(1, seed=size + index)[0])
        began = time.perf_counter()
        await store.append(TENANT, f"probe/{size}", [event])
        samples.append(time.perf_counter() - began)
    return p50(samples)


async def batch_appends(store: EventStore, size: int, count: int = 20) -> float:
    """p50 of appending a batch of 100 events in one transaction."""
    samples = []
    for index in range(count):
        batch = [NewEvent(type="BenchEvent", data=m) for m in make_messages(100, seed=size + index)]
        began = time.perf_counter()
        await store.append(TENANT, f"batch/{size}", batch)
        samples.append(time.perf_counter() - began)
    return p50(samples)


async def probe_sessions(store: EventStore, size: int) -> tuple[str, str]:
    """Two new sessions of the same 1,000 messages: one for this process, one for a fresh."""
    names = (f"probe-{size}", f"probe-{size}-fresh")
    messages = conversation(1000)
    for name in names:
        session = Ledger(store, counter=TiktokenCounter()).session(TENANT, name)
        for first in range(0, 1000, 250):
            await session.append(messages[first : first + 250])
    return names


async def renders(ledger: Ledger, session_id: str, turns: int = 100) -> tuple[float, float]:
    """Warm render p50 and time-travel p50 of a probe session."""
    session = ledger.session(TENANT, session_id)
    state = await session.latest()
    base = state.count
    warm = []
    for turn in range(turns):
        message = {"id": f"extra-{base + turn}", "role": "user", "content": "and then?"}
        await session.append([message])
        began = time.perf_counter()
        await session.render(BUDGET)
        warm.append(time.perf_counter() - began)
    latest = (await session.latest()).version
    travel = await time_travel(ledger, session_id, latest, turns, tenant=TENANT, budget=BUDGET)
    return p50(warm), p50(travel)


def renders_in_a_fresh_process(path: Path, session_id: str) -> tuple[float, float]:
    """Warm render and time-travel p50 measured by a new process opening the tenant's file."""
    command = [
        *(sys.executable, "-m", "tests.benchmarks.bench_growth"),
        *("renders", str(path), session_id),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout)
    return figures["warm_s"], figures["travel_s"]


async def child_renders(path: Path, session_id: str) -> None:
    async with EventStore.open(path) as store:
        warm_s, travel_s = await renders(Ledger(store, counter=TiktokenCounter()), session_id)
    print(json.dumps({"warm_s": warm_s, "travel_s": travel_s}))


async def verify_ratio(tenant: Tenant) -> tuple[float, float]:
    """Seconds per event of ``verify`` of the whole tenant and of a raw read-all of the twin
    with ``json.loads`` (the twin lacks the probes' few hundred events, hence per event)."""
    tenant.raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    began = time.perf_counter()
    connection = sqlite3.connect(tenant.raw_path)
    decoded = 0
    # Decoded and dropped, as verify does: a list of a million dicts would make the baseline
    # pay the garbage collector's full scans (11 s instead of 6 s at 1M in a trial run).
    for (data,) in connection.execute("SELECT data FROM raw_events"):
        json.loads(data)
        decoded += 1
    connection.close()
    raw_s = time.perf_counter() - began
    async with EventStore.open(tenant.path, create=False) as store:
        began = time.perf_counter()
        report = await store.verify(TENANT)
        verify_s = time.perf_counter() - began
    assert report.ok, report
    assert decoded == tenant.filled
    return verify_s / report.checked, raw_s / decoded


async def measure(tenant: Tenant, size: int) -> dict[str, float]:
    async with EventStore.open(tenant.path, synchronous="FULL") as store:
        rate = await tenant.fill_to(store, size)
        append_s = await single_appends(store, size)
        batch_s = await batch_appends(store, size)
        ours, theirs = await probe_sessions(store, size)
        warm_s, travel_s = await renders(Ledger(store, counter=TiktokenCounter()), ours)
        events = await store.tenant_position(TENANT)
    fresh_warm_s, fresh_travel_s = renders_in_a_fresh_process(tenant.path, theirs)
    verify_s, raw_s = await verify_ratio(tenant)
    return {
        "size": size,
        "fill_rate": round(rate),
        "append_us": append_s * 1e6,
        "batch_ms": batch_s * 1e3,
        "render_ms": warm_s * 1e3,
        "travel_ms": travel_s * 1e3,
        "fresh_render_ms": fresh_warm_s * 1e3,
        "fresh_travel_ms": fresh_travel_s * 1e3,
        "verify_s": verify_s * events,
        "raw_s": raw_s * events,
        "verify_ratio": verify_s / raw_s,
        "events": events,
    }


async def start(tenant: Tenant) -> None:
    """The tenant's first 1,000 events: a session, with the same rows in the raw twin."""
    async with EventStore.open(tenant.path) as store:
        session = Ledger(store, counter=TiktokenCounter()).session(TENANT, "probe")
        messages = conversation(1000)
        for first in range(0, 1000, 250):
            await session.append(messages[first : first + 250])
    tenant.raw.execute("BEGIN")
    tenant.raw.executemany(
        "INSERT INTO raw_events (data) VALUES (?)",
        [(canonical_json(m.model_dump(mode="json")).decode("utf-8"),) for m in messages],
    )
    tenant.raw.execute("COMMIT")
    tenant.filled = 1000


def verdict(name: str, value: float) -> str:
    holds = "holds" if value <= TARGETS[name] else "MISSED"
    return f"{value:.2f} (target ≤ {TARGETS[name]}: {holds})"


def main() -> None:
    if sys.argv[1:2] == ["renders"]:
        asyncio.run(child_renders(Path(sys.argv[2]), sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k and 20k events")
    arguments = parser.parse_args()
    sizes = [1000, 20_000] if arguments.quick else [1000, 100_000, 1_000_000]
    with tempfile.TemporaryDirectory() as folder:
        tenant = Tenant(Path(folder))
        asyncio.run(start(tenant))
        rows = [asyncio.run(measure(tenant, size)) for size in sizes]
        tenant.raw.close()
        ours, raw = file_bytes(tenant.path), file_bytes(tenant.raw_path)
        raw_rows = tenant.filled
    print("| events | fill events/s | append p50 µs | batch of 100 p50 ms | warm render p50 ms "
          "(filling process / fresh) | time travel p50 ms (filling / fresh) "
          "| verify s | raw read-all s (same count) | verify ÷ raw |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        rate = f"{row['fill_rate']:,}" if row["fill_rate"] else "–"  # nothing to fill at first
        print(
            f"| {row['events']:,} | {rate} | {row['append_us']:.0f} | {row['batch_ms']:.1f} "
            f"| {row['render_ms']:.2f} / {row['fresh_render_ms']:.2f} "
            f"| {row['travel_ms']:.2f} / {row['fresh_travel_ms']:.2f} | {row['verify_s']:.2f} "
            f"| {row['raw_s']:.2f} | {row['verify_ratio']:.2f} |"
        )
    first, last = rows[0], rows[-1]
    per_event, raw_per_event = ours / last["events"], raw / raw_rows
    print()
    print(f"ratios, {last['events']:,} events against {first['events']:,}:")
    print(f"  append p50:       {verdict('append', last['append_us'] / first['append_us'])}")
    print(f"  batch of 100 p50: {verdict('batch', last['batch_ms'] / first['batch_ms'])}")
    for where, prefix in (("the filling process", ""), ("a fresh process", "fresh_")):
        render = last[f"{prefix}render_ms"] / first[f"{prefix}render_ms"]
        travel = last[f"{prefix}travel_ms"] / first[f"{prefix}travel_ms"]
        print(f"  warm render p50, {where}: {verdict('render', render)}")
        print(f"  time travel p50, {where}: {verdict('time_travel', travel)}")
    print(f"  verify ÷ raw read-all with json.loads: {verdict('verify', last['verify_ratio'])}")
    print(
        f"  file bytes per event {per_event:,.0f} ÷ raw JSON row {raw_per_event:,.0f}: "
        f"{verdict('bytes', per_event / raw_per_event)}"
    )


if __name__ == "__main__":
    main()
